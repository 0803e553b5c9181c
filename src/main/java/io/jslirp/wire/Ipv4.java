package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * IPv4 header (RFC 791).
 * <pre>
 *  0               1               2               3
 * +-------+-------+---------------+-------------------------------+
 * |version|  IHL  |      TOS      |          total length         |  0 VERSION_IHL, 2 TOTAL_LENGTH
 * +-------+-------+---------------+-----+-------------------------+
 * |         identification        |flags|     fragment offset     |  4 IDENTIFICATION, 6 FLAGS_FRAGMENT
 * +---------------+---------------+-----+-------------------------+
 * |      TTL      |   protocol    |        header checksum        |  8 TTL, 9 PROTOCOL, 10 CHECKSUM
 * +---------------+---------------+-------------------------------+
 * |                        source address                         |  12 SOURCE
 * |                      destination address                      |  16 DESTINATION
 * |                    options (IHL > 5) ...                      |  20
 * </pre>
 * Addresses are ints in host order (10.0.2.2 is 0x0A000202); in an {@link IpHeader} they are
 * IPv4-mapped (::ffff:10.0.2.2). {@link #check} (or {@link #read}) first; the accessors then read
 * inside the header.
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

    private static final int VERSION_IHL = 0, TOTAL_LENGTH = 2, IDENTIFICATION = 4, FLAGS_FRAGMENT = 6, TTL = 8,
            PROTOCOL = 9, CHECKSUM = 10, SOURCE = 12, DESTINATION = 16;
    /** The high 32 bits of the low half of an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
    private static final long MAPPED = 0xffffL << 32;

    private Ipv4() {}

    /**
     * Checks that len bytes hold a complete IPv4 header, with a right checksum, and the datagram
     * its total length claims. Returns null when valid, else the reason for the drop.
     */
    public static Drop check(MemorySegment s, long off, int len) {
        if (len < MIN_HEADER_LENGTH) return Drop.TRUNCATED;
        if (version(s, off) != 4) return Drop.BAD_VERSION;
        int ihl = headerLength(s, off);
        if (ihl < MIN_HEADER_LENGTH || ihl > len) return Drop.BAD_HEADER_LENGTH;
        int total = totalLength(s, off);
        if (total < ihl || total > len) return Drop.BAD_LENGTH;
        if (Checksum.of(s, off, ihl) != 0) return Drop.BAD_CHECKSUM;
        return null;
    }

    /** {@link #check}s the header at off and describes it in h (addresses IPv4-mapped); null when valid, else the reason. */
    public static Drop read(MemorySegment s, long off, int len, IpHeader h) {
        h.noProblem();
        Drop error = check(s, off, len);
        if (error != null) return error;
        int ihl = headerLength(s, off);
        h.source4(source(s, off)).destination4(destination(s, off)).protocol(protocol(s, off)).ttl(ttl(s, off))
                .headerLength(ihl).payloadLength(totalLength(s, off) - ihl).id(identification(s, off))
                .protocolPointer(PROTOCOL);
        if (isFragment(s, off)) h.fragment(fragmentOffset(s, off), moreFragments(s, off));
        else h.whole();
        return null;
    }

    public static int version(MemorySegment s, long off) {
        return Bytes.u8(s, off + VERSION_IHL) >>> 4;
    }

    public static int headerLength(MemorySegment s, long off) {
        return (Bytes.u8(s, off + VERSION_IHL) & 0x0f) * 4;
    }

    public static int totalLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + TOTAL_LENGTH);
    }

    public static int identification(MemorySegment s, long off) {
        return Bytes.u16(s, off + IDENTIFICATION);
    }

    public static boolean isFragment(MemorySegment s, long off) {
        return (Bytes.u16(s, off + FLAGS_FRAGMENT) & (MORE_FRAGMENTS | FRAGMENT_OFFSET_MASK)) != 0;
    }

    public static boolean moreFragments(MemorySegment s, long off) {
        return (Bytes.u16(s, off + FLAGS_FRAGMENT) & MORE_FRAGMENTS) != 0;
    }

    public static boolean dontFragment(MemorySegment s, long off) {
        return (Bytes.u16(s, off + FLAGS_FRAGMENT) & DONT_FRAGMENT) != 0;
    }

    /** Offset of this fragment's data in the original datagram, in bytes. */
    public static int fragmentOffset(MemorySegment s, long off) {
        return (Bytes.u16(s, off + FLAGS_FRAGMENT) & FRAGMENT_OFFSET_MASK) * 8;
    }

    public static int ttl(MemorySegment s, long off) {
        return Bytes.u8(s, off + TTL);
    }

    public static int protocol(MemorySegment s, long off) {
        return Bytes.u8(s, off + PROTOCOL);
    }

    public static int source(MemorySegment s, long off) {
        return Bytes.u32(s, off + SOURCE);
    }

    public static int destination(MemorySegment s, long off) {
        return Bytes.u32(s, off + DESTINATION);
    }

    /**
     * Writes the 20-byte header h describes, with its checksum: don't fragment set unless h is a
     * fragment, whose offset and more-fragments flag it carries. Returns the header's length.
     */
    public static int write(MemorySegment s, long off, IpHeader h) {
        int flags = h.isFragment() ? (h.fragmentOffset() / 8) | (h.moreFragments() ? MORE_FRAGMENTS : 0) : DONT_FRAGMENT;
        Bytes.u16(s, off + VERSION_IHL, 0x4500);
        Bytes.u16(s, off + TOTAL_LENGTH, MIN_HEADER_LENGTH + h.payloadLength());
        Bytes.u16(s, off + IDENTIFICATION, h.id());
        Bytes.u16(s, off + FLAGS_FRAGMENT, flags);
        Bytes.u8(s, off + TTL, h.ttl());
        Bytes.u8(s, off + PROTOCOL, h.protocol());
        Bytes.u16(s, off + CHECKSUM, 0);
        Bytes.u32(s, off + SOURCE, h.source4());
        Bytes.u32(s, off + DESTINATION, h.destination4());
        Bytes.u16(s, off + CHECKSUM, Checksum.of(s, off, MIN_HEADER_LENGTH));
        return MIN_HEADER_LENGTH;
    }

    /** The low half of the IPv4-mapped IPv6 address ::ffff:a.b.c.d of address (its high half is 0). */
    public static long mapped(int address) {
        return MAPPED | (address & 0xffffffffL);
    }

    /** Whether hi:lo is an IPv4-mapped address (::ffff:a.b.c.d). */
    public static boolean isMapped(long hi, long lo) {
        return hi == 0 && (lo & -1L << 32) == MAPPED;
    }

    /** The pseudo-header sum of TCP and UDP (RFC 793, RFC 768) for an IPv4 header h describes, whatever its protocol field holds. */
    public static int pseudoHeader(IpHeader h, int protocol, int l4Length) {
        return Checksum.pseudoHeader4(h.source4(), h.destination4(), protocol, l4Length);
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
