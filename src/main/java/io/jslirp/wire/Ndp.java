package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * Neighbor Discovery (RFC 4861) messages over ICMPv6, and the options a router sends: source and
 * target link-layer address, prefix information, MTU, and recursive DNS server (RFC 8106).
 * Checksums are left to {@link Icmpv6#fillChecksum}.
 */
public final class Ndp {
    public static final int ROUTER_SOLICITATION = 133, ROUTER_ADVERTISEMENT = 134;
    public static final int NEIGHBOR_SOLICITATION = 135, NEIGHBOR_ADVERTISEMENT = 136;
    public static final int OPT_SOURCE_LINK_ADDRESS = 1, OPT_TARGET_LINK_ADDRESS = 2, OPT_PREFIX_INFORMATION = 3,
            OPT_MTU = 5, OPT_RDNSS = 25;
    /** Neighbor Solicitation and Advertisement: header, reserved/flags, target address. */
    public static final int NEIGHBOR_LENGTH = 24;
    /** A Neighbor Advertisement with its target link-layer address option. */
    public static final int NEIGHBOR_ADVERTISEMENT_LENGTH = NEIGHBOR_LENGTH + 8;
    public static final int ROUTER_SOLICITATION_LENGTH = 8;
    private static final int RA_HEADER_LENGTH = 16;
    /** A Router Advertisement as {@link #writeRouterAdvertisement} builds it: header, SLLA, MTU, prefix, RDNSS. */
    public static final int ROUTER_ADVERTISEMENT_LENGTH = RA_HEADER_LENGTH + 8 + 8 + 32 + 24;
    public static final int NA_ROUTER = 0x80, NA_SOLICITED = 0x40, NA_OVERRIDE = 0x20;
    public static final int RA_MANAGED = 0x80, RA_OTHER = 0x40;
    private static final int PREFIX_ON_LINK = 0x80, PREFIX_AUTONOMOUS = 0x40;

    private Ndp() {}

    /** The target address of a Neighbor Solicitation or Advertisement: high half. */
    public static long targetHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + 8);
    }

    public static long targetLo(MemorySegment s, long off) {
        return Ipv6.lo(s, off + 8);
    }

    /**
     * Offset of the first option of the given type among the options from off to off + len, -1
     * when there is none, -2 when the options are malformed (an option of length 0 or running
     * past the end, which RFC 4861 says to drop the message for).
     */
    public static long findOption(MemorySegment s, long off, int len, int type) {
        long end = off + len;
        long found = -1;
        for (long at = off; at < end; ) {
            if (at + 2 > end) return -2;
            int optLen = Bytes.u8(s, at + 1) * 8;
            if (optLen == 0 || at + optLen > end) return -2;
            if (found < 0 && Bytes.u8(s, at) == type) found = at;
            at += optLen;
        }
        return found;
    }

    /** The link-layer address in a source or target link-layer address option at off. */
    public static long linkAddress(MemorySegment s, long off) {
        return Bytes.mac(s, off + 2);
    }

    /** Writes a Neighbor Advertisement for target, with our MAC as the target link-layer address option. */
    public static void writeNeighborAdvertisement(MemorySegment s, long off, int flags, long targetHi, long targetLo, long mac) {
        Bytes.u8(s, off, NEIGHBOR_ADVERTISEMENT);
        Bytes.u8(s, off + 1, 0);
        Bytes.u16(s, off + 2, 0);
        Bytes.u32(s, off + 4, flags << 24);
        Ipv6.address(s, off + 8, targetHi, targetLo);
        linkOption(s, off + NEIGHBOR_LENGTH, OPT_TARGET_LINK_ADDRESS, mac);
    }

    /** Writes a Neighbor Solicitation for target with our MAC as the source link-layer address option. */
    public static void writeNeighborSolicitation(MemorySegment s, long off, long targetHi, long targetLo, long mac) {
        Bytes.u8(s, off, NEIGHBOR_SOLICITATION);
        Bytes.u8(s, off + 1, 0);
        Bytes.u16(s, off + 2, 0);
        Bytes.u32(s, off + 4, 0);
        Ipv6.address(s, off + 8, targetHi, targetLo);
        linkOption(s, off + NEIGHBOR_LENGTH, OPT_SOURCE_LINK_ADDRESS, mac);
    }

    /**
     * Writes a Router Advertisement ({@link #ROUTER_ADVERTISEMENT_LENGTH} bytes): flags (M, O),
     * how long we are the default router, our MAC, the link MTU, an on-link prefix of prefixLength
     * bits the guest forms its addresses from (SLAAC), and a DNS server valid for dnsLifetime seconds.
     */
    public static void writeRouterAdvertisement(MemorySegment s, long off, int hopLimit, int flags, int routerLifetime, long mac,
                                                int mtu, long prefixHi, int prefixLength, int validLifetime, int preferredLifetime,
                                                long dnsHi, long dnsLo, int dnsLifetime) {
        Bytes.u8(s, off, ROUTER_ADVERTISEMENT);
        Bytes.u8(s, off + 1, 0);
        Bytes.u16(s, off + 2, 0);
        Bytes.u8(s, off + 4, hopLimit);
        Bytes.u8(s, off + 5, flags);
        Bytes.u16(s, off + 6, routerLifetime);
        Bytes.u32(s, off + 8, 0);   // reachable time: unspecified
        Bytes.u32(s, off + 12, 0);  // retransmission timer: unspecified
        long o = off + RA_HEADER_LENGTH;
        linkOption(s, o, OPT_SOURCE_LINK_ADDRESS, mac);
        o += 8;
        Bytes.u8(s, o, OPT_MTU);
        Bytes.u8(s, o + 1, 1);
        Bytes.u16(s, o + 2, 0);
        Bytes.u32(s, o + 4, mtu);
        o += 8;
        Bytes.u8(s, o, OPT_PREFIX_INFORMATION);
        Bytes.u8(s, o + 1, 4);
        Bytes.u8(s, o + 2, prefixLength);
        Bytes.u8(s, o + 3, PREFIX_ON_LINK | PREFIX_AUTONOMOUS);
        Bytes.u32(s, o + 4, validLifetime);
        Bytes.u32(s, o + 8, preferredLifetime);
        Bytes.u32(s, o + 12, 0);
        Ipv6.address(s, o + 16, prefixHi, 0);
        o += 32;
        Bytes.u8(s, o, OPT_RDNSS);
        Bytes.u8(s, o + 1, 3);
        Bytes.u16(s, o + 2, 0);
        Bytes.u32(s, o + 4, dnsLifetime);
        Ipv6.address(s, o + 8, dnsHi, dnsLo);
    }

    /** The options of a Router Advertisement of len bytes start at off + this. */
    public static int routerAdvertisementOptions() {
        return RA_HEADER_LENGTH;
    }

    public static int raFlags(MemorySegment s, long off) {
        return Bytes.u8(s, off + 5);
    }

    public static int routerLifetime(MemorySegment s, long off) {
        return Bytes.u16(s, off + 6);
    }

    /** In a prefix information option at off: the prefix's high half, its length and flags. */
    public static long prefixHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + 16);
    }

    public static int prefixLength(MemorySegment s, long off) {
        return Bytes.u8(s, off + 2);
    }

    public static boolean prefixAutonomous(MemorySegment s, long off) {
        return (Bytes.u8(s, off + 3) & PREFIX_AUTONOMOUS) != 0;
    }

    /** In an MTU option at off: the MTU. */
    public static int mtu(MemorySegment s, long off) {
        return Bytes.u32(s, off + 4);
    }

    /** In an RDNSS option at off: the lifetime and the first server. */
    public static int rdnssLifetime(MemorySegment s, long off) {
        return Bytes.u32(s, off + 4);
    }

    public static long rdnssHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + 8);
    }

    public static long rdnssLo(MemorySegment s, long off) {
        return Ipv6.lo(s, off + 8);
    }

    private static void linkOption(MemorySegment s, long off, int type, long mac) {
        Bytes.u8(s, off, type);
        Bytes.u8(s, off + 1, 1);
        Bytes.mac(s, off + 2, mac);
    }
}
