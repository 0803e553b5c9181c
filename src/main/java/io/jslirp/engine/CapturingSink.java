package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.stack.FrameSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The link as the stack's sink, recording each frame the link takes: TSO frames as they are
 * (larger than the MTU, with only the pseudo-header checksum), as tcpdump on the tap would show
 * them. Only in the chain with --pcap, so without it sending costs nothing more.
 */
final class CapturingSink implements FrameSink {
    private final FrameSink link;
    private final Capture capture;
    /** A frame whose payload the link took from a ring, put together for the capture. */
    private final MemorySegment whole = Arena.ofAuto().allocate(1 << 17);

    CapturingSink(FrameSink link, Capture capture) {
        this.link = link;
        this.capture = capture;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        if (!link.send(frame, length)) return false;
        capture.frame(frame, length);
        return true;
    }

    /** The link writes the payload from where it is; the capture gets the frame put together. */
    @Override
    public boolean send(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        if (!link.send(frame, headersLength, payload, payloadOffset, payloadLength)) return false;
        captureWhole(frame, headersLength, payload, payloadOffset, payloadLength);
        return true;
    }

    @Override
    public void flush() {
        link.flush();
    }

    @Override
    public boolean gathersPayloads() {
        return link.gathersPayloads();
    }

    @Override
    public boolean offloadsTcp() {
        return link.offloadsTcp();
    }

    @Override
    public boolean sendTcp(MemorySegment frame, int length, int segmentSize) {
        if (!link.sendTcp(frame, length, segmentSize)) return false;
        capture.frame(frame, length);
        return true;
    }

    @Override
    public boolean offloadsUdp() {
        return link.offloadsUdp();
    }

    @Override
    public boolean sendUdpSegments(MemorySegment frame, int length, int segmentSize) {
        if (!link.sendUdpSegments(frame, length, segmentSize)) return false;
        capture.frame(frame, length);
        return true;
    }

    /** The link writes the payload from where it is; the capture gets the frame put together. */
    @Override
    public boolean sendTcp(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset,
                           int payloadLength, int segmentSize) {
        if (!link.sendTcp(frame, headersLength, payload, payloadOffset, payloadLength, segmentSize)) return false;
        captureWhole(frame, headersLength, payload, payloadOffset, payloadLength);
        return true;
    }

    private void captureWhole(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        MemorySegment.copy(frame, 0, whole, 0, headersLength);
        MemorySegment.copy(payload, payloadOffset, whole, headersLength, payloadLength);
        capture.frame(whole, headersLength + payloadLength);
    }
}
