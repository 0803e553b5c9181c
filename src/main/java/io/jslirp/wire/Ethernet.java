package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * Ethernet II header.
 * <pre>
 *  0                   6                   12      14
 * +-------------------+-------------------+-------+
 * | destination MAC   | source MAC        | type  |
 * +-------------------+-------------------+-------+
 * </pre>
 */
public final class Ethernet {
    public static final int HEADER_LENGTH = 14;
    public static final int TYPE_IPV4 = 0x0800;
    public static final int TYPE_ARP = 0x0806;
    public static final int TYPE_IPV6 = 0x86DD;
    public static final long BROADCAST = 0xffff_ffff_ffffL;

    private Ethernet() {}

    public static long destination(MemorySegment s, long off) {
        return Bytes.mac(s, off);
    }

    public static long source(MemorySegment s, long off) {
        return Bytes.mac(s, off + 6);
    }

    public static int type(MemorySegment s, long off) {
        return Bytes.u16(s, off + 12);
    }

    public static void write(MemorySegment s, long off, long destination, long source, int type) {
        Bytes.mac(s, off, destination);
        Bytes.mac(s, off + 6, source);
        Bytes.u16(s, off + 12, type);
    }
}
