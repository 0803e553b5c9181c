package io.jslirp.engine;

import io.jslirp.host.Limits;
import io.jslirp.host.TcpForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

import java.util.List;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network        the virtual network
 * @param nameserver     upstream DNS server for the DNS address (IPv4, host order), or 0 for none
 * @param tcp            guest-facing TCP parameters
 * @param udpIdleNanos   how long a UDP flow lives without traffic
 * @param tcpForwards    host TCP ports forwarded to the guest
 * @param limits         how many flows the guest may have at once
 */
public record EngineConfig(NetworkConfig network, int nameserver, TcpConfig tcp, long udpIdleNanos, List<TcpForward> tcpForwards,
                           Limits limits) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;

    public static EngineConfig of(NetworkConfig network, int nameserver) {
        return new EngineConfig(network, nameserver, TcpConfig.forMtu(network.mtu()), DEFAULT_UDP_IDLE_NANOS, List.of(),
                Limits.DEFAULTS);
    }

    public EngineConfig withTcpForwards(List<TcpForward> forwards) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, List.copyOf(forwards), limits);
    }

    public EngineConfig withTcp(TcpConfig tcp) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, tcpForwards, limits);
    }

    public EngineConfig withLimits(Limits limits) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, tcpForwards, limits);
    }
}
