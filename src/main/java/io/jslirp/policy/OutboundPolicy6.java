package io.jslirp.policy;

import io.jslirp.service.DnsForwarder;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;

/**
 * Where a guest IPv6 flow goes on the host, as {@link OutboundPolicy} for IPv4: the gateway
 * stands for the host's ::1, and so does ::1 itself (only a crafted frame is sent to it, as to
 * 127.0.0.0/8); with host loopback disabled both are refused as IPv4's loopback is
 * ({@link OutboundPolicy#NO_ROUTE}). Other addresses of the prefix (the DNS address's service is
 * {@link DnsForwarder}'s), link-local, multicast, unspecified and IPv4-mapped addresses stand for
 * nothing; every other address for itself. The host destination must then pass the same
 * {@link DestinationRules} as IPv4's (so the gateway counts as ::1). Addresses are handles of the
 * stack's {@link AddressBook}.
 */
public final class OutboundPolicy6 {
    /** ::ffff:0:0/96 holds IPv4 addresses: its low half is 0x0000_ffff followed by the IPv4 address. */
    private static final long V4_MAPPED_LO_HIGH_WORD = 0xffffL;

    private final Ipv6Network net;
    private final AddressBook addresses;
    private final DestinationRules rules;
    /** The host's ::1, held for the life of the policy. */
    private final int loopback;
    /** What outbound sockets are bound to (--outbound-addr6), or null. */
    private final HostAddress6 outboundAddress;

    /**
     * @param outboundAddress host address every outbound socket is bound to (also toward ::1, as for IPv4), or null
     * @param rules           the host destinations the guest may reach (--allow, --deny), IPv4's too
     */
    public OutboundPolicy6(Ipv6Network net, AddressBook addresses, HostAddress6 outboundAddress, DestinationRules rules) {
        this.net = net;
        this.addresses = addresses;
        this.rules = rules;
        this.loopback = addresses.acquire(0, 1);
        this.outboundAddress = outboundAddress;
    }

    /** Binds fd, a new outbound IPv6 socket, to the outbound address if one is set: 0 or -errno. */
    public int bindSource(int fd) {
        return outboundAddress == null ? 0 : Sockets.bind6(fd, outboundAddress.hi(), outboundAddress.lo(), 0);
    }

    /**
     * The host address (a handle) a guest flow to destination goes to, or
     * {@link OutboundPolicy#UNREACHABLE}, {@link OutboundPolicy#PROHIBITED} or {@link OutboundPolicy#NO_ROUTE}.
     */
    public int target(int destination) {
        int target = hostAddress(destination);
        if (target == OutboundPolicy.UNREACHABLE || target == OutboundPolicy.NO_ROUTE) return target;
        return rules.permits(addresses.hi(target), addresses.lo(target)) ? target : OutboundPolicy.PROHIBITED;
    }

    private int hostAddress(int destination) {
        long hi = addresses.hi(destination), lo = addresses.lo(destination);
        if (net.isGateway(hi, lo) || (hi == 0 && lo == 1)) return net.hostLoopback() ? loopback : OutboundPolicy.NO_ROUTE;
        if (net.inPrefix(hi) || Ipv6.isLinkLocal(hi) || Ipv6.isMulticast(hi)) return OutboundPolicy.UNREACHABLE;
        if (hi == 0 && (lo == 0 || (lo >>> 32) == V4_MAPPED_LO_HIGH_WORD)) {
            return OutboundPolicy.UNREACHABLE; // unspecified; IPv4-mapped would bypass the IPv4 policy
        }
        return destination;
    }
}
