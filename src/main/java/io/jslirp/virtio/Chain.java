package io.jslirp.virtio;

import java.lang.foreign.MemorySegment;

/**
 * A descriptor chain popped from a {@link Virtqueue}: its head (what goes back in the used ring)
 * and its buffers, device-readable ones first, each a region of guest memory, an offset in it and
 * a length. A descriptor that crosses from one region into the next is kept as two pieces. One
 * flyweight per queue, overwritten by the next pop: the packet path copies what it needs before.
 */
public final class Chain {
    private final GuestMemory memory;
    private final int[] region;
    private final long[] offset;
    private final int[] length;
    private int head = -1;
    private int count;
    private int readable;
    private long readableBytes;
    private long writableBytes;

    Chain(GuestMemory memory, int capacity) {
        this.memory = memory;
        this.region = new int[capacity];
        this.offset = new long[capacity];
        this.length = new int[capacity];
    }

    void reset(int head) {
        this.head = head;
        count = readable = 0;
        readableBytes = writableBytes = 0;
    }

    /** Adds a piece; false when the chain already holds as many as it can. */
    boolean add(int r, long off, int len, boolean writable) {
        if (count == region.length) return false;
        region[count] = r;
        offset[count] = off;
        length[count] = len;
        count++;
        if (writable) writableBytes += len;
        else {
            readable++;
            readableBytes += len;
        }
        return true;
    }

    boolean hasWritable() {
        return count > readable;
    }

    /** The index of the head descriptor: what {@link Virtqueue#push} takes back. */
    public int head() {
        return head;
    }

    /** Buffers (pieces) in the chain, readable ones first. */
    public int buffers() {
        return count;
    }

    /** How many of the first buffers are device-readable; the rest are device-writable. */
    public int readableBuffers() {
        return readable;
    }

    public MemorySegment segment(int i) {
        return memory.segment(region[i]);
    }

    public long offset(int i) {
        return offset[i];
    }

    public int length(int i) {
        return length[i];
    }

    /** Bytes in the device-readable buffers: what the driver sent. */
    public long readableBytes() {
        return readableBytes;
    }

    /** Room in the device-writable buffers. */
    public long writableBytes() {
        return writableBytes;
    }

    /** Copies up to len readable bytes from position from (0 is the first readable byte) to dst; returns how many. */
    public long read(long from, MemorySegment dst, long dstOffset, long len) {
        return copy(0, readable, from, dst, dstOffset, len, false);
    }

    /** Copies up to len bytes of src into the writable buffers from position at (0 is the first writable byte); returns how many. */
    public long write(long at, MemorySegment src, long srcOffset, long len) {
        return copy(readable, count, at, src, srcOffset, len, true);
    }

    private long copy(int from, int to, long skip, MemorySegment other, long otherOffset, long len, boolean toGuest) {
        long done = 0;
        for (int i = from; i < to && done < len; i++) {
            if (skip >= length[i]) {
                skip -= length[i];
                continue;
            }
            long n = Math.min(length[i] - skip, len - done);
            if (toGuest) MemorySegment.copy(other, otherOffset + done, segment(i), offset[i] + skip, n);
            else MemorySegment.copy(segment(i), offset[i] + skip, other, otherOffset + done, n);
            done += n;
            skip = 0;
        }
        return done;
    }
}
