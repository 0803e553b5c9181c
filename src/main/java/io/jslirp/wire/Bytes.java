package io.jslirp.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on a memory segment at byte offsets. */
public final class Bytes {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

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
        u32(s, off, (int) (v >>> 32));
        u32(s, off + 4, (int) v);
    }

    public static void mac(MemorySegment s, long off, long mac) {
        u16(s, off, (int) (mac >>> 32));
        u32(s, off + 2, (int) mac);
    }
}
