package io.jslirp.link;

import io.jslirp.virtio.RxFrames;
import io.jslirp.virtio.VirtioException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Frames toward the guest that found its receive ring without a free buffer, waiting in order
 * (each behind its virtio-net header) for the driver to add buffers. A burst the size of a
 * TCP window is larger than a ring of a few hundred buffers: dropped, its frames cost the guest's
 * TCP a retransmission each, where a moment later the guest has refilled the ring. Bounded as a
 * stream link's output buffer is; a frame that does not fit is dropped.
 */
final class RxBacklog {
    static final int CAPACITY = 2 << 20;
    private static final int PREFIX = 4, HEADER = RxFrames.HEADER;

    private final MemorySegment buffer = Arena.ofAuto().allocate(CAPACITY, 64);
    private int start, end;

    boolean isEmpty() {
        return start == end;
    }

    void clear() {
        start = end = 0;
    }

    /**
     * Queues a frame behind the virtio-net header's {@link RxFrames#HEADER} bytes: head's first
     * headLength bytes, then tailLength bytes of tail from tailOffset. False when there is no room.
     */
    boolean add(MemorySegment header, MemorySegment head, int headLength, MemorySegment tail, long tailOffset, int tailLength) {
        int length = headLength + tailLength;
        int need = PREFIX + HEADER + length;
        if (CAPACITY - end < need) {
            if (CAPACITY - (end - start) < need) return false;
            MemorySegment.copy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
        }
        buffer.set(ValueLayout.JAVA_INT_UNALIGNED, end, HEADER + length);
        MemorySegment.copy(header, 0, buffer, end + PREFIX, HEADER);
        MemorySegment.copy(head, 0, buffer, end + PREFIX + HEADER, headLength);
        if (tailLength > 0) MemorySegment.copy(tail, tailOffset, buffer, end + PREFIX + HEADER + headLength, tailLength);
        end += need;
        return true;
    }

    /**
     * Puts waiting frames into the ring, in order, until it has no room: the frames put. A frame
     * the ring can never take (too big without mergeable buffers) is dropped; a refusal by the
     * queue is thrown, the frame dropped.
     */
    int drain(RxFrames rx) throws VirtioException {
        int put = 0;
        while (start < end) {
            int length = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, start);
            int r;
            try {
                r = rx.put(buffer, start + PREFIX, length);
            } catch (VirtioException e) {
                next(length);
                throw e;
            }
            if (r == RxFrames.NO_ROOM) break;
            next(length);
            if (r > 0) put++;
        }
        return put;
    }

    private void next(int length) {
        start += PREFIX + length;
        if (start == end) start = end = 0;
    }
}
