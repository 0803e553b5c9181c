package io.jslirp.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Test support: native and heap segments holding given bytes, sized exactly so out-of-bounds reads throw. */
final class Segs {
    /** Where a segment's memory lives; every codec must work on both. */
    enum Kind { NATIVE, HEAP }

    private Segs() {}

    /** A zero-filled segment of exactly size bytes. */
    static MemorySegment allocate(Kind kind, Arena arena, long size) {
        return switch (kind) {
            case NATIVE -> arena.allocate(size, 1);
            case HEAP -> MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        };
    }

    /** A segment of exactly bytes.length bytes holding a copy of bytes. */
    static MemorySegment of(Kind kind, Arena arena, byte[] bytes) {
        MemorySegment s = allocate(kind, arena, bytes.length);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s;
    }

    static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Parses hex text, ignoring whitespace: "4500 0073" -> {0x45, 0x00, 0x00, 0x73}. */
    static byte[] hex(String text) {
        String t = text.replaceAll("\\s+", "");
        byte[] b = new byte[t.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(t.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
}
