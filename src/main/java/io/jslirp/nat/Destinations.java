package io.jslirp.nat;

import io.jslirp.policy.DnsServers;
import io.jslirp.policy.Nameservers;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tftp;

/**
 * The one decision of where a new flow of the guest goes, for every protocol and both IP
 * versions, made once when the table has no flow for its packet: the IPv4 gateway's TFTP port
 * (when a directory is served), the DNS address's port 53 (unless DNS is disabled: the
 * nameservers), else the family's outbound policy (the gateway to the host's loopback, a mapped
 * address such as pasta's --map-guest-addr to the host address it stands for, --allow and --deny,
 * --disable-host-loopback, an address with no route). Packets of existing flows, forwarded
 * clients' included, never come here. A decision is a long (what, and the address or the ICMP
 * code), so that making it allocates nothing.
 */
public final class Destinations {
    /** To a host address ({@link #value}: its handle). */
    public static final int HOST = 0;
    /** To the nameservers of resolv.conf (TCP: one by one; UDP: the DNS forwarder). */
    public static final int NAMESERVERS = 1;
    /** To the TFTP server. */
    public static final int TFTP = 2;
    /** Refused by the rules ({@link #value}: the ICMPv4 code of the destination unreachable the guest gets). */
    public static final int REFUSED = 3;
    /** Nowhere: an address that leads to no host (silence, or a TCP reset). */
    public static final int UNREACHABLE = 4;

    /** Null with --disable-dns. */
    private final DnsServers nameservers;
    private boolean tftp;

    /** Decisions with DNS served from nameservers (null: --disable-dns, the DNS address then as silent as any other). */
    public Destinations(DnsServers nameservers) {
        this.nameservers = nameservers;
    }

    /** From now on the IPv4 gateway's TFTP port is served here (no longer the host loopback's). */
    public void serveTftp() {
        tftp = true;
    }

    /** Where a new flow of protocol (an IPv4 protocol number; ICMP for echo) from the guest to destination:port goes. */
    public long decide(Family family, int protocol, int destination, int port) {
        boolean udp = protocol == Ipv4.PROTO_UDP;
        if (udp && tftp && !family.ipv6() && destination == family.gateway() && port == Tftp.PORT) return of(TFTP, 0);
        if (nameservers != null && (udp || protocol == Ipv4.PROTO_TCP) && destination == family.dns() && port == Nameservers.PORT) {
            return of(!udp && nameservers.of(family.ipv6()).isEmpty() ? UNREACHABLE : NAMESERVERS, 0);
        }
        int target = family.target(destination);
        if (target == OutboundPolicy.UNREACHABLE) return of(UNREACHABLE, 0);
        int refusal = OutboundPolicy.refusalCode(target);
        return refusal >= 0 ? of(REFUSED, refusal) : of(HOST, target);
    }

    private static long of(int what, int value) {
        return ((long) what << 32) | (value & 0xffffffffL);
    }

    /** What a decision is: {@link #HOST}, {@link #NAMESERVERS}, {@link #TFTP}, {@link #REFUSED} or {@link #UNREACHABLE}. */
    public static int what(long decision) {
        return (int) (decision >>> 32);
    }

    /** A decision's host address handle, or ICMP code. */
    public static int value(long decision) {
        return (int) decision;
    }
}
