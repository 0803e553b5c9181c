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
        return check(s, off, len, Bytes.u64(s, off + VERSION_IHL), Bytes.u32(s, off + TTL), Bytes.u64(s, off + SOURCE));
    }

    /**
     * {@link #check(MemorySegment, long, int)} of a header whose fixed part was read in three words
     * (see Bytes): version to fragment offset, TTL to checksum, the addresses. The checksum of a
     * header without options is summed from those words; options are read from the frame.
     */
    private static Drop check(MemorySegment s, long off, int len, long first, int middle, long addresses) {
        int high = (int) (first >>> 32);
        if (high >>> 28 != 4) return Drop.BAD_VERSION;
        int ihl = ((high >>> 24) & 0x0f) * 4, total = high & 0xffff;
        if (ihl < MIN_HEADER_LENGTH || ihl > len) return Drop.BAD_HEADER_LENGTH;
        if (total < ihl || total > len) return Drop.BAD_LENGTH;
        int checksum = ihl == MIN_HEADER_LENGTH
                ? Checksum.finish(Checksum.words(first) + Checksum.words(middle) + Checksum.words(addresses))
                : Checksum.of(s, off, ihl);
        return checksum == 0 ? null : Drop.BAD_CHECKSUM;
    }

    /** {@link #check}s the header at off and describes it in h (addresses IPv4-mapped); null when valid, else the reason. */
    public static Drop read(MemorySegment s, long off, int len, IpHeader h) {
        h.noProblem();
        if (len < MIN_HEADER_LENGTH) return Drop.TRUNCATED;
        // the fixed header in three reads (see Bytes), checked and then taken apart
        long first = Bytes.u64(s, off + VERSION_IHL), addresses = Bytes.u64(s, off + SOURCE);
        int middle = Bytes.u32(s, off + TTL);
        Drop error = check(s, off, len, first, middle, addresses);
        if (error != null) return error;
        int high = (int) (first >>> 32), low = (int) first;
        int ihl = ((high >>> 24) & 0x0f) * 4, total = high & 0xffff;
        h.source4((int) (addresses >>> 32)).destination4((int) addresses).protocol((middle >>> 16) & 0xff).ttl(middle >>> 24)
                .headerLength(ihl).payloadLength(total - ihl).id(low >>> 16).protocolPointer(PROTOCOL);
        if ((low & (MORE_FRAGMENTS | FRAGMENT_OFFSET_MASK)) != 0) h.fragment((low & FRAGMENT_OFFSET_MASK) * 8, (low & MORE_FRAGMENTS) != 0);
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
        int versionIhl = 0x4500, total = (MIN_HEADER_LENGTH + h.payloadLength()) & 0xffff, id = h.id() & 0xffff;
        int ttlProtocol = ((h.ttl() & 0xff) << 8) | (h.protocol() & 0xff);
        int source = h.source4(), destination = h.destination4();
        // The checksum from the fields' own 16-bit words (RFC 1071), not read back from the frame;
        // the header in three writes rather than ten (see Bytes).
        int checksum = Checksum.finish(versionIhl + total + id + flags + ttlProtocol
                + (source >>> 16) + (source & 0xffff) + (destination >>> 16) + (destination & 0xffff));
        Bytes.u64(s, off + VERSION_IHL, Bytes.pack((versionIhl << 16) | total, (id << 16) | flags));
        Bytes.u32(s, off + TTL, (ttlProtocol << 16) | checksum);
        Bytes.u64(s, off + SOURCE, Bytes.pack(source, destination));
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
