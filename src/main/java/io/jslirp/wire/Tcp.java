package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * TCP header (RFC 9293).
 * <pre>
 *  0               1               2               3
 * +-------------------------------+-------------------------------+
 * |          source port          |       destination port        |  0 SOURCE_PORT, 2 DESTINATION_PORT
 * +-------------------------------+-------------------------------+
 * |                        sequence number                        |  4 SEQ
 * |                     acknowledgment number                     |  8 ACK
 * +-------+-------+---------------+-------------------------------+
 * | offset|  rsvd |     flags     |            window             |  12 DATA_OFFSET, 13 FLAGS, 14 WINDOW
 * +-------+-------+---------------+-------------------------------+
 * |           checksum            |        urgent pointer         |  16 CHECKSUM_OFFSET, 18 URGENT
 * +-------------------------------+-------------------------------+
 * |                    options (offset > 5) ...                   |  20
 * </pre>
 * {@link #check} first (lengths, options and, given the pseudo-header, the checksum); the
 * accessors then read inside the header.
 */
public final class Tcp {
    public static final int MIN_HEADER_LENGTH = 20;
    public static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10, URG = 0x20;
    /** Where the checksum is in the header: what a device completing it (a tap's vnet header's csum_offset) needs. */
    public static final int CHECKSUM_OFFSET = 16;
    private static final int SOURCE_PORT = 0, DESTINATION_PORT = 2, SEQ = 4, ACK_NUMBER = 8, DATA_OFFSET = 12, FLAGS = 13,
            WINDOW = 14, URGENT = 18;

    private static final int OPT_END = 0, OPT_NOP = 1, OPT_MSS = 2, OPT_WSCALE = 3, OPT_SACK_PERMITTED = 4, OPT_SACK = 5, OPT_TIMESTAMP = 8;
    /** NOP, NOP, then the timestamps option's kind and length: the first word of the options as {@link #appendTimestamps} writes them. */
    private static final int ALIGNED_TIMESTAMPS = (OPT_NOP << 24) | (OPT_NOP << 16) | (OPT_TIMESTAMP << 8) | 10;
    /** Bytes {@link #appendTimestamps} adds. */
    public static final int TIMESTAMPS_LENGTH = 12;
    /** Most SACK blocks that fit beside timestamps in 40 bytes of options. */
    public static final int MAX_SACK_BLOCKS_WITH_TIMESTAMPS = 3;

    private Tcp() {}

    /**
     * Null when len bytes (the IP payload) hold a complete TCP header whose option list is well
     * formed (each option inside the header, none of length below 2), else the reason. For a
     * segment whose checksum is not at hand (one built here, one quoted); what the guest sends
     * goes through {@link #read}.
     */
    public static Drop check(MemorySegment s, long off, int len) {
        return check(s, off, len, null);
    }

    /** As {@link #check(MemorySegment, long, int)}, parsing the options into opts on the way unless it is null. */
    private static Drop check(MemorySegment s, long off, int len, TcpOptions opts) {
        if (len < MIN_HEADER_LENGTH) return Drop.TRUNCATED;
        int h = headerLength(s, off);
        if (h < MIN_HEADER_LENGTH || h > len) return Drop.BAD_HEADER_LENGTH;
        if (opts != null) opts.clear();
        if (!options(s, off + MIN_HEADER_LENGTH, off + h, opts)) return Drop.BAD_OPTION;
        return null;
    }

    /**
     * As {@link #check(MemorySegment, long, int)}, and the checksum over the segment and the
     * pseudo-header of the IP header h (of version v); the options are parsed into opts in the
     * same walk. A segment whose checksum the link vouched for ({@code link.Link#checksumTrusted})
     * is checked without it.
     */
    public static Drop check(MemorySegment s, long off, int len, IpVersion v, IpHeader h, TcpOptions opts) {
        Drop error = check(s, off, len, opts);
        if (error != null) return error;
        if (!Checksum.verify(s, off, len, v.pseudoHeader(h, Ipv4.PROTO_TCP, len))) return Drop.BAD_CHECKSUM;
        return null;
    }

    /**
     * As {@link #check(MemorySegment, long, int, IpVersion, IpHeader, TcpOptions)} (lengths, options,
     * the checksum), reading the segment into seg when it is taken: its fields, options and
     * payload's place (the addresses are the caller's part). On a drop seg is not to be used.
     */
    public static Drop read(MemorySegment s, long off, int len, IpVersion v, IpHeader h, TcpSegment seg) {
        Drop error = check(s, off, len, v, h, seg.options());
        if (error == null) seg.fill(s, off, len);
        return error;
    }

    /**
     * Reads the segment of len bytes at off into seg as {@link #read(MemorySegment, long, int, IpVersion, IpHeader, TcpSegment)}
     * does, without a checksum to verify (one the link vouched for, or one built here).
     */
    public static Drop read(MemorySegment s, long off, int len, TcpSegment seg) {
        Drop error = check(s, off, len, seg.options());
        if (error == null) seg.fill(s, off, len);
        return error;
    }

    /**
     * The fixed header's fields at off into h, in two reads (see Bytes): ports and sequence number;
     * acknowledgment number, data offset, flags and window.
     */
    static void fill(MemorySegment s, long off, TcpHeader h) {
        long first = Bytes.u64(s, off + SOURCE_PORT), second = Bytes.u64(s, off + ACK_NUMBER);
        int ports = (int) (first >>> 32), rest = (int) second;
        h.ports(ports >>> 16, ports & 0xffff).seq((int) first).ack((int) (second >>> 32))
                .flags((rest >>> 16) & 0x3f).window(rest & 0xffff).length((rest >>> 28) * 4);
    }

    public static int sourcePort(MemorySegment s, long off) {
        return Bytes.u16(s, off + SOURCE_PORT);
    }

    public static int destinationPort(MemorySegment s, long off) {
        return Bytes.u16(s, off + DESTINATION_PORT);
    }

    public static int seq(MemorySegment s, long off) {
        return Bytes.u32(s, off + SEQ);
    }

    public static int ack(MemorySegment s, long off) {
        return Bytes.u32(s, off + ACK_NUMBER);
    }

    public static int headerLength(MemorySegment s, long off) {
        return (Bytes.u8(s, off + DATA_OFFSET) >>> 4) * 4;
    }

    public static int flags(MemorySegment s, long off) {
        return Bytes.u8(s, off + FLAGS) & 0x3f;
    }

    public static int window(MemorySegment s, long off) {
        return Bytes.u16(s, off + WINDOW);
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
        return options(s, off + MIN_HEADER_LENGTH, end, opts);
    }

    /**
     * Walks the options from p to end; parses them into opts unless null. False when the list is
     * malformed. The options of nearly every segment of an established connection, NOP, NOP and
     * timestamps (what Linux and we send), are taken in two reads (as Linux's own fast path does).
     */
    private static boolean options(MemorySegment s, long p, long end, TcpOptions opts) {
        if (end - p == TIMESTAMPS_LENGTH && Bytes.u32(s, p) == ALIGNED_TIMESTAMPS) {
            if (opts != null) {
                long ts = Bytes.u64(s, p + 4);
                opts.hasTimestamp = true;
                opts.tsVal = (int) (ts >>> 32);
                opts.tsEcr = (int) ts;
            }
            return true;
        }
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
            if (opts != null) option(s, p, kind, len, opts);
            p += len;
        }
        return true;
    }

    private static void option(MemorySegment s, long p, int kind, int len, TcpOptions opts) {
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
    }

    /**
     * Writes the header h describes at off (its options, which {@link TcpHeader#length} counts,
     * already written by {@link #writeSynOptions} and the appends). The checksum is filled by
     * {@link #fillChecksum} once the payload is in place.
     */
    public static void write(MemorySegment s, long off, TcpHeader h) {
        // three writes rather than nine (see Bytes): ports and sequence number; acknowledgment number,
        // data offset, flags and window; checksum and urgent pointer
        Bytes.u64(s, off + SOURCE_PORT, Bytes.pack((h.sourcePort() << 16) | (h.destinationPort() & 0xffff), h.seq()));
        Bytes.u64(s, off + ACK_NUMBER, Bytes.pack(h.ack(), ((h.length() / 4) << 28) | ((h.flags() & 0xff) << 16) | (h.window() & 0xffff)));
        Bytes.u32(s, off + CHECKSUM_OFFSET, 0);
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
        Bytes.u32(s, p, ALIGNED_TIMESTAMPS);
        Bytes.u64(s, p + 4, Bytes.pack(tsVal, tsEcr));
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
     * Puts only the pseudo-header sum in the checksum field (not complemented), as the kernel does
     * for a segment whose checksum a device completes (CHECKSUM_PARTIAL).
     */
    public static void setPartialChecksum(MemorySegment s, long off, int pseudo) {
        Bytes.u16(s, off + CHECKSUM_OFFSET, pseudo);
    }

    /**
     * The first half of the checksum of a segment whose payload lies elsewhere (where the host's
     * data waits: summed there, not copied for it): clears the checksum field of the
     * headerLength-byte header at off and returns the sum of the header and pseudo (its
     * pseudo-header's sum), which the payload's sum continues ({@link Checksum#sum}); a TCP
     * header's length is a multiple of 4, so the payload's words stay aligned.
     * {@link #setChecksum} then puts the whole.
     */
    public static int headerSum(MemorySegment s, long off, int headerLength, int pseudo) {
        Bytes.u16(s, off + CHECKSUM_OFFSET, 0);
        return Checksum.sum(s, off, headerLength, pseudo);
    }

    /** Puts the checksum of a segment whose sum (from {@link #headerSum}, continued over its payload) is sum. */
    public static void setChecksum(MemorySegment s, long off, int sum) {
        Bytes.u16(s, off + CHECKSUM_OFFSET, Checksum.finish(sum));
    }

    /** Fills the checksum of a segment of segmentLength bytes (header and payload), pseudo being its pseudo-header's sum. */
    public static void fillChecksum(MemorySegment s, long off, int segmentLength, int pseudo) {
        Bytes.u16(s, off + CHECKSUM_OFFSET, 0);
        Bytes.u16(s, off + CHECKSUM_OFFSET, Checksum.finish(Checksum.sum(s, off, segmentLength, pseudo)));
    }
}
