package io.jslirp.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Native memory for the ring buffers of one engine, in blocks whose sizes are powers of two. A
 * ring holds a block only while it holds bytes, so thousands of idle connections cost no buffer
 * memory; blocks given back are kept for reuse (up to a quarter of the budget, at most
 * {@link #KEEP_FREE_BYTES}) so a busy flow does not go to malloc for every burst, and
 * {@link #trim} returns those that lay unused since the trim before: after a burst the pool
 * shrinks back to what its flows still reuse.
 *
 * <p>The budget bounds what rings may grow to beyond their first size, all rings together: the
 * buffer memory of an engine is at most its budget plus the first size of each ring that holds
 * bytes. A ring that may not grow keeps working at its size (and so its window). Data beyond a
 * gap gets a first block only within an eighth of the budget ({@link #takesGaps}).
 * Single-threaded (the event loop's).
 */
public final class BufferPool {
    /**
     * The most bytes of free blocks any pool keeps for reuse; more is returned to the system. Two
     * MiB cover the blocks bulk flows hand back and take again (iperf3 at MTU 1500 and 65520, both
     * ways: no allocation, bench/alloc.sh); 8 MiB kept after 10,000 connections' bursts were 8 MiB
     * of the instance's peak until the next trim.
     */
    static final long KEEP_FREE_BYTES = 2L << 20;
    private static final int MAX_SHIFT = 30;
    /** Data beyond a gap takes new blocks only while those in use are under budget / GAP_SHARE. */
    static final int GAP_SHARE = 8;

    private final long budget;
    /** Free blocks kept for reuse, in bytes: a quarter of the budget, at most {@link #KEEP_FREE_BYTES}. */
    private final long keepFree;
    private final ArrayDeque<Block>[] free;
    /** Of each size, the fewest blocks free at once since the last {@link #trim}: so many went unused. */
    private final int[] fewestFree;
    private long inUse;
    private long freeBytes;
    private long peak;
    private long reserved;

    /** A block and the arena that frees it. */
    record Block(Arena arena, MemorySegment memory) {}

    /** A pool whose blocks in use may grow past a ring's first size only while they total at most budget bytes. */
    @SuppressWarnings("unchecked")
    public BufferPool(long budget) {
        if (budget <= 0) throw new IllegalArgumentException("buffer budget must be positive: " + budget);
        this.budget = budget;
        this.keepFree = Math.min(KEEP_FREE_BYTES, budget / 4);
        this.free = new ArrayDeque[MAX_SHIFT + 1];
        for (int i = 0; i <= MAX_SHIFT; i++) free[i] = new ArrayDeque<>();
        this.fewestFree = new int[MAX_SHIFT + 1];
    }

    /** Bytes in free blocks kept for reuse. */
    public long freeBytes() {
        return freeBytes;
    }

    /**
     * Returns to the system the free blocks that no ring took since the last trim (of each size,
     * as many as stayed free all along), so what a burst left behind goes once it is over and
     * what a steady flow keeps reusing stays. Returns the bytes freed.
     */
    public long trim() {
        long freed = 0;
        for (int shift = 0; shift <= MAX_SHIFT; shift++) {
            ArrayDeque<Block> blocks = free[shift];
            for (int n = fewestFree[shift]; n > 0; n--) {
                blocks.pollLast().arena().close(); // the least recently given back
                freed += 1L << shift;
            }
            fewestFree[shift] = blocks.size();
        }
        freeBytes -= freed;
        return freed;
    }

    /**
     * Whether data beyond a gap may take a ring its first block: while the blocks rings hold are
     * under an eighth of the budget. Bytes that can wait are better refused (the guest resends
     * them with the gap) than kept by thousands of connections at once, as they were when many
     * connections sent at once and the tap dropped frames (docs/benchmarks.md, Why the code is as it is).
     */
    public boolean takesGaps() {
        return inUse < budget / GAP_SHARE;
    }

    /** Bytes in blocks that rings hold now. */
    public long inUse() {
        return inUse;
    }

    /** The most bytes rings held at once. */
    public long peak() {
        return peak;
    }

    /** Bytes rings grew by beyond their first size, held against the budget until they release their memory or close. */
    public long reserved() {
        return reserved;
    }

    /** Bytes of the budget no ring has reserved: what rings may still grow by, together. */
    public long unreserved() {
        return budget - reserved;
    }

    /** Reserves bytes of growth within the budget; false (nothing reserved) when they do not fit. */
    boolean reserve(long bytes) {
        if (reserved + bytes > budget) return false;
        reserved += bytes;
        return true;
    }

    void unreserve(long bytes) {
        reserved -= bytes;
    }

    /** A block of at least size bytes (the next power of two); always granted, so a ring can hold its first bytes. */
    Block take(int size) {
        int shift = shiftOf(roundUp(size));
        size = 1 << shift;
        Block b = free[shift].poll();
        if (b != null) {
            freeBytes -= size;
            fewestFree[shift] = Math.min(fewestFree[shift], free[shift].size());
        } else {
            Arena arena = Arena.ofConfined();
            b = new Block(arena, arena.allocate(size, 64));
        }
        inUse += size;
        peak = Math.max(peak, inUse);
        return b;
    }

    /** Takes back a block from {@link #take}. */
    void give(Block b) {
        int size = (int) b.memory().byteSize();
        inUse -= size;
        if (freeBytes + size <= keepFree) {
            free[shiftOf(size)].push(b);
            freeBytes += size;
        } else {
            b.arena().close();
        }
    }

    private static int roundUp(int size) {
        return size <= 1 ? 1 : Integer.highestOneBit(size - 1) << 1;
    }

    private static int shiftOf(int size) {
        if (size <= 0 || Integer.bitCount(size) != 1) throw new IllegalArgumentException("block size must be a power of two: " + size);
        return Integer.numberOfTrailingZeros(size);
    }
}
