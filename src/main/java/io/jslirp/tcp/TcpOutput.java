package io.jslirp.tcp;

import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;

import java.lang.foreign.MemorySegment;

/** Where a connection writes the segments it sends to the guest; the IP layer below fills in the rest. */
public interface TcpOutput {
    /** The frame buffer a segment is built in; reused for every segment. */
    MemorySegment frame();

    /** Offset in {@link #frame()} where the TCP header starts (room for link and IP headers before it). */
    long tcpOffset();

    /** The description a segment's header is written from ({@link Tcp#write}); reused, like the frame, for every segment. */
    TcpHeader tcpHeader();

    /**
     * Whether {@link #sendTcp(int, int, int, int)} takes payloads larger than one segment (up to
     * 64 KiB), which the link splits for the guest (TSO).
     */
    default boolean largeSegments() {
        return false;
    }

    /**
     * Sends the TCP segment of tcpLength bytes (header and payload) at {@link #tcpOffset()} from
     * source to destination (IPv4 addresses in host order, or for IPv6 the handles of an
     * {@link io.jslirp.util.AddressBook}); a payload larger than segmentSize reaches the
     * guest as segments of segmentSize bytes (only where {@link #largeSegments()}).
     */
    void sendTcp(int source, int destination, int tcpLength, int segmentSize);

    /**
     * Sends a segment whose header, written from {@link #tcpHeader()} (whose length counts the
     * options), is at {@link #tcpOffset()} and whose payload is payloadLength bytes of payload from
     * payloadOffset: an output whose link can write them from there does so without copying them
     * into the frame; this one copies.
     */
    default void sendTcp(int source, int destination, MemorySegment payload, long payloadOffset, int payloadLength, int segmentSize) {
        int headerLength = tcpHeader().length();
        MemorySegment.copy(payload, payloadOffset, frame(), tcpOffset() + headerLength, payloadLength);
        sendTcp(source, destination, headerLength + payloadLength, segmentSize);
    }

    /** Sends one segment (see {@link #sendTcp(int, int, int, int)}). */
    default void sendTcp(int source, int destination, int tcpLength) {
        sendTcp(source, destination, tcpLength, Integer.MAX_VALUE);
    }
}
