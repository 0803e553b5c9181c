package io.jslirp.policy;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Icmpv4;

/**
 * Where a guest flow goes on the host: the gateway stands for the host's loopback (unless
 * disabled), other addresses of the virtual network for nothing (the DNS address's service is
 * {@code service.DnsForwarder}'s), and every other address for itself. The host destination must then
 * pass the {@link DestinationRules} (so the gateway counts as 127.0.0.1). Outbound sockets may be
 * bound to one source address. {@link OutboundPolicy6} does the same for IPv6, with the same
 * rules and the same answers to a refusal. Addresses are handles of the engine's {@link AddressBook}.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing, as from a host that is not there. */
    public static final int UNREACHABLE = 0;
    /**
     * A destination the rules refuse (--deny, --allow): the guest gets ICMP administratively
     * prohibited, as from a router's reject rule. 255.255.255.255 is never a host destination, so
     * it can stand for this (nor is -1 an IPv6 address handle).
     */
    public static final int PROHIBITED = -1;
    /**
     * The host's loopback with --disable-host-loopback: the guest gets ICMP net unreachable (IPv6:
     * no route to destination), libslirp's answer, so its connect fails with ENETUNREACH as
     * slirp4netns's users expect. 255.255.255.254 is never a host destination either.
     */
    public static final int NO_ROUTE = -2;
    private static final int LOOPBACK = 0x7f000001;

    private final NetworkConfig config;
    private final AddressBook addresses;
    /** The host's 127.0.0.1, held for the life of the policy. */
    private final int loopback;
    private final int outboundAddress;
    private final DestinationRules rules;

    /**
     * @param outboundAddress host address that every outbound socket is bound to (slirp4netns's
     *                        --outbound-addr; also toward the host's loopback, as libslirp does),
     *                        or 0 to let the kernel choose
     * @param rules           the host destinations the guest may reach (--allow, --deny)
     */
    public OutboundPolicy(NetworkConfig config, AddressBook addresses, int outboundAddress, DestinationRules rules) {
        this.config = config;
        this.addresses = addresses;
        this.loopback = addresses.acquire4(LOOPBACK);
        this.outboundAddress = outboundAddress;
        this.rules = rules;
    }

    /** Binds fd, a new outbound socket, to the outbound address if one is set: 0 or -errno. */
    public int bindSource(int fd) {
        return outboundAddress == 0 ? 0 : Sockets.bind4(fd, outboundAddress, 0);
    }

    /**
     * The ICMPv4 destination unreachable code (the IPv6 side maps it) that answers a flow whose
     * target (of either version's policy) is a refusal, or -1 when target is none.
     */
    public static int refusalCode(int target) {
        return switch (target) {
            case PROHIBITED -> Icmpv4.CODE_ADMIN_PROHIBITED;
            case NO_ROUTE -> Icmpv4.CODE_NET_UNREACHABLE;
            default -> -1;
        };
    }

    /**
     * The host address a guest TCP, UDP or ICMP echo flow to destination goes to, or
     * {@link #UNREACHABLE}, {@link #PROHIBITED} or {@link #NO_ROUTE}.
     */
    public int target(int destination) {
        int v4 = addresses.ipv4(destination);
        int host = hostAddress(v4);
        if (host == UNREACHABLE || host == NO_ROUTE) return host;
        if (!rules.permits(host)) return PROHIBITED;
        return host == v4 ? destination : loopback;
    }

    private int hostAddress(int destination) {
        if (destination == config.gateway()) return config.hostLoopback() ? LOOPBACK : NO_ROUTE;
        if (config.inNetwork(destination)) return UNREACHABLE;
        if ((destination >>> 24) == 127) return config.hostLoopback() ? destination : NO_ROUTE; // only a crafted frame gets here
        if ((destination >>> 24) == 0 || (destination >>> 28) >= 0xe) return UNREACHABLE; // "this network", multicast, reserved, broadcast
        return destination;
    }
}
