package io.jslirp.stack;

import java.lang.foreign.MemorySegment;

/** Takes complete Ethernet frames from the stack toward the guest. */
@FunctionalInterface
public interface FrameSink {
    /** Sends length bytes at offset 0 of frame; false when the frame could not be queued. */
    boolean send(MemorySegment frame, int length);
}
