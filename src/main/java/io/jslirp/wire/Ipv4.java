package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * IPv4 header (RFC 791).
 * <pre>
 *  0               1               2               3
 * +-------+-------+---------------+-------------------------------+
 * |version|  IHL  |      TOS      |          total length         |
 * +-------+-------+---------------+-----+-------------------------+
 * |         identification        |flags|     fragment offset     |
 * +---------------+---------------+-----+-------------------------+
 * |      TTL      |   protocol    |        header checksum        |
 * +---------------+---------------+-------------------------------+
 * |                        source address                         |
 * |                      destination address                      |
 * |                    options (IHL > 5) ...                      |
 * </pre>
 * Addresses are ints in host order (10.0.2.2 is 0x0A000202).
 */
public final class Ipv4 {
    public static final int MIN_HEADER_LENGTH = 20;
    public static final int PROTO_ICMP = 1;
    public static final int PROTO_TCP = 6;
    public static final int PROTO_UDP = 17;
    /** The flags-and-offset field: don't fragment; more fragments follow; offset in 8-byte units. */
    public static final int DONT_FRAGMENT = 0x4000;
    public static final int MORE_FRAGMENTS = 0x2000;
    private static final int FRAGMENT_OFFSET_MASK = 0x1fff;

    /** {@link #check}'s reason for a header whose checksum is wrong (callers count it apart). */
    public static final String BAD_CHECKSUM = "ipv4 bad checksum";

    private Ipv4() {}

    /**
     * Checks that len bytes hold a complete IPv4 header and the datagram its total length claims.
     * Returns null when valid, else the reason for the drop.
     */
    public static String check(MemorySegment s, long off, int len) {
        if (len < MIN_HEADER_LENGTH) return "ipv4 truncated header";
        if (version(s, off) != 4) return "ipv4 bad version";
        int ihl = headerLength(s, off);
        if (ihl < MIN_HEADER_LENGTH || ihl > len) return "ipv4 bad header length";
        int total = totalLength(s, off);
        if (total < ihl || total > len) return "ipv4 bad total length";
        if (Checksum.of(s, off, ihl) != 0) return BAD_CHECKSUM;
        return null;
    }

    public static int version(MemorySegment s, long off) {
        return Bytes.u8(s, off) >>> 4;
    }

    public static int headerLength(MemorySegment s, long off) {
        return (Bytes.u8(s, off) & 0x0f) * 4;
    }

    public static int totalLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + 2);
    }

    public static int identification(MemorySegment s, long off) {
        return Bytes.u16(s, off + 4);
    }

    public static boolean isFragment(MemorySegment s, long off) {
        return (Bytes.u16(s, off + 6) & (MORE_FRAGMENTS | FRAGMENT_OFFSET_MASK)) != 0;
    }

    public static boolean moreFragments(MemorySegment s, long off) {
        return (Bytes.u16(s, off + 6) & MORE_FRAGMENTS) != 0;
    }

    /** Offset of this fragment's data in the original datagram, in bytes. */
    public static int fragmentOffset(MemorySegment s, long off) {
        return (Bytes.u16(s, off + 6) & FRAGMENT_OFFSET_MASK) * 8;
    }

    public static int ttl(MemorySegment s, long off) {
        return Bytes.u8(s, off + 8);
    }

    public static int protocol(MemorySegment s, long off) {
        return Bytes.u8(s, off + 9);
    }

    public static int source(MemorySegment s, long off) {
        return Bytes.u32(s, off + 12);
    }

    public static int destination(MemorySegment s, long off) {
        return Bytes.u32(s, off + 16);
    }

    /** Writes a 20-byte header with don't-fragment set and its checksum. */
    public static void write(MemorySegment s, long off, int totalLength, int id, int ttl, int protocol, int source, int destination) {
        write(s, off, totalLength, id, DONT_FRAGMENT, ttl, protocol, source, destination);
    }

    /** Writes a 20-byte header with the given flags-and-offset field (see {@link #MORE_FRAGMENTS}) and its checksum. */
    public static void write(MemorySegment s, long off, int totalLength, int id, int fragmentField, int ttl, int protocol,
                             int source, int destination) {
        Bytes.u16(s, off, 0x4500);
        Bytes.u16(s, off + 2, totalLength);
        Bytes.u16(s, off + 4, id);
        Bytes.u16(s, off + 6, fragmentField);
        Bytes.u8(s, off + 8, ttl);
        Bytes.u8(s, off + 9, protocol);
        Bytes.u16(s, off + 10, 0);
        Bytes.u32(s, off + 12, source);
        Bytes.u32(s, off + 16, destination);
        Bytes.u16(s, off + 10, Checksum.of(s, off, MIN_HEADER_LENGTH));
    }

    public static String format(int address) {
        return (address >>> 24) + "." + ((address >>> 16) & 0xff) + "." + ((address >>> 8) & 0xff) + "." + (address & 0xff);
    }

    /** Parses dotted-quad notation; throws IllegalArgumentException naming the bad text. */
    public static int parse(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) throw new IllegalArgumentException("not an IPv4 address: " + text);
        int address = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("not an IPv4 address: " + text);
            }
            int v = Integer.parseInt(p);
            if (v > 255) throw new IllegalArgumentException("not an IPv4 address: " + text);
            address = (address << 8) | v;
        }
        return address;
    }

    public static int netmask(int prefixLength) {
        return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
    }
}
