package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * Neighbor Discovery (RFC 4861) messages over ICMPv6 ({@link Icmp}'s header first), and the
 * options a router sends: source and target link-layer address, prefix information, MTU, and
 * recursive DNS server (RFC 8106). Checksums are left to {@link Icmp#fillChecksum}.
 * <pre>
 * Neighbor Solicitation / Advertisement (135 / 136):
 * +---------------+---------------+-------------------------------+
 * |     type      |     code      |           checksum            |  0
 * +-+-+-+---------+---------------+-------------------------------+
 * |R|S|O|                     reserved                            |  4 NA_FLAGS (advertisement)
 * +-+-+-+---------------------------------------------------------+
 * |                    target address (16 bytes)                  |  8 TARGET
 * +---------------------------------------------------------------+
 * |  options ...                                                  |  24
 *
 * Router Solicitation (133): type, code, checksum, 4 reserved bytes, options from 8.
 *
 * Router Advertisement (134):
 * +---------------+---------------+-------------------------------+
 * |     type      |     code      |           checksum            |  0
 * +---------------+-+-+-----------+-------------------------------+
 * | cur hop limit |M|O| reserved  |        router lifetime        |  4 RA_HOP_LIMIT, 5 RA_FLAGS, 6 RA_LIFETIME
 * +---------------+-+-+-----------+-------------------------------+
 * |                        reachable time                         |  8
 * |                        retrans timer                          |  12
 * +---------------------------------------------------------------+
 * |  options ...                                                  |  16
 *
 * An option: type, length (in 8-byte units, never 0), data.
 * </pre>
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
    /** A Neighbor Solicitation with its source link-layer address option. */
    public static final int NEIGHBOR_SOLICITATION_LENGTH = NEIGHBOR_LENGTH + 8;
    public static final int ROUTER_SOLICITATION_LENGTH = 8;
    private static final int RA_HEADER_LENGTH = 16;
    /** A Router Advertisement as {@link #write(MemorySegment, long, Advertisement)} builds it: header, SLLA, MTU, prefix, RDNSS. */
    public static final int ROUTER_ADVERTISEMENT_LENGTH = RA_HEADER_LENGTH + 8 + 8 + 32 + 24;
    public static final int NA_ROUTER = 0x80, NA_SOLICITED = 0x40, NA_OVERRIDE = 0x20;
    public static final int RA_MANAGED = 0x80, RA_OTHER = 0x40;
    /** Neighbor Discovery messages are sent, and accepted only, with hop limit 255 (RFC 4861). */
    public static final int HOP_LIMIT = 255;

    private static final int NA_FLAGS = 4, TARGET = 8, RA_HOP_LIMIT = 4, RA_FLAGS = 5, RA_LIFETIME = 6, RA_REACHABLE = 8,
            RA_RETRANSMIT = 12;
    private static final int OPT_TYPE = 0, OPT_LENGTH = 1, LINK_ADDRESS = 2;
    /** Prefix information option: length, flags, lifetimes, prefix. */
    private static final int PREFIX_LENGTH = 2, PREFIX_FLAGS = 3, PREFIX_VALID = 4, PREFIX_PREFERRED = 8, PREFIX = 16;
    private static final int PREFIX_ON_LINK = 0x80, PREFIX_AUTONOMOUS = 0x40;
    /** MTU option: the MTU; RDNSS option: lifetime, first server. */
    private static final int MTU = 4, RDNSS_LIFETIME = 4, RDNSS_SERVER = 8;

    private Ndp() {}

    /**
     * Null when the message of len bytes at off is at least minLength bytes and its options (from
     * off + minLength) are well formed, else the reason: RFC 4861 drops a message with an option
     * of length 0 or one running past the end.
     */
    public static Drop check(MemorySegment s, long off, int len, int minLength) {
        if (len < minLength) return Drop.TRUNCATED;
        long end = off + len;
        for (long at = off + minLength; at < end; ) {
            if (at + 2 > end) return Drop.BAD_OPTION;
            int optLen = Bytes.u8(s, at + OPT_LENGTH) * 8;
            if (optLen == 0 || at + optLen > end) return Drop.BAD_OPTION;
            at += optLen;
        }
        return null;
    }

    /**
     * Offset of the first option of the given type among the options from off to off + len
     * ({@link #check}ed), -1 when there is none.
     */
    public static long findOption(MemorySegment s, long off, int len, int type) {
        long end = off + len;
        for (long at = off; at + 2 <= end; ) {
            int optLen = Bytes.u8(s, at + OPT_LENGTH) * 8;
            if (optLen == 0) return -1;
            if (Bytes.u8(s, at + OPT_TYPE) == type) return at;
            at += optLen;
        }
        return -1;
    }

    /** The target address of a Neighbor Solicitation or Advertisement: high half. */
    public static long targetHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + TARGET);
    }

    public static long targetLo(MemorySegment s, long off) {
        return Ipv6.lo(s, off + TARGET);
    }

    /** A Neighbor Advertisement's flags (R, S, O: {@link #NA_ROUTER}...). */
    public static int neighborFlags(MemorySegment s, long off) {
        return Bytes.u8(s, off + NA_FLAGS);
    }

    /** The link-layer address in a source or target link-layer address option at off. */
    public static long linkAddress(MemorySegment s, long off) {
        return Bytes.mac(s, off + LINK_ADDRESS);
    }

    /** Writes a Neighbor Advertisement for target, with our MAC as the target link-layer address option. */
    public static void writeNeighborAdvertisement(MemorySegment s, long off, int flags, long targetHi, long targetLo, long mac) {
        Icmp.write(s, off, NEIGHBOR_ADVERTISEMENT, 0, flags << 24);
        Ipv6.address(s, off + TARGET, targetHi, targetLo);
        linkOption(s, off + NEIGHBOR_LENGTH, OPT_TARGET_LINK_ADDRESS, mac);
    }

    /** Writes a Neighbor Solicitation for target with our MAC as the source link-layer address option. */
    public static void writeNeighborSolicitation(MemorySegment s, long off, long targetHi, long targetLo, long mac) {
        Icmp.write(s, off, NEIGHBOR_SOLICITATION, 0, 0);
        Ipv6.address(s, off + TARGET, targetHi, targetLo);
        linkOption(s, off + NEIGHBOR_LENGTH, OPT_SOURCE_LINK_ADDRESS, mac);
    }

    /** What a Router Advertisement says, set fluently and reused. */
    public static final class Advertisement {
        int hopLimit, flags, routerLifetime, mtu, prefixLength, validLifetime, preferredLifetime, dnsLifetime;
        long mac, prefixHi, dnsHi, dnsLo;

        /** The hop limit the guest is to use, the M and O flags, how long (seconds) we are its default router. */
        public Advertisement router(int hopLimit, int flags, int lifetime) {
            this.hopLimit = hopLimit;
            this.flags = flags;
            this.routerLifetime = lifetime;
            return this;
        }

        /** Our MAC (the source link-layer address option) and the link's MTU. */
        public Advertisement link(long mac, int mtu) {
            this.mac = mac;
            this.mtu = mtu;
            return this;
        }

        /** The on-link prefix the guest forms its addresses from (SLAAC), and its lifetimes (seconds). */
        public Advertisement prefix(long hi, int length, int valid, int preferred) {
            this.prefixHi = hi;
            this.prefixLength = length;
            this.validLifetime = valid;
            this.preferredLifetime = preferred;
            return this;
        }

        /** A recursive DNS server, valid for lifetime seconds. */
        public Advertisement dns(long hi, long lo, int lifetime) {
            this.dnsHi = hi;
            this.dnsLo = lo;
            this.dnsLifetime = lifetime;
            return this;
        }
    }

    /** Writes the Router Advertisement ra describes ({@link #ROUTER_ADVERTISEMENT_LENGTH} bytes). */
    public static void write(MemorySegment s, long off, Advertisement ra) {
        Icmp.write(s, off, ROUTER_ADVERTISEMENT, 0, 0);
        Bytes.u8(s, off + RA_HOP_LIMIT, ra.hopLimit);
        Bytes.u8(s, off + RA_FLAGS, ra.flags);
        Bytes.u16(s, off + RA_LIFETIME, ra.routerLifetime);
        Bytes.u32(s, off + RA_REACHABLE, 0);   // unspecified
        Bytes.u32(s, off + RA_RETRANSMIT, 0);  // unspecified
        long o = off + RA_HEADER_LENGTH;
        linkOption(s, o, OPT_SOURCE_LINK_ADDRESS, ra.mac);
        o += 8;
        optionHeader(s, o, OPT_MTU, 1);
        Bytes.u16(s, o + 2, 0);
        Bytes.u32(s, o + MTU, ra.mtu);
        o += 8;
        optionHeader(s, o, OPT_PREFIX_INFORMATION, 4);
        Bytes.u8(s, o + PREFIX_LENGTH, ra.prefixLength);
        Bytes.u8(s, o + PREFIX_FLAGS, PREFIX_ON_LINK | PREFIX_AUTONOMOUS);
        Bytes.u32(s, o + PREFIX_VALID, ra.validLifetime);
        Bytes.u32(s, o + PREFIX_PREFERRED, ra.preferredLifetime);
        Bytes.u32(s, o + 12, 0);
        Ipv6.address(s, o + PREFIX, ra.prefixHi, 0);
        o += 32;
        optionHeader(s, o, OPT_RDNSS, 3);
        Bytes.u16(s, o + 2, 0);
        Bytes.u32(s, o + RDNSS_LIFETIME, ra.dnsLifetime);
        Ipv6.address(s, o + RDNSS_SERVER, ra.dnsHi, ra.dnsLo);
    }

    /** The options of a Router Advertisement of len bytes start at off + this. */
    public static int routerAdvertisementOptions() {
        return RA_HEADER_LENGTH;
    }

    public static int raFlags(MemorySegment s, long off) {
        return Bytes.u8(s, off + RA_FLAGS);
    }

    public static int routerLifetime(MemorySegment s, long off) {
        return Bytes.u16(s, off + RA_LIFETIME);
    }

    /** In a prefix information option at off: the prefix's high half, its length and flags. */
    public static long prefixHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + PREFIX);
    }

    public static int prefixLength(MemorySegment s, long off) {
        return Bytes.u8(s, off + PREFIX_LENGTH);
    }

    public static boolean prefixAutonomous(MemorySegment s, long off) {
        return (Bytes.u8(s, off + PREFIX_FLAGS) & PREFIX_AUTONOMOUS) != 0;
    }

    /** In an MTU option at off: the MTU. */
    public static int mtu(MemorySegment s, long off) {
        return Bytes.u32(s, off + MTU);
    }

    /** In an RDNSS option at off: the lifetime and the first server. */
    public static int rdnssLifetime(MemorySegment s, long off) {
        return Bytes.u32(s, off + RDNSS_LIFETIME);
    }

    public static long rdnssHi(MemorySegment s, long off) {
        return Ipv6.hi(s, off + RDNSS_SERVER);
    }

    public static long rdnssLo(MemorySegment s, long off) {
        return Ipv6.lo(s, off + RDNSS_SERVER);
    }

    private static void optionHeader(MemorySegment s, long off, int type, int units) {
        Bytes.u8(s, off + OPT_TYPE, type);
        Bytes.u8(s, off + OPT_LENGTH, units);
    }

    private static void linkOption(MemorySegment s, long off, int type, long mac) {
        optionHeader(s, off, type, 1);
        Bytes.mac(s, off + LINK_ADDRESS, mac);
    }
}
