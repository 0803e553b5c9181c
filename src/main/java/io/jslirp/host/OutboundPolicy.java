package io.jslirp.host;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Sockets;

/**
 * Where a guest flow goes on the host: the gateway stands for the host's loopback (unless
 * disabled), other addresses of the virtual network for nothing (the DNS address's service is
 * {@link DnsForwarder}'s), and every other address for itself. Outbound sockets may be bound to
 * one source address.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing. */
    public static final int UNREACHABLE = 0;
    private static final int LOOPBACK = 0x7f000001;

    private final NetworkConfig config;
    private final int outboundAddress;

    /**
     * @param outboundAddress host address that every outbound socket is bound to (slirp4netns's
     *                        --outbound-addr; also toward the host's loopback, as libslirp does),
     *                        or 0 to let the kernel choose
     */
    public OutboundPolicy(NetworkConfig config, int outboundAddress) {
        this.config = config;
        this.outboundAddress = outboundAddress;
    }

    /** Binds fd, a new outbound socket, to the outbound address if one is set: 0 or -errno. */
    int bindSource(int fd) {
        return outboundAddress == 0 ? 0 : Sockets.bind4(fd, outboundAddress, 0);
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
