package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The Internet checksum (RFC 1071): ones' complement sum of 16-bit words. */
public final class Checksum {
    /** 32-bit words in little-endian order: x86's own, so plain loads, which C2 turns into vector code. */
    private static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Checksum() {}

    /**
     * Adds len bytes at off to a running 32-bit-folded partial sum.
     *
     * <p>The bytes are summed as little-endian 32-bit words into a long (carries kept in its upper
     * half), and the folded sum's two bytes are swapped at the end: the ones' complement sum is
     * byte-order independent (RFC 1071 section 2(B)), and 32-bit words summed with a plain
     * zero-extending add make a loop that C2 vectorizes, several times as fast as big-endian 64-bit
     * words summed by halves (bench/jmh.sh's ChecksumBench; docs/benchmarks.md, Why the code is as
     * it is). The last one to three bytes are added in network order after the swap.
     */
    public static int sum(MemorySegment s, long off, int len, int initial) {
        int words = len & ~3;
        long acc = 0;
        for (int i = 0; i < words; i += 4) {
            acc += s.get(LE32, off + i) & 0xffffffffL;
        }
        long sum = swap16(fold(acc)) + (initial & 0xffffffffL);
        int i = words;
        if (i + 2 <= len) {
            sum += Bytes.u16(s, off + i);
            i += 2;
        }
        if (i < len) {
            sum += Bytes.u8(s, off + i) << 8;
        }
        return fold(sum);
    }

    /** The sum of the four 16-bit words of a 64-bit big-endian word (a partial sum, not folded). */
    public static int words(long w) {
        return (int) ((w >>> 48) + ((w >>> 32) & 0xffff) + ((w >>> 16) & 0xffff) + (w & 0xffff));
    }

    /** The sum of the two 16-bit words of a 32-bit big-endian word (a partial sum, not folded). */
    public static int words(int w) {
        return (w >>> 16) + (w & 0xffff);
    }

    /** The two bytes of a 16-bit value swapped. */
    private static int swap16(int v) {
        return ((v & 0xff) << 8) | (v >>> 8);
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
