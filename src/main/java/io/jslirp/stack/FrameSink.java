package io.jslirp.stack;

import java.lang.foreign.MemorySegment;

/** Takes complete Ethernet frames from the stack toward the guest. */
@FunctionalInterface
public interface FrameSink {
    /** Sends length bytes at offset 0 of frame; false when the frame could not be queued. */
    boolean send(MemorySegment frame, int length);

    /**
     * Whether {@link #sendTcp} may be used: the receiver completes TCP checksums and splits
     * large TCP frames into segments itself (a tap device with offloads).
     */
    default boolean offloadsTcp() {
        return false;
    }

    /**
     * Sends an IPv4 or IPv6 TCP frame whose checksum field holds only the pseudo-header sum; a payload
     * larger than segmentSize reaches the guest as segments of segmentSize bytes (TSO).
     */
    default boolean sendTcp(MemorySegment frame, int length, int segmentSize) {
        throw new UnsupportedOperationException("this link does not offload TCP");
    }
}
