package io.jslirp.engine;

import io.jslirp.host.PortForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

import java.util.List;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network         the virtual network
 * @param nameserver      upstream DNS server for the DNS address (IPv4, host order), or 0 for none
 * @param tcp             guest-facing TCP parameters
 * @param udpIdleNanos    how long a UDP flow lives without traffic
 * @param forwards        host TCP and UDP ports forwarded to the guest
 * @param outboundAddress host address outbound sockets are bound to, or 0 for the kernel's choice
 */
public record EngineConfig(NetworkConfig network, int nameserver, TcpConfig tcp, long udpIdleNanos, List<PortForward> forwards,
                           int outboundAddress) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;

    public static EngineConfig of(NetworkConfig network, int nameserver) {
        return new EngineConfig(network, nameserver, TcpConfig.forMtu(network.mtu()), DEFAULT_UDP_IDLE_NANOS, List.of(), 0);
    }

    public EngineConfig withForwards(List<PortForward> list) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, List.copyOf(list), outboundAddress);
    }

    public EngineConfig withOutboundAddress(int address) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, forwards, address);
    }
}
