package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian (network order) field access on a memory segment at byte offsets.
 *
 * <p>Each access is a chain of the JDK's checks (bounds, liveness, alignment), some 25 methods
 * that C2 inlines into every compiled caller and the interpreter runs one by one: about 680 ns an
 * access before the JIT compiles the caller, and a share of each compilation's memory after
 * (docs/benchmarks.md, "What the interpreter spends a round trip on"). So headers written on every
 * frame pack adjacent fields into as few wide writes as their layout allows ({@link #u64}).
 */
public final class Bytes {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Bytes() {}

    public static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xff;
    }

    public static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xffff;
    }

    public static int u32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    public static long u64(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    /** A 48-bit MAC address as the low bits of a long. */
    public static long mac(MemorySegment s, long off) {
        return ((long) u16(s, off) << 32) | (u32(s, off + 2) & 0xffffffffL);
    }

    public static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    public static void u16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    public static void u32(MemorySegment s, long off, int v) {
        s.set(U32, off, v);
    }

    public static void u64(MemorySegment s, long off, long v) {
        s.set(U64, off, v);
    }

    /** Two 32-bit fields as one 64-bit big-endian word: hi's bytes first. */
    public static long pack(int hi, int lo) {
        return ((long) hi << 32) | (lo & 0xffffffffL);
    }

    public static void mac(MemorySegment s, long off, long mac) {
        u16(s, off, (int) (mac >>> 32));
        u32(s, off + 2, (int) mac);
    }
}
