package io.jslirp.link;

import io.jslirp.stack.FrameSink;

import java.lang.foreign.MemorySegment;

/**
 * Where Ethernet frames come from and go to: a tap device, a VM's socket, an in-memory pair.
 * A link has one or more receive queues, each with its own descriptor to poll; a multi-queue
 * tap keeps each flow on one queue, so a backlog on one queue does not hold up the flows of another.
 */
public interface Link extends FrameSink, AutoCloseable {
    /** Number of receive queues (at least 1). */
    default int queues() {
        return 1;
    }

    /** Descriptor to poll for readable frames on the given queue. */
    int fd(int queue);

    /**
     * Reads one frame from the given queue into buffer (at most buffer's size); returns its
     * length, 0 when none is waiting, or -1 when the link is gone.
     */
    int receive(int queue, MemorySegment buffer);

    /**
     * Whether the frame {@link #receive} just returned needs no TCP/UDP checksum check: the
     * guest's kernel left the checksum to the device (a tap with vnet headers: the field then holds
     * only the pseudo-header sum) or vouched for it. Frames from elsewhere are checked.
     */
    default boolean checksumTrusted() {
        return false;
    }

    /**
     * Whether a frame waiting on a queue always leaves its descriptor readable to epoll (a tap:
     * the kernel holds the frames). A link that reads ahead and holds frames where epoll cannot
     * see them (a stream socket's partial reads) says no, and is read until it has none.
     */
    default boolean pollSeesEveryFrame() {
        return false;
    }

    @Override
    void close();
}
