package io.jslirp.util;

import java.lang.foreign.MemorySegment;

/**
 * A byte FIFO in native memory, so its bytes can go to and from syscalls without copying. It
 * starts small and {@link #grow}s on demand up to a fixed maximum (within its pool's budget), and
 * takes its memory from the pool only while in use ({@link #release}), so idle flows cost little:
 * released, it holds none of the budget either, and {@link #resume} takes its size again.
 * Data occupies at most two contiguous spans (before and after the wrap):
 * {@link #readSpan}/{@link #readSpan2} for the bytes held, {@link #writeSpan}/{@link #writeSpan2}
 * for the free space. Single-threaded.
 */
public final class RingBuffer implements AutoCloseable {
    private final BufferPool pool;
    private final int firstCapacity;
    private final int maxCapacity;
    /** The memory, or null while released. */
    private BufferPool.Block block;
    private int capacity;
    /** The capacity it gave back at its last {@link #release}: what {@link #resume} grows it to again. */
    private int releasedCapacity;
    private int head;
    private int size;

    /** A buffer of capacity bytes that may grow to maxCapacity, with memory from pool. */
    public RingBuffer(BufferPool pool, int capacity, int maxCapacity) {
        if (capacity <= 0 || capacity > maxCapacity) throw new IllegalArgumentException("capacity " + capacity + " of at most " + maxCapacity);
        this.pool = pool;
        this.firstCapacity = capacity;
        this.maxCapacity = maxCapacity;
        this.capacity = capacity;
    }

    public int maxCapacity() {
        return maxCapacity;
    }

    /**
     * Doubles the capacity (up to the maximum), keeping the bytes held and those written ahead
     * at the same distance from the oldest byte. Returns false when already at the maximum or
     * when the pool's budget has no room for it.
     */
    public boolean grow() {
        if (capacity == maxCapacity) return false;
        int newCapacity = (int) Math.min((long) capacity * 2, maxCapacity);
        if (!pool.reserve(newCapacity - capacity)) return false;
        if (block != null) {
            BufferPool.Block bigger = pool.take(newCapacity);
            MemorySegment from = block.memory(), to = bigger.memory();
            int first = capacity - head;
            MemorySegment.copy(from, head, to, 0, first);
            MemorySegment.copy(from, 0, to, first, head);
            pool.give(block);
            block = bigger;
        }
        capacity = newCapacity;
        head = 0;
        return true;
    }

    /**
     * Gives the memory back to the pool, and what it grew by back to the budget: a buffer that grew
     * once and drained must not keep others from growing (10,000 connections that each buffered 16
     * KiB once held all of the 32 MiB budget while the buffers held 4 MiB, and a connection opened
     * after them was refused what its window had offered: ManyConnectionsIT). The next write takes
     * memory again. Only for a buffer that holds nothing and has nothing written ahead (the caller
     * knows the latter).
     */
    public void release() {
        if (size != 0) throw new IllegalStateException("release with " + size + " bytes held");
        if (block != null) {
            pool.give(block);
            block = null;
        }
        head = 0;
        if (capacity > firstCapacity) {
            pool.unreserve(capacity - firstCapacity);
            releasedCapacity = capacity;
            capacity = firstCapacity;
        }
    }

    /**
     * A released buffer grows back toward the capacity it gave back (at most limit), as the
     * budget allows, before it takes memory: a busy flow's buffer, released at the end of every
     * iteration that drained it, takes its block at full size again, without growing (and copying)
     * step by step. Does nothing to a buffer that holds memory.
     */
    public void resume(int limit) {
        int target = Math.min(releasedCapacity, limit);
        while (block == null && capacity < target && grow()) {
            // grown without copying: there is no block yet
        }
    }

    /** Whether the buffer holds memory from the pool now. */
    public boolean holdsMemory() {
        return block != null;
    }

    /** Gives everything back to the pool; the buffer must not be used afterwards. */
    @Override
    public void close() {
        if (block != null) {
            pool.give(block);
            block = null;
        }
        pool.unreserve(capacity - firstCapacity);
        size = 0;
    }

    /** The memory the offsets refer to (taken from the pool if the buffer had released it). */
    public MemorySegment memory() {
        if (block == null) block = pool.take(capacity);
        return block.memory();
    }

    public int capacity() {
        return capacity;
    }

    public int size() {
        return size;
    }

    public int free() {
        return capacity - size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Offset in {@link #memory()} of the first held byte. */
    public int readOffset() {
        return head;
    }

    /** Length of the first contiguous span of held bytes, starting at {@link #readOffset()}. */
    public int readSpan() {
        return Math.min(size, capacity - head);
    }

    /** Length of the second span of held bytes, starting at offset 0. */
    public int readSpan2() {
        return size - readSpan();
    }

    /** Offset in {@link #memory()} where the next appended byte goes. */
    public int writeOffset() {
        int tail = head + size;
        return tail >= capacity ? tail - capacity : tail;
    }

    /** Length of the first contiguous span of free space, starting at {@link #writeOffset()}. */
    public int writeSpan() {
        int tail = head + size;
        return tail >= capacity ? capacity - size : capacity - tail;
    }

    /** Length of the second span of free space, starting at offset 0. */
    public int writeSpan2() {
        return free() - writeSpan();
    }

    /** Records that n bytes were written into the free spans (e.g. by a read syscall). */
    public void commitWrite(int n) {
        if (n < 0 || n > free()) throw new IllegalArgumentException("commit " + n + " with " + free() + " free");
        size += n;
    }

    /** Drops the n oldest bytes. */
    public void discard(int n) {
        if (n < 0 || n > size) throw new IllegalArgumentException("discard " + n + " of " + size);
        head += n;
        if (head >= capacity) head -= capacity;
        size -= n; // head stays where it is even when empty: bytes written ahead sit relative to it
    }

    /** Appends up to len bytes from src; returns how many fitted. */
    public int append(MemorySegment src, long srcOffset, int len) {
        int n = Math.min(len, free());
        int first = Math.min(n, writeSpan());
        int at = writeOffset();
        MemorySegment memory = memory();
        MemorySegment.copy(src, srcOffset, memory, at, first);
        if (n > first) MemorySegment.copy(src, srcOffset + first, memory, 0, n - first);
        size += n;
        return n;
    }

    /**
     * Writes len bytes into the free space skip bytes past the newest held byte, without holding
     * them yet (for data that arrived ahead of a gap: {@link #commitWrite} takes it in once the
     * gap is filled). Returns how many fitted.
     */
    public int writeAhead(int skip, MemorySegment src, long srcOffset, int len) {
        int n = Math.min(len, free() - skip);
        if (skip < 0 || n <= 0) return 0;
        int at = head + size + skip;
        at %= capacity;
        int first = Math.min(n, capacity - at);
        MemorySegment memory = memory();
        MemorySegment.copy(src, srcOffset, memory, at, first);
        if (n > first) MemorySegment.copy(src, srcOffset + first, memory, 0, n - first);
        return n;
    }

    /** Offset in {@link #memory()} of the held byte skip bytes after the oldest. */
    public int offsetOf(int skip) {
        int at = head + skip;
        return at >= capacity ? at - capacity : at;
    }

    /** Of len held bytes from skip bytes after the oldest, how many lie before the wrap (the rest start at offset 0). */
    public int contiguous(int skip, int len) {
        return Math.min(len, capacity - offsetOf(skip));
    }

    /** Copies len held bytes starting skip bytes after the oldest into dst, without removing them. */
    public void peek(int skip, MemorySegment dst, long dstOffset, int len) {
        if (skip < 0 || len < 0 || skip + len > size) throw new IllegalArgumentException("peek " + skip + "+" + len + " of " + size);
        int start = offsetOf(skip);
        int first = contiguous(skip, len);
        MemorySegment memory = memory();
        MemorySegment.copy(memory, start, dst, dstOffset, first);
        if (len > first) MemorySegment.copy(memory, 0, dst, dstOffset + first, len - first);
    }
}
