package io.jslirp.engine;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network        the virtual network
 * @param nameserver     upstream DNS server for the DNS address (IPv4, host order), or 0 for none
 * @param tcp            guest-facing TCP parameters
 * @param udpIdleNanos   how long a UDP flow lives without traffic
 */
public record EngineConfig(NetworkConfig network, int nameserver, TcpConfig tcp, long udpIdleNanos) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;

    public static EngineConfig of(NetworkConfig network, int nameserver) {
        return new EngineConfig(network, nameserver, TcpConfig.forMtu(network.mtu()), DEFAULT_UDP_IDLE_NANOS);
    }
}
