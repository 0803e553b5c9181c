package io.jslirp.link;

import java.lang.foreign.MemorySegment;

/** Where Ethernet frames come from and go to: a tap device, a VM's socket, an in-memory pair. */
public interface Link extends AutoCloseable {
    /** Descriptor to poll for readable frames. */
    int fd();

    /**
     * Reads one frame into buffer (at most buffer's size); returns its length, 0 when none is
     * waiting, or -1 when the link is gone.
     */
    int receive(MemorySegment buffer);

    /** Sends length bytes at offset 0 of frame; false when the link could not take it. */
    boolean send(MemorySegment frame, int length);

    /** End of an event-loop iteration: a link that batches or holds frames sends them now. */
    default void flush() {
    }

    @Override
    void close();
}
