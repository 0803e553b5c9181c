package io.jslirp.stack;

import io.jslirp.wire.Ipv6;

/**
 * The IPv6 side of the virtual network, with slirp4netns's (libslirp's) defaults: prefix
 * fd00::/64, gateway fd00::2 (which maps to the host's ::1 unless host loopback is disabled), DNS
 * fd00::3, and the router's link-local address fe80::2 that Router Advertisements come from.
 * The guest forms its own address from the prefix (SLAAC). In pasta's model (jslirp pasta) the
 * network is the host's: its prefix, its gateway (anywhere, often link-local), a DNS address given
 * apart (unspecified: none) and the guest's own address fixed (guestHi:guestLo; 0:0 for SLAAC),
 * configured in the namespace rather than advertised.
 */
public record Ipv6Network(long prefixHi, long gatewayHi, long gatewayLo, long dnsHi, long dnsLo, long guestHi, long guestLo, int mtu,
                          long gatewayMac, boolean hostLoopback) {
    public static final int PREFIX_LENGTH = 64;
    /** IPv6's minimum link MTU (RFC 8200); the kernel turns IPv6 off on a smaller one. */
    public static final int MIN_MTU = 1280;
    public static final long LINK_LOCAL_HI = 0xfe80_0000_0000_0000L;
    /** The router's link-local address: fe80::2. */
    public static final long ROUTER_LINK_LOCAL_LO = 2;

    public Ipv6Network {
        if (mtu < MIN_MTU) throw new IllegalArgumentException("IPv6 needs an MTU of at least " + MIN_MTU + ", not " + mtu);
    }

    /** fd00::/64 for a network of this MTU and gateway MAC. */
    public static Ipv6Network defaults(NetworkConfig v4) {
        long prefix = Ipv6.parse("fd00::")[0];
        return new Ipv6Network(prefix, prefix, 2, prefix, 3, 0, 0, v4.mtu(), v4.gatewayMac(), v4.hostLoopback());
    }

    /** Whether the guest's address is fixed (configured in its namespace), not formed by SLAAC from advertisements. */
    public boolean fixedGuest() {
        return (guestHi | guestLo) != 0;
    }

    public boolean inPrefix(long hi) {
        return hi == prefixHi;
    }

    public boolean isGateway(long hi, long lo) {
        return hi == gatewayHi && lo == gatewayLo;
    }

    public boolean isDns(long hi, long lo) {
        return (dnsHi | dnsLo) != 0 && hi == dnsHi && lo == dnsLo;
    }

    public boolean isRouterLinkLocal(long hi, long lo) {
        return hi == LINK_LOCAL_HI && lo == ROUTER_LINK_LOCAL_LO;
    }

    /** The addresses the stack itself answers Neighbor Solicitations and echo requests for. */
    public boolean answersFor(long hi, long lo) {
        return isGateway(hi, lo) || isDns(hi, lo) || isRouterLinkLocal(hi, lo);
    }
}
