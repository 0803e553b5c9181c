package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.stack.FrameSink;

import java.lang.foreign.MemorySegment;

/**
 * The link as the stack's sink, recording each frame the link takes: TSO frames as they are
 * (larger than the MTU, with only the pseudo-header checksum), as tcpdump on the tap would show
 * them. Only in the chain with --pcap, so without it sending costs nothing more.
 */
final class CapturingSink implements FrameSink {
    private final FrameSink link;
    private final Capture capture;

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
}
