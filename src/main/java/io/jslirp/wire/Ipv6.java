package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * IPv6 fixed header (RFC 8200). Addresses are two longs, the high and the low 64 bits in network
 * order ({@code fd00::2} is hi {@code 0xfd00_0000_0000_0000L}, lo {@code 2}).
 * <pre>
 *  0       4              12              16      20      24      32
 * +-------+---------------+-----------------------------------------+
 * |version| traffic class |               flow label                |
 * +-------+---------------+-------+---------------+-----------------+
 * |        payload length         |  next header  |    hop limit    |
 * +-------------------------------+---------------+-----------------+
 * |            source address (16 bytes), destination address (16)  |
 * </pre>
 */
public final class Ipv6 {
    public static final int HEADER_LENGTH = 40;
    public static final int PROTO_TCP = 6, PROTO_UDP = 17, PROTO_ICMPV6 = 58;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** ff02::1, all nodes on the link. */
    public static final long ALL_NODES_HI = 0xff02_0000_0000_0000L, ALL_NODES_LO = 1;

    private Ipv6() {}

    /** Null when len bytes hold an IPv6 header and the payload it announces, else the reason. */
    public static String check(MemorySegment s, long off, int len) {
        if (len < HEADER_LENGTH) return "ipv6 truncated header";
        if ((Bytes.u8(s, off) >>> 4) != 6) return "ipv6 bad version";
        if (HEADER_LENGTH + payloadLength(s, off) > len) return "ipv6 truncated payload";
        return null;
    }

    public static int payloadLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + 4);
    }

    public static int nextHeader(MemorySegment s, long off) {
        return Bytes.u8(s, off + 6);
    }

    public static int hopLimit(MemorySegment s, long off) {
        return Bytes.u8(s, off + 7);
    }

    public static long sourceHi(MemorySegment s, long off) {
        return s.get(U64, off + 8);
    }

    public static long sourceLo(MemorySegment s, long off) {
        return s.get(U64, off + 16);
    }

    public static long destinationHi(MemorySegment s, long off) {
        return s.get(U64, off + 24);
    }

    public static long destinationLo(MemorySegment s, long off) {
        return s.get(U64, off + 32);
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

    /** Writes a header (traffic class and flow label 0) for a payload of payloadLength bytes. */
    public static void write(MemorySegment s, long off, int payloadLength, int nextHeader, int hopLimit,
                             long srcHi, long srcLo, long dstHi, long dstLo) {
        Bytes.u32(s, off, 6 << 28);
        Bytes.u16(s, off + 4, payloadLength);
        Bytes.u8(s, off + 6, nextHeader);
        Bytes.u8(s, off + 7, hopLimit);
        address(s, off + 8, srcHi, srcLo);
        address(s, off + 24, dstHi, dstLo);
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
