package io.jslirp.wire;

/**
 * Independent reference implementations over plain byte arrays; they never call the code under test.
 * The checksum is the textbook RFC 1071 loop: add 16-bit big-endian words (an odd last byte padded
 * with a zero byte), fold the carries back in, complement.
 */
final class Ref {
    private Ref() {}

    /** Ones' complement sum of len bytes at off, plus initial, folded to 16 bits (not complemented). */
    static int sum(byte[] b, int off, int len, long initial) {
        long acc = initial;
        for (int i = 0; i < len; i += 2) {
            int hi = b[off + i] & 0xff;
            int lo = i + 1 < len ? b[off + i + 1] & 0xff : 0;
            acc += (hi << 8) | lo;
        }
        while (acc > 0xffff) acc = (acc >> 16) + (acc & 0xffff);
        return (int) acc;
    }

    static int checksum(byte[] b, int off, int len) {
        return ~sum(b, off, len, 0) & 0xffff;
    }

    static int checksum(byte[] b) {
        return checksum(b, 0, b.length);
    }

    /** The 12-byte IPv4 pseudo-header of RFC 793 / RFC 768. */
    static byte[] pseudoHeader4(int src, int dst, int protocol, int length) {
        byte[] p = new byte[12];
        put32(p, 0, src);
        put32(p, 4, dst);
        p[8] = 0;
        p[9] = (byte) protocol;
        put16(p, 10, length);
        return p;
    }

    /** The 40-byte IPv6 pseudo-header of RFC 8200 section 8.1 for 16-byte addresses. */
    static byte[] pseudoHeader6(byte[] src, byte[] dst, int protocol, int length) {
        byte[] p = new byte[40];
        System.arraycopy(src, 0, p, 0, 16);
        System.arraycopy(dst, 0, p, 16, 16);
        put32(p, 32, length);
        p[39] = (byte) protocol;
        return p;
    }

    /** The 16 bytes of an IPv6 address given as its two big-endian halves. */
    static byte[] address6(long hi, long lo) {
        byte[] b = new byte[16];
        for (int k = 0; k < 8; k++) {
            b[k] = (byte) (hi >>> (56 - 8 * k));
            b[8 + k] = (byte) (lo >>> (56 - 8 * k));
        }
        return b;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static int u8(byte[] b, int i) {
        return b[i] & 0xff;
    }

    static int u16(byte[] b, int i) {
        return ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff);
    }

    static int u32(byte[] b, int i) {
        return (u16(b, i) << 16) | u16(b, i + 2);
    }

    static long mac(byte[] b, int i) {
        long m = 0;
        for (int k = 0; k < 6; k++) m = (m << 8) | (b[i + k] & 0xff);
        return m;
    }

    static void put16(byte[] b, int i, int v) {
        b[i] = (byte) (v >> 8);
        b[i + 1] = (byte) v;
    }

    static void put32(byte[] b, int i, int v) {
        put16(b, i, v >>> 16);
        put16(b, i + 2, v);
    }

    static void putMac(byte[] b, int i, long mac) {
        for (int k = 0; k < 6; k++) b[i + k] = (byte) (mac >> (40 - 8 * k));
    }
}
