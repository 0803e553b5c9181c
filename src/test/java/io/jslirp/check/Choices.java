package io.jslirp.check;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;

/**
 * The choices a fuzz scenario makes (which event next, which flags, how long), from a seeded
 * random generator for the property tests or from a fuzzer's bytes for the coverage-guided ones
 * (Jazzer's {@code @FuzzTest}). A recording source turns a random run into the bytes that replay
 * it: that is how the coverage-guided targets' seed corpora are made from the property tests'
 * scenarios.
 *
 * <p>Bytes encode each choice in as few bytes as its range needs (1, 2, 4 or 8), big-endian,
 * the value reduced into the range; once they run out every choice is the range's lowest value
 * and {@link #exhausted()} says so, which ends a scenario.
 */
public abstract class Choices {
    /** A value in [0, bound). */
    public final int nextInt(int bound) {
        return (int) nextLong(0, bound);
    }

    /** Any int. */
    public final int nextInt() {
        return (int) nextLong(Integer.MIN_VALUE, 1L << 31);
    }

    /** A long in [origin, bound). */
    public abstract long nextLong(long origin, long bound);

    /** Whether the bytes ran out (never, for a random source). */
    public abstract boolean exhausted();

    /** A value in [origin, bound). */
    public final int nextInt(int origin, int bound) {
        return (int) nextLong(origin, bound);
    }

    public final boolean nextBoolean() {
        return nextInt(2) == 1;
    }

    /** Any long. */
    public final long nextLong() {
        return ((long) nextInt() << 32) | (nextInt() & 0xffffffffL);
    }

    /** n bytes of any value. */
    public final byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) nextInt(256);
        return b;
    }

    /** Choices drawn from rnd. */
    public static Choices of(SplittableRandom rnd) {
        return new Random(rnd, null);
    }

    /** Choices read from a fuzzer's bytes. */
    public static Choices of(byte[] data) {
        return new Bytes(data);
    }

    /** Choices drawn from rnd, each written as the bytes {@link #of(byte[])} reads it back from. */
    public static Recording recording(SplittableRandom rnd) {
        return new Recording(rnd);
    }

    /** How many bytes a choice among span values takes. */
    private static int width(long span) {
        return span <= 0 || span > 1L << 32 ? 8 : span > 1 << 16 ? 4 : span > 1 << 8 ? 2 : 1;
    }

    private static class Random extends Choices {
        private final SplittableRandom rnd;
        private final ByteArrayOutputStream out;

        Random(SplittableRandom rnd, ByteArrayOutputStream out) {
            this.rnd = rnd;
            this.out = out;
        }

        @Override
        public long nextLong(long origin, long bound) {
            long span = bound - origin;
            long v = span <= 0 ? rnd.nextLong() : rnd.nextLong(origin, bound);
            if (out != null) {
                long offset = v - origin;
                for (int i = width(span) - 1; i >= 0; i--) out.write((int) (offset >>> (8 * i)));
            }
            return v;
        }

        @Override
        public boolean exhausted() {
            return false;
        }
    }

    /** A random source that keeps the bytes of what it chose. */
    public static final class Recording extends Random {
        private final ByteArrayOutputStream out;

        Recording(SplittableRandom rnd) {
            this(rnd, new ByteArrayOutputStream());
        }

        private Recording(SplittableRandom rnd, ByteArrayOutputStream out) {
            super(rnd, out);
            this.out = out;
        }

        /** The bytes that replay the choices made so far. */
        public byte[] bytes() {
            return out.toByteArray();
        }
    }

    private static final class Bytes extends Choices {
        private final byte[] data;
        private int at;

        Bytes(byte[] data) {
            this.data = data;
        }

        @Override
        public long nextLong(long origin, long bound) {
            long span = bound - origin;
            int n = width(span);
            if (at + n > data.length) {
                at = data.length + 1;
                return span <= 0 ? 0 : origin;
            }
            long v = 0;
            for (int i = 0; i < n; i++) v = v << 8 | (data[at++] & 0xff);
            return span <= 0 ? v : origin + Long.remainderUnsigned(v, span);
        }

        @Override
        public boolean exhausted() {
            return at > data.length;
        }
    }
}
