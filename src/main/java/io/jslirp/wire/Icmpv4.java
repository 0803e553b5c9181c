package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * ICMPv4 (RFC 792): type, code, checksum, then 4 bytes whose meaning depends on the type
 * (identifier and sequence for echo).
 */
public final class Icmpv4 {
    public static final int HEADER_LENGTH = 8;
    public static final int ECHO_REPLY = 0;
    public static final int DEST_UNREACHABLE = 3;
    public static final int ECHO_REQUEST = 8;
    public static final int CODE_NET_UNREACHABLE = 0;
    public static final int CODE_HOST_UNREACHABLE = 1;
    public static final int CODE_PORT_UNREACHABLE = 3;
    /** Communication administratively prohibited (RFC 1812): a filter refused it. */
    public static final int CODE_ADMIN_PROHIBITED = 13;
    /** An error message quotes the offending datagram's IP header and this many bytes after it. */
    public static final int QUOTED_TRANSPORT_BYTES = 8;

    private Icmpv4() {}

    public static int type(MemorySegment s, long off) {
        return Bytes.u8(s, off);
    }

    public static int code(MemorySegment s, long off) {
        return Bytes.u8(s, off + 1);
    }

    public static void setType(MemorySegment s, long off, int type) {
        Bytes.u8(s, off, type);
    }

    /** The identifier of an echo request or reply. */
    public static int echoId(MemorySegment s, long off) {
        return Bytes.u16(s, off + 4);
    }

    public static void setEchoId(MemorySegment s, long off, int id) {
        Bytes.u16(s, off + 4, id);
    }

    /** Recomputes the checksum over the whole message of len bytes. */
    public static void fillChecksum(MemorySegment s, long off, int len) {
        Bytes.u16(s, off + 2, 0);
        Bytes.u16(s, off + 2, Checksum.of(s, off, len));
    }
}
