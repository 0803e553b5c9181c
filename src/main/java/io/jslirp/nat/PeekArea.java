package io.jslirp.nat;

import io.jslirp.stack.TxBatch;
import io.jslirp.tcp.HostStream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Where the NAT's flows peek their host sockets to: {@link #SLOTS} windows taken in turn, one per
 * peek, so that the frames cut from several peeks can wait, their payloads where they were peeked,
 * and reach the link in one write. The link's {@link TxBatch} owns what was sent from a window until
 * its flush: a window is used again only once the batch wrote out everything sent since it was
 * taken, else after the batch is flushed. On kernels without SO_PEEK_OFF for TCP, also an area for
 * the bytes before each peek.
 */
final class PeekArea {
    /** The most bytes a peek without a peek offset skips (the guest's window rarely holds more in flight). */
    static final int MAX_SKIP = 16 << 20;
    /**
     * Windows in turn: as many MTU-65520 frames go to a VM's socket in one write. Written one at a
     * time, the frames reached the guest spread out, and it took a receive interrupt for each where
     * passt, which writes frames in batches, cost fewer (docs/benchmarks.md, "Why the code is as it is").
     */
    static final int SLOTS = 4;

    /** Whether the kernel takes SO_PEEK_OFF for TCP (false from its first refusal on). */
    boolean peekOffsets = true;
    private final MemorySegment[] windows;
    /** The batch's mark when each window was last taken. */
    private final long[] marks;
    private int next;
    private final TxBatch batch;
    private MemorySegment skip;

    /** Windows whose payloads batch owns until its flush; for a link that takes each payload at once, one window serves every peek. */
    PeekArea(TxBatch batch) {
        this.batch = batch;
        // All at once, not on first use: a branch for that is taken only by a NAT's first peeks, so
        // C2, compiling by the warm-up's profile (jslirp qemu), made it a trap, which the VM's first
        // download then hit, sending the TCP sender (Sender.send) back to C1's code for much of it.
        this.windows = new MemorySegment[batch.holdsPayloads() ? SLOTS : 1];
        this.marks = new long[windows.length];
        Arrays.fill(marks, -1); // never handed out: free
        for (int i = 0; i < windows.length; i++) windows[i] = Arena.ofAuto().allocate(HostStream.MAX_PEEK, 64);
    }

    /**
     * The window the next peek goes to, valid until as many more are taken as there are windows:
     * each in turn, one whose payloads the link may still read only after the batch's flush.
     */
    MemorySegment nextWindow() {
        int i = next;
        // The turn moves on after the window is taken, not before: with one window, every peek
        // then goes the same way, a NAT's first among them (the VM's first download met a trap
        // in C2's code there, compiled on the warm-up's NAT, whose first peek was long past).
        next = i + 1 == windows.length ? 0 : i + 1;
        if (!batch.writtenOutSince(marks[i])) batch.flush();
        marks[i] = batch.mark();
        return windows[i];
    }

    /** An area of at least bytes (at most {@link #MAX_SKIP}), taken on first need and grown by doubling. */
    MemorySegment skip(int bytes) {
        if (skip == null || skip.byteSize() < bytes) {
            long size = Math.max(skip == null ? 64 << 10 : skip.byteSize() * 2, bytes);
            skip = Arena.ofAuto().allocate(Math.min(size, MAX_SKIP), 64);
        }
        return skip;
    }
}
