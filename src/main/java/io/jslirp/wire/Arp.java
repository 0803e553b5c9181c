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
 *   0 HTYPE 2 PTYPE 4 HLEN 5 PLEN 6 OPERATION 8 SENDER_MAC 14 SENDER_IP 18 TARGET_MAC 24 TARGET_IP
 * </pre>
 */
public final class Arp {
    public static final int LENGTH = 28;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    private static final int HTYPE = 0, PTYPE = 2, HLEN = 4, PLEN = 5, OPERATION = 6, SENDER_MAC = 8, SENDER_IP = 14,
            TARGET_MAC = 18, TARGET_IP = 24;
    private static final int HTYPE_ETHERNET = 1;

    private Arp() {}

    /** Null when len bytes hold an Ethernet/IPv4 ARP packet ({@link #LENGTH} bytes or more), else the reason. */
    public static Drop check(MemorySegment s, long off, int len) {
        if (len < LENGTH) return Drop.TRUNCATED;
        if (Bytes.u16(s, off + HTYPE) != HTYPE_ETHERNET || Bytes.u16(s, off + PTYPE) != Ethernet.TYPE_IPV4
                || Bytes.u8(s, off + HLEN) != 6 || Bytes.u8(s, off + PLEN) != 4) return Drop.BAD_FIELD;
        return null;
    }

    public static int operation(MemorySegment s, long off) {
        return Bytes.u16(s, off + OPERATION);
    }

    public static long senderMac(MemorySegment s, long off) {
        return Bytes.mac(s, off + SENDER_MAC);
    }

    public static int senderIp(MemorySegment s, long off) {
        return Bytes.u32(s, off + SENDER_IP);
    }

    public static long targetMac(MemorySegment s, long off) {
        return Bytes.mac(s, off + TARGET_MAC);
    }

    public static int targetIp(MemorySegment s, long off) {
        return Bytes.u32(s, off + TARGET_IP);
    }

    /** Writes a message of operation from senderMac, senderIp; {@link #writeTarget} completes it. */
    public static void write(MemorySegment s, long off, int operation, long senderMac, int senderIp) {
        Bytes.u16(s, off + HTYPE, HTYPE_ETHERNET);
        Bytes.u16(s, off + PTYPE, Ethernet.TYPE_IPV4);
        Bytes.u8(s, off + HLEN, 6);
        Bytes.u8(s, off + PLEN, 4);
        Bytes.u16(s, off + OPERATION, operation);
        Bytes.mac(s, off + SENDER_MAC, senderMac);
        Bytes.u32(s, off + SENDER_IP, senderIp);
    }

    /** Writes the target of a message {@link #write} began (a request's target MAC is 0, unknown). */
    public static void writeTarget(MemorySegment s, long off, long targetMac, int targetIp) {
        Bytes.mac(s, off + TARGET_MAC, targetMac);
        Bytes.u32(s, off + TARGET_IP, targetIp);
    }
}
