package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * TFTP messages (RFC 1350) in a UDP payload, with option negotiation (RFC 2347) for the block
 * size (RFC 2348) and transfer size (RFC 2349) options.
 * <pre>
 * RRQ/WRQ  | opcode | filename | 0 | mode | 0 | option | 0 | value | 0 | ...
 * DATA     | opcode | block # | data (0..blksize bytes; fewer ends the transfer)
 * ACK      | opcode | block # |
 * ERROR    | opcode | code    | message | 0 |
 * OACK     | opcode | option | 0 | value | 0 | ...
 * </pre>
 */
public final class Tftp {
    public static final int PORT = 69;
    public static final int RRQ = 1, WRQ = 2, DATA = 3, ACK = 4, ERROR = 5, OACK = 6;
    /** Opcode and block number (or error code). */
    public static final int HEADER_LENGTH = 4;
    public static final int DEFAULT_BLOCK_SIZE = 512, MIN_BLOCK_SIZE = 8, MAX_BLOCK_SIZE = 65464;
    public static final int ERR_UNDEFINED = 0, ERR_NOT_FOUND = 1, ERR_ACCESS = 2, ERR_ILLEGAL = 4, ERR_OPTION = 8;

    private Tftp() {}

    /**
     * A read or write request. blockSize and transferSize are -1 when the client did not ask for
     * them (or asked for a value outside the option's range, which a server ignores).
     */
    public record Request(int opcode, String filename, String mode, int blockSize, long transferSize) {
        /** Whether the client asked for an option this codec negotiates (the reply is then an OACK). */
        public boolean hasOptions() {
            return blockSize >= 0 || transferSize >= 0;
        }
    }

    /** The opcode of a message of len bytes, or -1 when too short to have one. */
    public static int opcode(MemorySegment s, long off, int len) {
        return len < 2 ? -1 : Bytes.u16(s, off);
    }

    /** Block number of a DATA or ACK message (check the length is at least {@link #HEADER_LENGTH}). */
    public static int block(MemorySegment s, long off) {
        return Bytes.u16(s, off + 2);
    }

    /** Parses an RRQ or WRQ of len bytes; null when it is not one or is malformed. */
    public static Request parseRequest(MemorySegment s, long off, int len) {
        int opcode = opcode(s, off, len);
        if (opcode != RRQ && opcode != WRQ) return null;
        long end = off + len;
        long p = off + 2;
        long nul = nul(s, p, end);
        if (nul < 0 || nul == p) return null;
        String filename = ascii(s, p, nul);
        p = nul + 1;
        nul = nul(s, p, end);
        if (nul < 0 || nul == p) return null;
        String mode = ascii(s, p, nul).toLowerCase(Locale.ROOT);
        p = nul + 1;
        int blockSize = -1;
        long transferSize = -1;
        while (p < end) {
            long nameEnd = nul(s, p, end);
            if (nameEnd < 0) return null;
            long valueEnd = nul(s, nameEnd + 1, end);
            if (valueEnd < 0) return null;
            String name = ascii(s, p, nameEnd).toLowerCase(Locale.ROOT);
            long value = number(s, nameEnd + 1, valueEnd);
            switch (name) {
                case "blksize" -> {
                    if (value >= MIN_BLOCK_SIZE) blockSize = (int) Math.min(value, MAX_BLOCK_SIZE);
                }
                case "tsize" -> transferSize = value;
                default -> { } // options we do not know are left out of the OACK (RFC 2347)
            }
            p = valueEnd + 1;
        }
        return new Request(opcode, filename, mode, blockSize, transferSize);
    }

    /** Writes a DATA header for block (its low 16 bits); the data follows at off + {@link #HEADER_LENGTH}. */
    public static void writeDataHeader(MemorySegment s, long off, long block) {
        Bytes.u16(s, off, DATA);
        Bytes.u16(s, off + 2, (int) (block & 0xffff));
    }

    /** Writes an ERROR message and returns its length. */
    public static int writeError(MemorySegment s, long off, int code, String message) {
        Bytes.u16(s, off, ERROR);
        Bytes.u16(s, off + 2, code);
        return HEADER_LENGTH + string(s, off + HEADER_LENGTH, message);
    }

    /** Writes an OACK acknowledging the given options (-1: not acknowledged) and returns its length. */
    public static int writeOack(MemorySegment s, long off, int blockSize, long transferSize) {
        Bytes.u16(s, off, OACK);
        long p = off + 2;
        if (blockSize >= 0) {
            p += string(s, p, "blksize");
            p += string(s, p, Integer.toString(blockSize));
        }
        if (transferSize >= 0) {
            p += string(s, p, "tsize");
            p += string(s, p, Long.toString(transferSize));
        }
        return (int) (p - off);
    }

    /** Offset of the first zero byte in [p, end), or -1. */
    private static long nul(MemorySegment s, long p, long end) {
        for (long i = p; i < end; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) == 0) return i;
        }
        return -1;
    }

    private static String ascii(MemorySegment s, long from, long to) {
        byte[] b = new byte[(int) (to - from)];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, from, b, 0, b.length);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** A decimal option value, or -1 when it is not one (or absurdly long). */
    private static long number(MemorySegment s, long from, long to) {
        if (to == from || to - from > 18) return -1;
        long v = 0;
        for (long i = from; i < to; i++) {
            int d = Bytes.u8(s, i) - '0';
            if (d < 0 || d > 9) return -1;
            v = v * 10 + d;
        }
        return v;
    }

    /** Writes text and a terminating zero; returns the bytes written. */
    private static int string(MemorySegment s, long off, String text) {
        byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, off, b.length);
        Bytes.u8(s, off + b.length, 0);
        return b.length + 1;
    }
}
