package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The Internet checksum (RFC 1071): ones' complement sum of 16-bit words. */
public final class Checksum {
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Checksum() {}

    /** Adds len bytes at off to a running 32-bit-folded partial sum. */
    public static int sum(MemorySegment s, long off, int len, int initial) {
        long acc = initial & 0xffffffffL;
        int i = 0;
        // 32, then 8 bytes at a time: sum the 16-bit words via 32-bit halves, carries kept in the long
        // (unrolled by hand, so the loop is as quick inlined into a large method as compiled alone).
        for (; i + 32 <= len; i += 32) {
            long a = s.get(U64, off + i), b = s.get(U64, off + i + 8), c = s.get(U64, off + i + 16), d = s.get(U64, off + i + 24);
            acc += (a >>> 32) + (a & 0xffffffffL) + (b >>> 32) + (b & 0xffffffffL)
                    + (c >>> 32) + (c & 0xffffffffL) + (d >>> 32) + (d & 0xffffffffL);
        }
        for (; i + 8 <= len; i += 8) {
            long w = s.get(U64, off + i);
            acc += (w >>> 32) + (w & 0xffffffffL);
        }
        for (; i + 2 <= len; i += 2) {
            acc += Bytes.u16(s, off + i);
        }
        if (i < len) {
            acc += Bytes.u8(s, off + i) << 8;
        }
        return fold(acc);
    }

    /** Folds carries into 16 bits (result still a partial sum, not complemented). */
    public static int fold(long acc) {
        while ((acc >>> 16) != 0) {
            acc = (acc & 0xffff) + (acc >>> 16);
        }
        return (int) acc;
    }

    /** Final checksum value to store: complement of the folded sum. */
    public static int finish(int sum) {
        return ~fold(sum & 0xffffffffL) & 0xffff;
    }

    public static int of(MemorySegment s, long off, int len) {
        return finish(sum(s, off, len, 0));
    }

    /** Partial sum of the IPv4 pseudo-header used by TCP and UDP. */
    public static int pseudoHeader4(int src, int dst, int protocol, int l4Length) {
        long acc = (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + protocol + l4Length;
        return fold(acc);
    }

    /**
     * Whether len bytes at off, their checksum field included, sum to zero with pseudo (a
     * pseudo-header's partial sum, or 0) added: the check of every checksum the codecs verify.
     */
    public static boolean verify(MemorySegment s, long off, int len, int pseudo) {
        return finish(sum(s, off, len, pseudo)) == 0;
    }

    /** Partial sum of the IPv6 pseudo-header (RFC 8200 section 8.1) used by TCP, UDP and ICMPv6. */
    public static int pseudoHeader6(long srcHi, long srcLo, long dstHi, long dstLo, int protocol, int l4Length) {
        long acc = (srcHi >>> 32) + (srcHi & 0xffffffffL) + (srcLo >>> 32) + (srcLo & 0xffffffffL)
                + (dstHi >>> 32) + (dstHi & 0xffffffffL) + (dstLo >>> 32) + (dstLo & 0xffffffffL)
                + (l4Length & 0xffffffffL) + protocol;
        return fold(acc);
    }
}
