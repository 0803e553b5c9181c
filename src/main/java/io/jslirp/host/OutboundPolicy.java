package io.jslirp.host;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Sockets;

/**
 * Where a guest flow goes on the host: the gateway stands for the host's loopback (unless
 * disabled), the DNS address for the upstream nameserver, other addresses of the virtual network
 * for nothing, and every other address for itself.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing. */
    public static final int UNREACHABLE = 0;
    private static final int LOOPBACK = 0x7f000001;
    private static final int DNS_PORT = 53;

    private final NetworkConfig config;
    private final int nameserver;
    private final int outboundAddress;

    /**
     * @param nameserver      upstream DNS server for the DNS address, or 0 for none
     * @param outboundAddress host address that every outbound socket is bound to (slirp4netns's
     *                        --outbound-addr; also toward the host's loopback, as libslirp does),
     *                        or 0 to let the kernel choose
     */
    public OutboundPolicy(NetworkConfig config, int nameserver, int outboundAddress) {
        this.config = config;
        this.nameserver = nameserver;
        this.outboundAddress = outboundAddress;
    }

    /** Binds fd, a new outbound socket, to the outbound address if one is set: 0 or -errno. */
    int bindSource(int fd) {
        return outboundAddress == 0 ? 0 : Sockets.bind4(fd, outboundAddress, 0);
    }

    public int tcpTarget(int destination) {
        return common(destination);
    }

    public int udpTarget(int destination, int port) {
        if (destination == config.dns()) return port == DNS_PORT ? nameserver : UNREACHABLE;
        return common(destination);
    }

    private int common(int destination) {
        if (destination == config.gateway()) return config.hostLoopback() ? LOOPBACK : UNREACHABLE;
        if (config.inNetwork(destination)) return UNREACHABLE;
        if ((destination >>> 24) == 127 && !config.hostLoopback()) return UNREACHABLE;
        if (destination == 0 || (destination >>> 28) >= 0xe) return UNREACHABLE; // unspecified, multicast, reserved, broadcast
        return destination;
    }
}
