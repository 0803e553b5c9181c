package io.jslirp.embed;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Frames waiting for the network's thread, copied into one preallocated native ring (no
 * allocation per frame): each frame is a 4-byte length and its bytes, padded to 4. A frame that
 * would not fit before the end of the ring starts again at its beginning, after a -1 marker.
 * Any number of threads may offer; one thread polls.
 */
final class FrameQueue {
    private static final int SKIP = -1;
    private final MemorySegment ring;
    private final int capacity;
    private int head, tail, used;

    /** A ring of capacity bytes (rounded up to a multiple of 4). */
    FrameQueue(int capacity) {
        this.capacity = (capacity + 3) & ~3;
        this.ring = Arena.ofAuto().allocate(this.capacity, 4);
    }

    private static int recordSize(int length) {
        return 4 + ((length + 3) & ~3);
    }

    /** Copies length bytes at offset of frame in; false when there is no room for them. */
    synchronized boolean offer(MemorySegment frame, long offset, int length) {
        int need = recordSize(length);
        int at = tail;
        int skip = at + need > capacity ? capacity - at : 0;
        if (capacity - used < skip + need) return false;
        if (skip > 0) {
            ring.set(ValueLayout.JAVA_INT, at, SKIP);
            used += skip;
            at = 0;
        }
        ring.set(ValueLayout.JAVA_INT, at, length);
        MemorySegment.copy(frame, offset, ring, at + 4, length);
        used += need;
        tail = at + need == capacity ? 0 : at + need;
        return true;
    }

    /** Copies the oldest frame to the start of buffer and returns its length, or 0 when none waits. */
    synchronized int poll(MemorySegment buffer) {
        if (used == 0) return 0;
        if (ring.get(ValueLayout.JAVA_INT, head) == SKIP) {
            used -= capacity - head;
            head = 0;
        }
        int length = ring.get(ValueLayout.JAVA_INT, head);
        MemorySegment.copy(ring, head + 4, buffer, 0, length);
        int size = recordSize(length);
        used -= size;
        head = head + size == capacity ? 0 : head + size;
        return length;
    }
}
