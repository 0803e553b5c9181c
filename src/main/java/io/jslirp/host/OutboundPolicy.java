package io.jslirp.host;

import io.jslirp.stack.NetworkConfig;

/**
 * Where a guest flow goes on the host: the gateway stands for the host's loopback (unless
 * disabled), other addresses of the virtual network for nothing (the DNS address's service is
 * {@link DnsForwarder}'s), and every other address for itself.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing. */
    public static final int UNREACHABLE = 0;
    private static final int LOOPBACK = 0x7f000001;

    private final NetworkConfig config;

    public OutboundPolicy(NetworkConfig config) {
        this.config = config;
    }

    /** The host address a guest TCP, UDP or ICMP echo flow to destination goes to, or {@link #UNREACHABLE}. */
    public int target(int destination) {
        if (destination == config.gateway()) return config.hostLoopback() ? LOOPBACK : UNREACHABLE;
        if (config.inNetwork(destination)) return UNREACHABLE;
        if ((destination >>> 24) == 127 && !config.hostLoopback()) return UNREACHABLE;
        if (destination == 0 || (destination >>> 28) >= 0xe) return UNREACHABLE; // unspecified, multicast, reserved, broadcast
        return destination;
    }
}
