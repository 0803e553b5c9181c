package io.jslirp.policy;

import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Icmpv4;

/**
 * Where a guest flow of one IP version goes on the host, by its {@link AddressPlan}: the gateway
 * stands for the host's loopback (unless disabled: then it has no route), other addresses of the
 * virtual network for nothing (the DNS address's service is {@code service.DnsForwarder}'s), the
 * host's loopback network for itself (only a crafted frame is sent there), addresses that are no
 * host's for nothing, a mapped address (pasta's --map-guest-addr) for the host address it maps to,
 * and every other address for itself. The host destination must then pass the
 * {@link DestinationRules}, one list for both versions (so the gateway counts as 127.0.0.1 or
 * ::1). Outbound sockets may be bound to one source address. One instance per IP version, the
 * same code; addresses are handles of the engine's {@link AddressBook}.
 */
public final class OutboundPolicy {
    /** No host destination: the guest gets a reset or nothing, as from a host that is not there. */
    public static final int UNREACHABLE = AddressBook.NONE;
    /**
     * A destination the rules refuse (--deny, --allow): the guest gets ICMP administratively
     * prohibited, as from a router's reject rule. No handle is negative, so this can stand for it.
     */
    public static final int PROHIBITED = -1;
    /**
     * The host's loopback with --disable-host-loopback: the guest gets ICMP net unreachable (IPv6:
     * no route to destination), libslirp's answer, so its connect fails with ENETUNREACH as
     * slirp4netns's users expect.
     */
    public static final int NO_ROUTE = -2;

    private final AddressBook addresses;
    private final AddressPlan plan;
    private final DestinationRules rules;
    /** What outbound sockets are bound to, or null. */
    private final HostAddress outboundAddress;
    private final HostSockets sockets;
    /** The host's loopback address, held for the life of the policy. */
    private final int loopback;
    /** The host sides of the plan's mappings, by index: handles held for the life of the policy. */
    private final int[] mapped;

    /**
     * @param outboundAddress host address of the plan's version that every outbound socket is bound
     *                        to (slirp4netns's --outbound-addr, --outbound-addr6; also toward the
     *                        host's loopback, as libslirp does), or null to let the kernel choose
     * @param rules           the host destinations the guest may reach (--allow, --deny)
     */
    public OutboundPolicy(AddressBook addresses, AddressPlan plan, DestinationRules rules, HostAddress outboundAddress,
                          HostSockets sockets) {
        this.addresses = addresses;
        this.plan = plan;
        this.rules = rules;
        this.outboundAddress = outboundAddress;
        this.sockets = sockets;
        this.loopback = addresses.acquire(plan.hostLoopback().hi(), plan.hostLoopback().lo());
        this.mapped = new int[plan.mappings().size()];
        for (int i = 0; i < mapped.length; i++) {
            HostAddress a = plan.mappings().get(i).hostSide();
            mapped[i] = addresses.acquire(a.hi(), a.lo());
        }
    }

    public AddressPlan plan() {
        return plan;
    }

    /** Binds fd, a new outbound socket, to the outbound address if one is set: 0 or -errno. */
    public int bindSource(int fd) {
        return outboundAddress == null ? 0 : sockets.bind(fd, outboundAddress.hi(), outboundAddress.lo(), 0);
    }

    /**
     * The ICMPv4 destination unreachable code (the IPv6 output maps it) that answers a flow whose
     * target is a refusal, or -1 when target is none.
     */
    public static int refusalCode(int target) {
        return switch (target) {
            case PROHIBITED -> Icmpv4.CODE_ADMIN_PROHIBITED;
            case NO_ROUTE -> Icmpv4.CODE_NET_UNREACHABLE;
            default -> -1;
        };
    }

    /**
     * The host address (a handle) a guest TCP, UDP or ICMP echo flow to destination goes to, or
     * {@link #UNREACHABLE}, {@link #PROHIBITED} or {@link #NO_ROUTE}. A destination of the other
     * version (an IPv4-mapped address in an IPv6 packet) is unreachable: it would bypass IPv4's policy.
     */
    public int target(int destination) {
        if (addresses.isIpv4(destination) != plan.ipv4()) return UNREACHABLE;
        int host = switch (plan.kind(addresses.hi(destination), addresses.lo(destination))) {
            case GATEWAY -> plan.loopbackOpen() ? loopback : NO_ROUTE;
            case MAPPED -> mapped[plan.mapping(addresses.hi(destination), addresses.lo(destination))];
            case LOOPBACK -> plan.loopbackOpen() ? destination : NO_ROUTE;
            case VIRTUAL, NO_HOST -> UNREACHABLE;
            case HOST -> destination;
        };
        if (host == UNREACHABLE || host == NO_ROUTE) return host;
        return rules.permits(addresses.hi(host), addresses.lo(host)) ? host : PROHIBITED;
    }
}
