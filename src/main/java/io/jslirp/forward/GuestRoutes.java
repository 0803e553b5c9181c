package io.jslirp.forward;

import io.jslirp.nat.Family;
import io.jslirp.util.AddressBook;

/**
 * Which IP version a forwarded port's host client reaches the guest by, and at which of its
 * addresses: a client of an IPv4 host address over IPv4; one of an IPv6 host address over IPv6
 * when IPv6 is on and the guest's IPv6 address is known (the one it last sent from, or took by
 * SLAAC), else over IPv4 (from the gateway), so the guest gets it either way. A forward with a
 * guest address of its own (IPv4, slirp4netns's API) goes there over IPv4.
 */
public final class GuestRoutes {
    private final Family ipv4;
    /** Null without --enable-ipv6. */
    private final Family ipv6;

    public GuestRoutes(Family ipv4, Family ipv6) {
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
    }

    /** The family a new client of forward reaches the guest by; fixedGuest is the forward's own guest address or NONE. */
    Family family(PortForward forward, int fixedGuest) {
        boolean viaIpv6 = forward.ipv6() && fixedGuest == AddressBook.NONE && ipv6 != null
                && ipv6.output().guestAddress() != AddressBook.NONE;
        return viaIpv6 ? ipv6 : ipv4;
    }

    /** The family whose frame a forward's datagrams are read into: the one its clients usually reach the guest by. */
    Family usual(PortForward forward) {
        return forward.ipv6() && ipv6 != null ? ipv6 : ipv4;
    }

    /** The guest address (a handle) a client reaches over family: fixedGuest, or the guest's latest address of that version. */
    static int guest(Family family, int fixedGuest) {
        return fixedGuest != AddressBook.NONE ? fixedGuest : family.output().guestAddress();
    }
}
