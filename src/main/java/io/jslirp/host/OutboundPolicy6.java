package io.jslirp.host;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;

/**
 * Where a guest IPv6 flow goes on the host, as {@link OutboundPolicy} for IPv4: the gateway
 * stands for the host's ::1 (unless host loopback is disabled); other addresses of the prefix (the
 * DNS address's service is {@link DnsForwarder}'s), link-local, multicast, unspecified and
 * IPv4-mapped addresses for nothing; every other address for itself. Addresses are handles of
 * the stack's {@link AddressBook}.
 */
final class OutboundPolicy6 {
    /** ::ffff:0:0/96 holds IPv4 addresses: its low half is 0x0000_ffff followed by the IPv4 address. */
    private static final long V4_MAPPED_LO_HIGH_WORD = 0xffffL;

    private final Ipv6Network net;
    private final AddressBook addresses;
    /** The host's ::1, held for the life of the policy. */
    private final int loopback;
    /** What outbound sockets are bound to (--outbound-addr6), or null. */
    private final HostAddress6 outboundAddress;

    /** outboundAddress: host address every outbound socket is bound to (also toward ::1, as for IPv4), or null. */
    OutboundPolicy6(Ipv6Network net, AddressBook addresses, HostAddress6 outboundAddress) {
        this.net = net;
        this.addresses = addresses;
        this.loopback = addresses.acquire(0, 1);
        this.outboundAddress = outboundAddress;
    }

    /** Binds fd, a new outbound IPv6 socket, to the outbound address if one is set: 0 or -errno. */
    int bindSource(int fd) {
        return outboundAddress == null ? 0 : Sockets.bind6(fd, outboundAddress.hi(), outboundAddress.lo(), 0);
    }

    /** The host address (a handle) a guest flow to destination goes to, or {@link OutboundPolicy#UNREACHABLE}. */
    int target(int destination) {
        long hi = addresses.hi(destination), lo = addresses.lo(destination);
        if (net.isGateway(hi, lo)) return net.hostLoopback() ? loopback : OutboundPolicy.UNREACHABLE;
        if (net.inPrefix(hi) || Ipv6.isLinkLocal(hi) || Ipv6.isMulticast(hi)) return OutboundPolicy.UNREACHABLE;
        if (hi == 0 && (lo == 0 || lo == 1 || (lo >>> 32) == V4_MAPPED_LO_HIGH_WORD)) {
            // unspecified; ::1 is the guest's own; IPv4-mapped would bypass the IPv4 policy
            return OutboundPolicy.UNREACHABLE;
        }
        return destination;
    }
}
