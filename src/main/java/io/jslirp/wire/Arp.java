package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * ARP for IPv4 over Ethernet (RFC 826), 28 bytes.
 * <pre>
 *  0       2       4   5   6       8            14        18           24        28
 * +-------+-------+---+---+-------+------------+---------+------------+---------+
 * | htype | ptype |hln|pln| oper  | sender MAC | sender  | target MAC | target  |
 * |   1   | 0800  | 6 | 4 |       |            | IPv4    |            | IPv4    |
 * +-------+-------+---+---+-------+------------+---------+------------+---------+
 * </pre>
 */
public final class Arp {
    public static final int LENGTH = 28;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;

    private Arp() {}

    /** True when the packet is a well-formed Ethernet/IPv4 ARP packet of at least {@link #LENGTH} bytes. */
    public static boolean valid(MemorySegment s, long off, int len) {
        return len >= LENGTH && Bytes.u16(s, off) == 1 && Bytes.u16(s, off + 2) == Ethernet.TYPE_IPV4
                && Bytes.u8(s, off + 4) == 6 && Bytes.u8(s, off + 5) == 4;
    }

    public static int operation(MemorySegment s, long off) {
        return Bytes.u16(s, off + 6);
    }

    public static long senderMac(MemorySegment s, long off) {
        return Bytes.mac(s, off + 8);
    }

    public static int senderIp(MemorySegment s, long off) {
        return Bytes.u32(s, off + 14);
    }

    public static long targetMac(MemorySegment s, long off) {
        return Bytes.mac(s, off + 18);
    }

    public static int targetIp(MemorySegment s, long off) {
        return Bytes.u32(s, off + 24);
    }

    public static void write(MemorySegment s, long off, int operation, long senderMac, int senderIp, long targetMac, int targetIp) {
        Bytes.u16(s, off, 1);
        Bytes.u16(s, off + 2, Ethernet.TYPE_IPV4);
        Bytes.u8(s, off + 4, 6);
        Bytes.u8(s, off + 5, 4);
        Bytes.u16(s, off + 6, operation);
        Bytes.mac(s, off + 8, senderMac);
        Bytes.u32(s, off + 14, senderIp);
        Bytes.mac(s, off + 18, targetMac);
        Bytes.u32(s, off + 24, targetIp);
    }
}
