package io.jslirp.host;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Sockets;

/**
 * Where a guest flow goes on the host: the gateway stands for the host's loopback (unless
 * disabled), other addresses of the virtual network for nothing (the DNS address's service is
 * {@link DnsForwarder}'s), and every other address for itself. The host destination must then
 * pass the {@link DestinationRules} (so the gateway counts as 127.0.0.1). Outbound sockets may be
 * bound to one source address.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing, as from a host that is not there. */
    public static final int UNREACHABLE = 0;
    /**
     * A destination the policy refuses (--disable-host-loopback, --deny, --allow): the guest gets
     * ICMP administratively prohibited, as from a router's reject rule. 255.255.255.255 is never a
     * host destination, so it can stand for this.
     */
    public static final int PROHIBITED = -1;
    private static final int LOOPBACK = 0x7f000001;

    private final NetworkConfig config;
    private final int outboundAddress;
    private final DestinationRules rules;

    /**
     * @param outboundAddress host address that every outbound socket is bound to (slirp4netns's
     *                        --outbound-addr; also toward the host's loopback, as libslirp does),
     *                        or 0 to let the kernel choose
     * @param rules           the host destinations the guest may reach (--allow, --deny)
     */
    public OutboundPolicy(NetworkConfig config, int outboundAddress, DestinationRules rules) {
        this.config = config;
        this.outboundAddress = outboundAddress;
        this.rules = rules;
    }

    /** Binds fd, a new outbound socket, to the outbound address if one is set: 0 or -errno. */
    int bindSource(int fd) {
        return outboundAddress == 0 ? 0 : Sockets.bind4(fd, outboundAddress, 0);
    }

    /**
     * The host address a guest TCP, UDP or ICMP echo flow to destination goes to, or
     * {@link #UNREACHABLE} or {@link #PROHIBITED}.
     */
    public int target(int destination) {
        int target = hostAddress(destination);
        if (target == UNREACHABLE || target == PROHIBITED) return target;
        return rules.permits(target) ? target : PROHIBITED;
    }

    private int hostAddress(int destination) {
        if (destination == config.gateway()) return config.hostLoopback() ? LOOPBACK : PROHIBITED;
        if (config.inNetwork(destination)) return UNREACHABLE;
        if ((destination >>> 24) == 127) return config.hostLoopback() ? destination : PROHIBITED; // only a crafted frame gets here
        if ((destination >>> 24) == 0 || (destination >>> 28) >= 0xe) return UNREACHABLE; // "this network", multicast, reserved, broadcast
        return destination;
    }
}
