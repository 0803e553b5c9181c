package io.jslirp.virtio;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Little-endian field access on a memory segment: virtio 1.x rings and the vhost-user wire format
 * are little-endian whatever the host, so the order is written out rather than taken from the
 * platform.
 */
public final class Le {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Le() {}

    public static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xffff;
    }

    /** An unsigned 32-bit field, as an int holding its bits (callers widen with {@code & 0xffffffffL}). */
    public static int u32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    public static long u64(MemorySegment s, long off) {
        return s.get(U64, off);
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
}
