package io.jslirp.engine;

import io.jslirp.host.Nameserver;
import io.jslirp.host.TcpForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

import java.util.List;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network        the virtual network
 * @param nameservers    where DNS sent to the DNS address goes (resolv.conf's, in order); null
 *                       when the DNS address is disabled
 * @param tcp            guest-facing TCP parameters
 * @param udpIdleNanos   how long a UDP or ping flow lives without traffic
 * @param tcpForwards    host TCP ports forwarded to the guest
 */
public record EngineConfig(NetworkConfig network, List<Nameserver> nameservers, TcpConfig tcp, long udpIdleNanos,
                           List<TcpForward> tcpForwards) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;

    public static EngineConfig of(NetworkConfig network, List<Nameserver> nameservers) {
        return new EngineConfig(network, nameservers, TcpConfig.forMtu(network.mtu()), DEFAULT_UDP_IDLE_NANOS, List.of());
    }

    public EngineConfig withTcpForwards(List<TcpForward> forwards) {
        return new EngineConfig(network, nameservers, tcp, udpIdleNanos, List.copyOf(forwards));
    }
}
