package io.jslirp.vhostuser;

import io.jslirp.virtio.RegionTable;

/**
 * What the backend's caller is to do for a message, in order, before it sends the reply. Every
 * file descriptor that came with a message ends up in exactly one action: carried by a
 * {@link MapMemory} (the caller closes it once mapped), a {@link Kick}, {@link Call} or
 * {@link Err} (the caller keeps it until a {@link CloseFd} names it), or a {@link CloseFd}.
 */
public sealed interface Action {
    /** Map each region's descriptor from its offset for its size, build a GuestMemory of the table, hand it to {@code Backend.mapped}. */
    record MapMemory(RegionTable table, long[] mmapOffsets, int[] fds) implements Action {}

    /** Unmap the memory of the previous MapMemory (no ring uses it any more). */
    record UnmapMemory() implements Action {}

    /** Serve ring i now: {@code Backend.queue(i)} is its queue (even rings receive toward the guest, odd ones transmit). */
    record StartRing(int ring) implements Action {}

    /** Stop serving ring i (its queue is no longer valid). */
    record StopRing(int ring) implements Action {}

    /** Watch fd for ring i's kicks; fd -1: no descriptor, poll the ring instead. */
    record Kick(int ring, int fd) implements Action {}

    /** Signal fd to interrupt the driver of ring i; -1: none. */
    record Call(int ring, int fd) implements Action {}

    /** Signal fd when ring i is found broken; -1: none. */
    record Err(int ring, int fd) implements Action {}

    /** Close this descriptor: replaced, released, or come with a message that did not keep it. */
    record CloseFd(int fd) implements Action {}
}
