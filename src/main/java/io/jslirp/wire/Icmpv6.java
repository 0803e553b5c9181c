package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * ICMPv6 (RFC 4443): type, code, checksum over the message and the IPv6 pseudo-header, then 4
 * bytes whose meaning depends on the type (identifier and sequence for echo). Neighbor Discovery
 * messages are in {@link Ndp}.
 */
public final class Icmpv6 {
    public static final int HEADER_LENGTH = 8;
    public static final int DEST_UNREACHABLE = 1;
    public static final int ECHO_REQUEST = 128, ECHO_REPLY = 129;
    public static final int CODE_NO_ROUTE = 0, CODE_ADMIN_PROHIBITED = 1, CODE_ADDRESS_UNREACHABLE = 3, CODE_PORT_UNREACHABLE = 4;

    private Icmpv6() {}

    public static int type(MemorySegment s, long off) {
        return Bytes.u8(s, off);
    }

    public static int code(MemorySegment s, long off) {
        return Bytes.u8(s, off + 1);
    }

    public static void setType(MemorySegment s, long off, int type) {
        Bytes.u8(s, off, type);
    }

    /** Whether the message of len bytes, sent from src to dst, has a correct checksum. */
    public static boolean checksumValid(MemorySegment s, long off, int len, long srcHi, long srcLo, long dstHi, long dstLo) {
        return Checksum.valid6(s, off, len, Ipv6.PROTO_ICMPV6, srcHi, srcLo, dstHi, dstLo);
    }

    /** Computes the checksum of the message of len bytes sent from src to dst. */
    public static void fillChecksum(MemorySegment s, long off, int len, long srcHi, long srcLo, long dstHi, long dstLo) {
        Bytes.u16(s, off + 2, 0);
        int pseudo = Checksum.pseudoHeader6(srcHi, srcLo, dstHi, dstLo, Ipv6.PROTO_ICMPV6, len);
        Bytes.u16(s, off + 2, Checksum.finish(Checksum.sum(s, off, len, pseudo)));
    }
}
