package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * The framing of QEMU's stream netdevs ({@code -netdev stream}, and {@code -netdev socket} over
 * TCP): each Ethernet frame follows its length.
 * <pre>
 *  0               1               2               3
 * +-------------------------------------------------------------+
 * |                  frame length (big-endian)                  |
 * +-------------------------------------------------------------+
 * |                Ethernet frame (length bytes) ...            |
 * </pre>
 */
public final class QemuStream {
    /** Offset of the length field; the frame follows it. */
    public static final int LENGTH = 0, FRAME = 4;
    /** Bytes before each frame. */
    public static final int PREFIX_LENGTH = FRAME;

    private QemuStream() {}

    /** The length of the frame whose prefix is at off (as an unsigned value in an int: a huge one is negative). */
    public static int frameLength(MemorySegment s, long off) {
        return Bytes.u32(s, off + LENGTH);
    }

    public static void setFrameLength(MemorySegment s, long off, int length) {
        Bytes.u32(s, off + LENGTH, length);
    }
}
