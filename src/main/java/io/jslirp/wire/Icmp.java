package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * The ICMP header both versions share (RFC 792, RFC 4443); the numbers are {@link Icmpv4}'s and
 * {@link Icmpv6}'s. The checksum covers the message, and for ICMPv6 also the IPv6 pseudo-header
 * ({@link IpVersion#icmpPseudoHeader}: the pseudo argument below, 0 for ICMPv4).
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+-------------------------------+
 * |     type      |     code      |           checksum            |  0 TYPE, 1 CODE, 2 CHECKSUM
 * +---------------+---------------+-------------------------------+
 * |  identifier (echo) / unused / pointer (parameter problem)     |  4 REST (echo: 4 ECHO_ID, 6 ECHO_SEQUENCE)
 * +---------------------------------------------------------------+
 * |  echo data, or the invoking packet of an error ...            |  8
 * </pre>
 */
public final class Icmp {
    public static final int HEADER_LENGTH = 8;
    private static final int TYPE = 0, CODE = 1, CHECKSUM = 2, REST = 4, ECHO_ID = 4;

    private Icmp() {}

    /** Null when len bytes hold an ICMP message whose checksum is right (ICMPv6's with h's pseudo-header), else the reason. */
    public static Drop check(MemorySegment s, long off, int len, IpVersion v, IpHeader h) {
        if (len < HEADER_LENGTH) return Drop.TRUNCATED;
        if (!Checksum.verify(s, off, len, v.icmpPseudoHeader(h, len))) return Drop.BAD_CHECKSUM;
        return null;
    }

    public static int type(MemorySegment s, long off) {
        return Bytes.u8(s, off + TYPE);
    }

    public static int code(MemorySegment s, long off) {
        return Bytes.u8(s, off + CODE);
    }

    public static void setType(MemorySegment s, long off, int type) {
        Bytes.u8(s, off + TYPE, type);
    }

    /** The 4 bytes after the checksum: an echo's identifier and sequence, a parameter problem's pointer. */
    public static int rest(MemorySegment s, long off) {
        return Bytes.u32(s, off + REST);
    }

    /** The identifier of an echo request or reply. */
    public static int echoId(MemorySegment s, long off) {
        return Bytes.u16(s, off + ECHO_ID);
    }

    /** Reads the echo request of len bytes at off of s, checked by {@link #check}, into e; returns e. */
    public static IcmpEcho readEcho(MemorySegment s, long off, int len, IcmpEcho e) {
        e.fill(s, off, len);
        return e;
    }

    public static void setEchoId(MemorySegment s, long off, int id) {
        Bytes.u16(s, off + ECHO_ID, id);
    }

    /** Writes the header of a message: type, code, a zero checksum and the 4 bytes after it. */
    public static void write(MemorySegment s, long off, int type, int code, int rest) {
        Bytes.u8(s, off + TYPE, type);
        Bytes.u8(s, off + CODE, code);
        Bytes.u16(s, off + CHECKSUM, 0);
        Bytes.u32(s, off + REST, rest);
    }

    /** Computes the checksum over the whole message of len bytes, with pseudo (the pseudo-header's sum, or 0) added. */
    public static void fillChecksum(MemorySegment s, long off, int len, int pseudo) {
        Bytes.u16(s, off + CHECKSUM, 0);
        Bytes.u16(s, off + CHECKSUM, Checksum.finish(Checksum.sum(s, off, len, pseudo)));
    }
}
