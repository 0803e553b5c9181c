package io.jslirp.wire;

/** TCP sequence-number arithmetic modulo 2^32 (RFC 9293 section 3.4). */
public final class Seq {
    private Seq() {}

    public static boolean lt(int a, int b) {
        return a - b < 0;
    }

    public static boolean le(int a, int b) {
        return a - b <= 0;
    }

    public static boolean gt(int a, int b) {
        return a - b > 0;
    }

    public static boolean ge(int a, int b) {
        return a - b >= 0;
    }

    /** True when start <= x < start + size. */
    public static boolean inWindow(int x, int start, int size) {
        return Integer.compareUnsigned(x - start, size) < 0;
    }
}
