package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * UDP header (RFC 768).
 * <pre>
 *  0               2               4               6               8
 * +---------------+---------------+---------------+---------------+
 * |  source port  |   dest port   |    length     |   checksum    |
 * +---------------+---------------+---------------+---------------+
 * </pre>
 */
public final class Udp {
    public static final int HEADER_LENGTH = 8;

    private Udp() {}

    /** Null when len bytes (the IP payload) hold a consistent UDP datagram, else the reason. */
    public static String check(MemorySegment s, long off, int len) {
        if (len < HEADER_LENGTH) return "udp truncated header";
        int l = length(s, off);
        if (l < HEADER_LENGTH || l > len) return "udp bad length";
        return null;
    }

    public static int sourcePort(MemorySegment s, long off) {
        return Bytes.u16(s, off);
    }

    public static int destinationPort(MemorySegment s, long off) {
        return Bytes.u16(s, off + 2);
    }

    public static int length(MemorySegment s, long off) {
        return Bytes.u16(s, off + 4);
    }

    /** Writes the header for a datagram of payloadLength bytes already in place, with its IPv4 checksum. */
    public static void write4(MemorySegment s, long off, int sourcePort, int destinationPort, int payloadLength, int srcIp, int dstIp) {
        int len = HEADER_LENGTH + payloadLength;
        Bytes.u16(s, off, sourcePort);
        Bytes.u16(s, off + 2, destinationPort);
        Bytes.u16(s, off + 4, len);
        Bytes.u16(s, off + 6, 0);
        int sum = Checksum.finish(Checksum.sum(s, off, len, Checksum.pseudoHeader4(srcIp, dstIp, Ipv4.PROTO_UDP, len)));
        Bytes.u16(s, off + 6, sum == 0 ? 0xffff : sum);
    }

    /** Writes the header for a datagram of payloadLength bytes already in place, with its IPv6 checksum. */
    public static void write6(MemorySegment s, long off, int sourcePort, int destinationPort, int payloadLength,
                              long srcHi, long srcLo, long dstHi, long dstLo) {
        int len = HEADER_LENGTH + payloadLength;
        Bytes.u16(s, off, sourcePort);
        Bytes.u16(s, off + 2, destinationPort);
        Bytes.u16(s, off + 4, len);
        Bytes.u16(s, off + 6, 0);
        int pseudo = Checksum.pseudoHeader6(srcHi, srcLo, dstHi, dstLo, Ipv6.PROTO_UDP, len);
        int sum = Checksum.finish(Checksum.sum(s, off, len, pseudo));
        Bytes.u16(s, off + 6, sum == 0 ? 0xffff : sum);
    }
}
