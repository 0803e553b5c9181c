package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * UDP header (RFC 768).
 * <pre>
 *  0               2               4               6               8
 * +---------------+---------------+---------------+---------------+
 * |  source port  |   dest port   |    length     |   checksum    |
 * +---------------+---------------+---------------+---------------+
 *   SOURCE_PORT     DESTINATION_PORT  LENGTH        CHECKSUM
 * </pre>
 * {@link #check} first (lengths and, given the pseudo-header, the checksum); the accessors then
 * read inside the header.
 */
public final class Udp {
    public static final int HEADER_LENGTH = 8;
    /** Where the checksum is in the header (for a receiver that completes a partial one). */
    public static final int CHECKSUM_OFFSET = 6;
    private static final int SOURCE_PORT = 0, DESTINATION_PORT = 2, LENGTH = 4, CHECKSUM = 6;

    private Udp() {}

    /** Null when len bytes (the IP payload) hold a consistent UDP datagram, else the reason. */
    public static Drop check(MemorySegment s, long off, int len) {
        if (len < HEADER_LENGTH) return Drop.TRUNCATED;
        int l = length(s, off);
        if (l < HEADER_LENGTH || l > len) return Drop.BAD_LENGTH;
        return null;
    }

    /**
     * As {@link #check(MemorySegment, long, int)}, and the checksum with the pseudo-header of the IP
     * header h (of version v) unless checksumTrusted. A checksum of 0 is "none computed" where the
     * version says so (IPv4), else wrong (IPv6).
     */
    public static Drop check(MemorySegment s, long off, int len, IpVersion v, IpHeader h, boolean checksumTrusted) {
        Drop error = check(s, off, len);
        if (error != null || checksumTrusted) return error;
        if (checksum(s, off) == 0) return v.zeroUdpChecksumIsNone() ? null : Drop.BAD_CHECKSUM;
        int length = length(s, off);
        return Checksum.verify(s, off, length, v.pseudoHeader(h, Ipv4.PROTO_UDP, length)) ? null : Drop.BAD_CHECKSUM;
    }

    /** Reads the header at off of s, checked by {@link #check}, into d: its ports and its payload's place. */
    public static UdpDatagram read(MemorySegment s, long off, UdpDatagram d) {
        d.fill(s, off);
        return d;
    }

    public static int sourcePort(MemorySegment s, long off) {
        return Bytes.u16(s, off + SOURCE_PORT);
    }

    public static int destinationPort(MemorySegment s, long off) {
        return Bytes.u16(s, off + DESTINATION_PORT);
    }

    public static int length(MemorySegment s, long off) {
        return Bytes.u16(s, off + LENGTH);
    }

    public static int checksum(MemorySegment s, long off) {
        return Bytes.u16(s, off + CHECKSUM);
    }

    /**
     * Writes the header for a datagram of payloadLength bytes already in place, with its checksum;
     * pseudo is its pseudo-header's sum for the length {@link #HEADER_LENGTH} + payloadLength.
     */
    public static void write(MemorySegment s, long off, int sourcePort, int destinationPort, int payloadLength, int pseudo) {
        int len = HEADER_LENGTH + payloadLength;
        header(s, off, sourcePort, destinationPort, len, 0);
        int sum = Checksum.finish(Checksum.sum(s, off, len, pseudo));
        Bytes.u16(s, off + CHECKSUM, sum == 0 ? 0xffff : sum);
    }

    /**
     * Writes the header for payloadLength bytes already in place whose checksum the receiver
     * completes: the field holds pseudo, the pseudo-header's sum for {@link #HEADER_LENGTH} + payloadLength.
     */
    public static void writePartial(MemorySegment s, long off, int sourcePort, int destinationPort, int payloadLength, int pseudo) {
        header(s, off, sourcePort, destinationPort, HEADER_LENGTH + payloadLength, pseudo);
    }

    /** The whole header in one write (see Bytes). */
    private static void header(MemorySegment s, long off, int sourcePort, int destinationPort, int length, int checksum) {
        Bytes.u64(s, off + SOURCE_PORT, Bytes.pack((sourcePort << 16) | (destinationPort & 0xffff), (length << 16) | (checksum & 0xffff)));
    }
}
