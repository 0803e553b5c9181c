package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * IPv6 header (RFC 8200), with the extension headers a destination walks. Addresses are two
 * longs, the high and the low 64 bits in network order ({@code fd00::2} is hi
 * {@code 0xfd00_0000_0000_0000L}, lo {@code 2}).
 * <pre>
 *  0       4              12              16      20      24      32
 * +-------+---------------+-----------------------------------------+
 * |version| traffic class |               flow label                |  0 VERSION
 * +-------+---------------+-------+---------------+-----------------+
 * |        payload length         |  next header  |    hop limit    |  4 PAYLOAD_LENGTH, 6 NEXT_HEADER, 7 HOP_LIMIT
 * +-------------------------------+---------------+-----------------+
 * |                   source address (16 bytes)                     |  8 SOURCE
 * |                 destination address (16 bytes)                  |  24 DESTINATION
 * +-----------------------------------------------------------------+  40
 *
 * Hop-by-Hop and Destination Options (next header 0, 60):
 * +---------------+---------------+---------------------------------+
 * |  next header  |  hdr ext len  |  options (TLV: type, length, data; Pad1 is one 0 byte)
 * +---------------+---------------+------ ... (8 + 8 * hdr ext len bytes in all)
 *
 * Routing (43):
 * +---------------+---------------+---------------+-----------------+
 * |  next header  |  hdr ext len  | routing type  |  segments left  |  then type-specific data
 * +---------------+---------------+---------------+-----------------+
 *
 * Fragment (44), 8 bytes:
 * +---------------+---------------+-------------------------+---+-+
 * |  next header  |   reserved    |     fragment offset     |res|M|
 * +---------------+---------------+-------------------------+---+-+
 * |                         identification                          |
 * +-----------------------------------------------------------------+
 * </pre>
 * {@link #read} checks the fixed header and walks the extension headers, as a destination
 * processes them (RFC 8200 section 4), to the first header it does not know: the upper layer's.
 */
public final class Ipv6 {
    public static final int HEADER_LENGTH = 40;
    public static final int PROTO_TCP = 6, PROTO_UDP = 17, PROTO_ICMPV6 = 58;
    public static final int HOP_BY_HOP = 0, ROUTING = 43, FRAGMENT = 44, NO_NEXT_HEADER = 59, DESTINATION_OPTIONS = 60;
    /** The length of a Fragment header. */
    public static final int FRAGMENT_HEADER_LENGTH = 8;
    /** Parameter Problem codes (RFC 4443 section 3.4). */
    public static final int PROBLEM_FIELD = 0, PROBLEM_NEXT_HEADER = 1, PROBLEM_OPTION = 2;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** ff02::1, all nodes on the link. */
    public static final long ALL_NODES_HI = 0xff02_0000_0000_0000L, ALL_NODES_LO = 1;

    private static final int VERSION = 0, PAYLOAD_LENGTH = 4, NEXT_HEADER = 6, HOP_LIMIT = 7, SOURCE = 8, DESTINATION = 24;
    /** In every extension header. */
    private static final int EXT_NEXT_HEADER = 0, EXT_LENGTH = 1;
    /** In a Routing header. */
    private static final int ROUTING_TYPE = 2, SEGMENTS_LEFT = 3;
    /** In a Fragment header. */
    private static final int FRAGMENT_OFFSET = 2, FRAGMENT_ID = 4, FRAGMENT_MORE = 1, FRAGMENT_OFFSET_MASK = 0xfff8;
    /** Options: Pad1, PadN; an unknown option's type says in its top two bits what to do (RFC 8200 section 4.2). */
    private static final int OPT_PAD1 = 0, OPT_PADN = 1;
    private static final int SKIP = 0, DISCARD = 1, DISCARD_AND_TELL = 2, DISCARD_AND_TELL_UNICAST = 3;

    private Ipv6() {}

    /** Null when len bytes hold an IPv6 header and the payload it announces, else the reason. */
    public static Drop check(MemorySegment s, long off, int len) {
        if (len < HEADER_LENGTH) return Drop.TRUNCATED;
        if ((Bytes.u8(s, off + VERSION) >>> 4) != 6) return Drop.BAD_VERSION;
        if (HEADER_LENGTH + payloadLength(s, off) > len) return Drop.TRUNCATED;
        return null;
    }

    /**
     * {@link #check}s the packet at off, describes it in h and walks its extension headers: returns
     * null when it reached an upper-layer header ({@link IpHeader#protocol()} at
     * {@link IpHeader#headerLength()}) or a fragment (the protocol then names what the fragmentable
     * part starts with, walked by {@link #readAfterReassembly} once whole); else the reason, and
     * where RFC 8200 asks for an ICMPv6 Parameter Problem, its code and pointer in h. A
     * multicast source is a {@link Drop#BAD_FIELD}.
     */
    public static Drop read(MemorySegment s, long off, int len, IpHeader h) {
        h.noProblem();
        Drop error = check(s, off, len);
        if (error != null) return error;
        long srcHi = sourceHi(s, off);
        if (isMulticast(srcHi)) return Drop.BAD_FIELD;
        h.source(srcHi, sourceLo(s, off)).destination(destinationHi(s, off), destinationLo(s, off)).ttl(hopLimit(s, off))
                .whole();
        return walk(s, off, HEADER_LENGTH, HEADER_LENGTH + payloadLength(s, off), nextHeader(s, off), NEXT_HEADER, true, h);
    }

    /**
     * Walks on from a reassembled datagram's fragmentable part: length bytes at at, starting with
     * header next (h as {@link #read} left it). A second Fragment header, or one that would need
     * a Parameter Problem, is {@link Drop#UNSUPPORTED} here (no pointer into the pieces is meaningful).
     */
    public static Drop readAfterReassembly(MemorySegment s, long at, int length, int next, IpHeader h) {
        h.whole();
        Drop error = walk(s, at, 0, length, next, -1, false, h);
        if (h.isFragment()) return Drop.UNSUPPORTED;
        if (h.problemCode() >= 0) {
            h.noProblem();
            return Drop.UNSUPPORTED;
        }
        return error;
    }

    /**
     * The walk (RFC 8200 section 4.1): from at (relative to base) to end, header next named by the
     * field at nextAt; first: whether at is right after the fixed header, the one place a
     * Hop-by-Hop Options header may be.
     */
    private static Drop walk(MemorySegment s, long base, int at, int end, int next, int nextAt, boolean first, IpHeader h) {
        while (true) {
            switch (next) {
                case HOP_BY_HOP, DESTINATION_OPTIONS -> {
                    if (next == HOP_BY_HOP && !(first && at == HEADER_LENGTH)) {
                        h.problem(PROBLEM_NEXT_HEADER, nextAt, false);
                        return Drop.UNSUPPORTED;
                    }
                    int length = extensionLength(s, base, at, end);
                    if (length < 0) return Drop.TRUNCATED;
                    Drop error = options(s, base, at + 2, at + length, h);
                    if (error != null) return error;
                }
                case ROUTING -> {
                    int length = extensionLength(s, base, at, end);
                    if (length < 0 || length < 8) return Drop.TRUNCATED;
                    if (Bytes.u8(s, base + at + SEGMENTS_LEFT) != 0) {
                        // no routing type is processed here: an unrecognised one with segments left (RFC 8200 section 4.4)
                        h.problem(PROBLEM_FIELD, at + ROUTING_TYPE, false);
                        return Drop.UNSUPPORTED;
                    }
                }
                case FRAGMENT -> {
                    if (at + FRAGMENT_HEADER_LENGTH > end) return Drop.TRUNCATED;
                    int field = Bytes.u16(s, base + at + FRAGMENT_OFFSET);
                    int offset = field & FRAGMENT_OFFSET_MASK;
                    boolean more = (field & FRAGMENT_MORE) != 0;
                    if (offset != 0 || more) {
                        int data = end - at - FRAGMENT_HEADER_LENGTH;
                        if (more && data % 8 != 0) {
                            h.problem(PROBLEM_FIELD, PAYLOAD_LENGTH, false);
                            return Drop.BAD_FRAGMENT;
                        }
                        if (offset + data > 65535) {
                            h.problem(PROBLEM_FIELD, at + FRAGMENT_OFFSET, false);
                            return Drop.BAD_FRAGMENT;
                        }
                        h.fragment(offset, more).id(Bytes.u32(s, base + at + FRAGMENT_ID))
                                .protocol(Bytes.u8(s, base + at + EXT_NEXT_HEADER)).protocolPointer(at)
                                .headerLength(at + FRAGMENT_HEADER_LENGTH).payloadLength(data);
                        return null;
                    }
                    // an atomic fragment (RFC 6946): the datagram is whole, walk on
                }
                case NO_NEXT_HEADER -> {
                    return Drop.UNSUPPORTED; // nothing follows
                }
                default -> {
                    h.protocol(next).protocolPointer(nextAt).headerLength(at).payloadLength(end - at);
                    return null;
                }
            }
            int length = next == FRAGMENT ? FRAGMENT_HEADER_LENGTH : extensionLength(s, base, at, end);
            nextAt = at + EXT_NEXT_HEADER;
            next = Bytes.u8(s, base + at + EXT_NEXT_HEADER);
            at += length;
        }
    }

    /** The length of the extension header at at (8 + 8 × its length field), or -1 when it runs past end. */
    private static int extensionLength(MemorySegment s, long base, int at, int end) {
        if (at + 2 > end) return -1;
        int length = 8 + 8 * Bytes.u8(s, base + at + EXT_LENGTH);
        return at + length > end ? -1 : length;
    }

    /** The options from at to end of a Hop-by-Hop or Destination Options header; unknown ones as their type says. */
    private static Drop options(MemorySegment s, long base, int at, int end, IpHeader h) {
        while (at < end) {
            int type = Bytes.u8(s, base + at);
            if (type == OPT_PAD1) {
                at++;
                continue;
            }
            if (at + 2 > end) return Drop.BAD_OPTION;
            int length = 2 + Bytes.u8(s, base + at + 1);
            if (at + length > end) return Drop.BAD_OPTION;
            if (type != OPT_PADN) {
                switch (type >>> 6) {
                    case SKIP -> { }
                    case DISCARD -> {
                        return Drop.UNSUPPORTED;
                    }
                    case DISCARD_AND_TELL -> {
                        h.problem(PROBLEM_OPTION, at, true);
                        return Drop.UNSUPPORTED;
                    }
                    default -> {
                        h.problem(PROBLEM_OPTION, at, false);
                        return Drop.UNSUPPORTED;
                    }
                }
            }
            at += length;
        }
        return null;
    }

    public static int payloadLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + PAYLOAD_LENGTH);
    }

    public static int nextHeader(MemorySegment s, long off) {
        return Bytes.u8(s, off + NEXT_HEADER);
    }

    public static int hopLimit(MemorySegment s, long off) {
        return Bytes.u8(s, off + HOP_LIMIT);
    }

    public static long sourceHi(MemorySegment s, long off) {
        return s.get(U64, off + SOURCE);
    }

    public static long sourceLo(MemorySegment s, long off) {
        return s.get(U64, off + SOURCE + 8);
    }

    public static long destinationHi(MemorySegment s, long off) {
        return s.get(U64, off + DESTINATION);
    }

    public static long destinationLo(MemorySegment s, long off) {
        return s.get(U64, off + DESTINATION + 8);
    }

    /** Reads the 16-byte address at off: its high half. */
    public static long hi(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    /** Reads the 16-byte address at off: its low half. */
    public static long lo(MemorySegment s, long off) {
        return s.get(U64, off + 8);
    }

    /** Writes the 16-byte address hi:lo at off. */
    public static void address(MemorySegment s, long off, long hi, long lo) {
        s.set(U64, off, hi);
        s.set(U64, off + 8, lo);
    }

    /**
     * Writes the header h describes (traffic class and flow label 0); a fragment gets a Fragment
     * header after it, naming h's protocol, offset, more-fragments flag and identification.
     * Returns the length written: {@link #HEADER_LENGTH}, or with the Fragment header 48.
     */
    public static int write(MemorySegment s, long off, IpHeader h) {
        int extra = h.isFragment() ? FRAGMENT_HEADER_LENGTH : 0;
        // version to hop limit in one write (see Bytes)
        int next = h.isFragment() ? FRAGMENT : h.protocol();
        Bytes.u64(s, off + VERSION, Bytes.pack(6 << 28, ((extra + h.payloadLength()) << 16) | ((next & 0xff) << 8) | (h.ttl() & 0xff)));
        address(s, off + SOURCE, h.sourceHi(), h.sourceLo());
        address(s, off + DESTINATION, h.destinationHi(), h.destinationLo());
        if (extra == 0) return HEADER_LENGTH;
        long f = off + HEADER_LENGTH;
        Bytes.u8(s, f + EXT_NEXT_HEADER, h.protocol());
        Bytes.u8(s, f + 1, 0);
        Bytes.u16(s, f + FRAGMENT_OFFSET, (h.fragmentOffset() & FRAGMENT_OFFSET_MASK) | (h.moreFragments() ? FRAGMENT_MORE : 0));
        Bytes.u32(s, f + FRAGMENT_ID, h.id());
        return HEADER_LENGTH + extra;
    }

    /** The pseudo-header sum (RFC 8200 section 8.1) of TCP, UDP and ICMPv6 for the header h describes. */
    public static int pseudoHeader(IpHeader h, int protocol, int l4Length) {
        return Checksum.pseudoHeader6(h.sourceHi(), h.sourceLo(), h.destinationHi(), h.destinationLo(), protocol, l4Length);
    }

    /** Whether hi is the high half of a multicast address (ff00::/8). */
    public static boolean isMulticast(long hi) {
        return (hi >>> 56) == 0xff;
    }

    /** Whether hi is the high half of a link-local unicast address (fe80::/10). */
    public static boolean isLinkLocal(long hi) {
        return (hi >>> 54) == (0xfe80L >>> 6);
    }

    /** Parses a textual IPv6 address ("fd00::2") into {hi, lo}; IllegalArgumentException when it is not one. */
    public static long[] parse(String text) {
        if (!text.contains(":")) throw new IllegalArgumentException("not an IPv6 address: " + text);
        try {
            byte[] b = InetAddress.getByName(text).getAddress(); // a literal: no name lookup
            if (b.length == 4) { // the JDK turns IPv4-mapped ::ffff:a.b.c.d into IPv4
                byte[] mapped = new byte[16];
                mapped[10] = mapped[11] = (byte) 0xff;
                System.arraycopy(b, 0, mapped, 12, 4);
                b = mapped;
            }
            MemorySegment m = MemorySegment.ofArray(b);
            return new long[] {m.get(U64, 0), m.get(U64, 8)};
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv6 address: " + text);
        }
    }

    /** The text form of hi:lo with the longest run of two or more zero groups shortened ("fd00::2", RFC 5952). */
    public static String format(long hi, long lo) {
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) (hi >>> (48 - 16 * i)) & 0xffff;
            g[4 + i] = (int) (lo >>> (48 - 16 * i)) & 0xffff;
        }
        int bestStart = -1, bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                b.append("::");
                i += bestLength - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') b.append(':');
            b.append(Integer.toHexString(g[i]));
        }
        return b.toString();
    }
}
