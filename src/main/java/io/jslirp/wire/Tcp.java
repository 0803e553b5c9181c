package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * TCP header (RFC 9293).
 * <pre>
 *  0               1               2               3
 * +-------------------------------+-------------------------------+
 * |          source port          |       destination port        |
 * +-------------------------------+-------------------------------+
 * |                        sequence number                        |
 * |                     acknowledgment number                     |
 * +-------+-------+---------------+-------------------------------+
 * | offset|  rsvd |     flags     |            window             |
 * +-------+-------+---------------+-------------------------------+
 * |           checksum            |        urgent pointer         |
 * +-------------------------------+-------------------------------+
 * |                    options (offset > 5) ...                   |
 * </pre>
 */
public final class Tcp {
    public static final int MIN_HEADER_LENGTH = 20;
    public static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10, URG = 0x20;

    private static final int OPT_END = 0, OPT_NOP = 1, OPT_MSS = 2, OPT_WSCALE = 3, OPT_SACK_PERMITTED = 4, OPT_SACK = 5, OPT_TIMESTAMP = 8;
    /** Bytes {@link #appendTimestamps} adds. */
    public static final int TIMESTAMPS_LENGTH = 12;
    /** Most SACK blocks that fit beside timestamps in 40 bytes of options. */
    public static final int MAX_SACK_BLOCKS_WITH_TIMESTAMPS = 3;

    private Tcp() {}

    /** Null when len bytes (the IP payload) hold a complete TCP header, else the reason. */
    public static String check(MemorySegment s, long off, int len) {
        if (len < MIN_HEADER_LENGTH) return "tcp truncated header";
        int h = headerLength(s, off);
        if (h < MIN_HEADER_LENGTH || h > len) return "tcp bad header length";
        return null;
    }

    public static int sourcePort(MemorySegment s, long off) {
        return Bytes.u16(s, off);
    }

    public static int destinationPort(MemorySegment s, long off) {
        return Bytes.u16(s, off + 2);
    }

    public static int seq(MemorySegment s, long off) {
        return Bytes.u32(s, off + 4);
    }

    public static int ack(MemorySegment s, long off) {
        return Bytes.u32(s, off + 8);
    }

    public static int headerLength(MemorySegment s, long off) {
        return (Bytes.u8(s, off + 12) >>> 4) * 4;
    }

    public static int flags(MemorySegment s, long off) {
        return Bytes.u8(s, off + 13) & 0x3f;
    }

    public static int window(MemorySegment s, long off) {
        return Bytes.u16(s, off + 14);
    }

    /**
     * Parses the options of the header at off into opts. Returns false on a malformed option
     * list (an option running past the header, or a length below 2) or a header that does not fit
     * in the segment, which the caller drops.
     */
    public static boolean parseOptions(MemorySegment s, long off, TcpOptions opts) {
        opts.clear();
        if (s.byteSize() - off < MIN_HEADER_LENGTH) return false;
        long end = off + headerLength(s, off);
        if (end > s.byteSize()) return false;
        long p = off + MIN_HEADER_LENGTH;
        while (p < end) {
            int kind = Bytes.u8(s, p);
            if (kind == OPT_END) break;
            if (kind == OPT_NOP) {
                p++;
                continue;
            }
            if (p + 1 >= end) return false;
            int len = Bytes.u8(s, p + 1);
            if (len < 2 || p + len > end) return false;
            switch (kind) {
                case OPT_MSS -> { if (len == 4) opts.mss = Bytes.u16(s, p + 2); }
                case OPT_WSCALE -> { if (len == 3) opts.windowScale = Math.min(14, Bytes.u8(s, p + 2)); }
                case OPT_SACK_PERMITTED -> opts.sackPermitted = len == 2;
                case OPT_SACK -> {
                    if ((len - 2) % 8 == 0) {
                        opts.sackBlocks = Math.min((len - 2) / 8, opts.sackEdges.length / 2);
                        for (int i = 0; i < 2 * opts.sackBlocks; i++) opts.sackEdges[i] = Bytes.u32(s, p + 2 + 4L * i);
                    }
                }
                case OPT_TIMESTAMP -> {
                    if (len == 10) {
                        opts.hasTimestamp = true;
                        opts.tsVal = Bytes.u32(s, p + 2);
                        opts.tsEcr = Bytes.u32(s, p + 6);
                    }
                }
                default -> { }
            }
            p += len;
        }
        return true;
    }

    /**
     * Writes a header of headerLength bytes (20 + options already written by {@link #writeSynOptions}).
     * The checksum is filled by {@link #fillChecksum4} once the payload is in place.
     */
    public static void write(MemorySegment s, long off, int sourcePort, int destinationPort, int seq, int ack,
                             int flags, int window, int headerLength) {
        Bytes.u16(s, off, sourcePort);
        Bytes.u16(s, off + 2, destinationPort);
        Bytes.u32(s, off + 4, seq);
        Bytes.u32(s, off + 8, ack);
        Bytes.u8(s, off + 12, (headerLength / 4) << 4);
        Bytes.u8(s, off + 13, flags);
        Bytes.u16(s, off + 14, window);
        Bytes.u16(s, off + 16, 0);
        Bytes.u16(s, off + 18, 0);
    }

    /** Writes MSS and (when windowScale >= 0) window-scale options after the fixed header; returns the header length. */
    public static int writeSynOptions(MemorySegment s, long off, int mss, int windowScale) {
        long p = off + MIN_HEADER_LENGTH;
        Bytes.u8(s, p, OPT_MSS);
        Bytes.u8(s, p + 1, 4);
        Bytes.u16(s, p + 2, mss);
        if (windowScale < 0) return MIN_HEADER_LENGTH + 4;
        Bytes.u8(s, p + 4, OPT_NOP);
        Bytes.u8(s, p + 5, OPT_WSCALE);
        Bytes.u8(s, p + 6, 3);
        Bytes.u8(s, p + 7, windowScale);
        return MIN_HEADER_LENGTH + 8;
    }

    /** Appends NOP, NOP, SACK-permitted (RFC 2018) to a SYN header of length bytes at off; returns the new length. */
    public static int appendSackPermitted(MemorySegment s, long off, int length) {
        long p = off + length;
        Bytes.u8(s, p, OPT_NOP);
        Bytes.u8(s, p + 1, OPT_NOP);
        Bytes.u8(s, p + 2, OPT_SACK_PERMITTED);
        Bytes.u8(s, p + 3, 2);
        return length + 4;
    }

    /** Appends NOP, NOP, timestamps (RFC 7323) to a header of length bytes at off; returns the new length. */
    public static int appendTimestamps(MemorySegment s, long off, int length, int tsVal, int tsEcr) {
        long p = off + length;
        Bytes.u8(s, p, OPT_NOP);
        Bytes.u8(s, p + 1, OPT_NOP);
        Bytes.u8(s, p + 2, OPT_TIMESTAMP);
        Bytes.u8(s, p + 3, 10);
        Bytes.u32(s, p + 4, tsVal);
        Bytes.u32(s, p + 8, tsEcr);
        return length + TIMESTAMPS_LENGTH;
    }

    /**
     * Appends NOP, NOP, SACK (RFC 2018) with blocks [edges[2i], edges[2i+1]) to a header of length
     * bytes at off; returns the new length.
     */
    public static int appendSack(MemorySegment s, long off, int length, int[] edges, int blocks) {
        long p = off + length;
        Bytes.u8(s, p, OPT_NOP);
        Bytes.u8(s, p + 1, OPT_NOP);
        Bytes.u8(s, p + 2, OPT_SACK);
        Bytes.u8(s, p + 3, 2 + 8 * blocks);
        for (int i = 0; i < blocks; i++) {
            Bytes.u32(s, p + 4 + 8L * i, edges[2 * i]);
            Bytes.u32(s, p + 8 + 8L * i, edges[2 * i + 1]);
        }
        return length + 4 + 8 * blocks;
    }

    /**
     * Puts only the IPv4 pseudo-header sum in the checksum field (not complemented), as the kernel
     * does for a segment whose checksum a device completes (CHECKSUM_PARTIAL).
     */
    public static void fillPseudoHeaderChecksum4(MemorySegment s, long off, int segmentLength, int srcIp, int dstIp) {
        Bytes.u16(s, off + 16, Checksum.pseudoHeader4(srcIp, dstIp, Ipv4.PROTO_TCP, segmentLength));
    }

    /** Fills the checksum of a segment of segmentLength bytes (header and payload) for IPv4. */
    public static void fillChecksum4(MemorySegment s, long off, int segmentLength, int srcIp, int dstIp) {
        Bytes.u16(s, off + 16, 0);
        int sum = Checksum.sum(s, off, segmentLength, Checksum.pseudoHeader4(srcIp, dstIp, Ipv4.PROTO_TCP, segmentLength));
        Bytes.u16(s, off + 16, Checksum.finish(sum));
    }

    /** Stores only the IPv6 pseudo-header sum, for a receiver that completes the checksum (offload). */
    public static void fillPseudoHeaderChecksum6(MemorySegment s, long off, int segmentLength,
                                                 long srcHi, long srcLo, long dstHi, long dstLo) {
        Bytes.u16(s, off + 16, Checksum.pseudoHeader6(srcHi, srcLo, dstHi, dstLo, Ipv6.PROTO_TCP, segmentLength));
    }

    /** Fills the checksum of a segment of segmentLength bytes (header and payload) for IPv6. */
    public static void fillChecksum6(MemorySegment s, long off, int segmentLength, long srcHi, long srcLo, long dstHi, long dstLo) {
        Bytes.u16(s, off + 16, 0);
        int sum = Checksum.sum(s, off, segmentLength, Checksum.pseudoHeader6(srcHi, srcLo, dstHi, dstLo, Ipv6.PROTO_TCP, segmentLength));
        Bytes.u16(s, off + 16, Checksum.finish(sum));
    }
}
