package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * Ethernet II header.
 * <pre>
 *  0                   6                   12      14
 * +-------------------+-------------------+-------+
 * | destination MAC   | source MAC        | type  |
 * +-------------------+-------------------+-------+
 *   DESTINATION         SOURCE              TYPE
 * </pre>
 */
public final class Ethernet {
    public static final int HEADER_LENGTH = 14;
    public static final int TYPE_IPV4 = 0x0800;
    public static final int TYPE_ARP = 0x0806;
    public static final int TYPE_IPV6 = 0x86DD;
    public static final long BROADCAST = 0xffff_ffff_ffffL;
    private static final int DESTINATION = 0, SOURCE = 6, TYPE = 12;
    /** IPv6 multicast goes to 33:33 and the address's low 32 bits (RFC 2464 section 7). */
    private static final long IPV6_MULTICAST_PREFIX = 0x3333_0000_0000L;

    private Ethernet() {}

    /** Null when len bytes hold an Ethernet header. */
    public static Drop check(MemorySegment s, long off, int len) {
        return len < HEADER_LENGTH ? Drop.TRUNCATED : null;
    }

    public static long destination(MemorySegment s, long off) {
        return Bytes.mac(s, off + DESTINATION);
    }

    public static long source(MemorySegment s, long off) {
        return Bytes.mac(s, off + SOURCE);
    }

    public static int type(MemorySegment s, long off) {
        return Bytes.u16(s, off + TYPE);
    }

    public static void write(MemorySegment s, long off, long destination, long source, int type) {
        // three writes for the five fields' worth: the destination and the source's first two bytes,
        // the source's last four, the type (see Bytes)
        Bytes.u64(s, off + DESTINATION, (destination << 16) | ((source >>> 32) & 0xffff));
        Bytes.u32(s, off + SOURCE + 2, (int) source);
        Bytes.u16(s, off + TYPE, type);
    }

    /** The MAC an IPv6 multicast address's frames go to (lo: the address's low half). */
    public static long ipv6Multicast(long lo) {
        return IPV6_MULTICAST_PREFIX | (lo & 0xffff_ffffL);
    }
}
