package io.jslirp.stack;

import java.lang.foreign.MemorySegment;

/** Takes complete Ethernet frames from the stack toward the guest. */
@FunctionalInterface
public interface FrameSink {
    /** Sends length bytes at offset 0 of frame; false when the frame could not be queued. */
    boolean send(MemorySegment frame, int length);

    /**
     * Sends a complete frame (its checksums filled) of headersLength bytes of headers in frame,
     * followed by payloadLength bytes of payload from payloadOffset: a link that gathers writes
     * the payload from where it is, once, so the payload must stay as it is until the next
     * {@link #flush}; by default it is copied into frame after the headers (frame has room for it)
     * and the frame sent whole.
     */
    default boolean send(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        MemorySegment.copy(payload, payloadOffset, frame, headersLength, payloadLength);
        return send(frame, headersLength + payloadLength);
    }

    /**
     * Writes out what the sink gathered: at the end of each loop iteration, and before memory that
     * payloads were sent from is used again.
     */
    default void flush() {
    }

    /** Whether the sink may still read a payload handed to it after send returned (until {@link #flush}). */
    default boolean gathersPayloads() {
        return false;
    }

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

    /**
     * As {@link #sendTcp(MemorySegment, int, int)} for a frame of headersLength bytes of headers
     * in frame, followed by payloadLength bytes of payload from payloadOffset: written from there,
     * never copied into the frame.
     */
    default boolean sendTcp(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset,
                            int payloadLength, int segmentSize) {
        throw new UnsupportedOperationException("this link does not offload TCP");
    }

    /** Whether {@link #sendUdpSegments} may be tried: the receiver cuts one UDP frame into datagrams (USO). */
    default boolean offloadsUdp() {
        return false;
    }

    /**
     * Sends an IPv4 or IPv6 UDP frame whose payload is datagrams of segmentSize bytes each (the last
     * may be shorter) and whose checksum field holds only the pseudo-header sum: the receiver takes
     * it as those datagrams. False when it was not sent (a link that turns out not to take such
     * frames stops offering them): the caller sends the datagrams one by one.
     */
    default boolean sendUdpSegments(MemorySegment frame, int length, int segmentSize) {
        return false;
    }
}
