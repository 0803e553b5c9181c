package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.stack.FrameSink;
import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;

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

    /** The link writes a payload from where it is; the capture gets the frame put together. */
    @Override
    public boolean send(TxFrame f) {
        if (!link.send(f)) return false;
        if (f.payloadLength() == 0) {
            capture.frame(f.frame(), f.frameLength());
        } else {
            MemorySegment.copy(f.frame(), 0, whole, 0, f.frameLength());
            MemorySegment.copy(f.payload(), f.payloadOffset(), whole, f.frameLength(), f.payloadLength());
            capture.frame(whole, f.length());
        }
        return true;
    }

    @Override
    public void flush() {
        link.flush();
    }

    @Override
    public LinkCapabilities capabilities() {
        return link.capabilities();
    }
}
