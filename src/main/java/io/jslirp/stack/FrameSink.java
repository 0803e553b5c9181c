package io.jslirp.stack;

import java.lang.foreign.MemorySegment;

/**
 * Takes Ethernet frames from the stack toward the guest: what a link is, seen from the stack. The
 * link states once what it can do ({@link #capabilities()}); the stack picks from that, when it is
 * built, how its segments go out, and hands each IP frame down with its description
 * ({@link #send(TxFrame)}), so the link reads back nothing the stack wrote.
 */
@FunctionalInterface
public interface FrameSink {
    /**
     * Sends length bytes at offset 0 of frame, a whole frame with its checksums filled and nothing
     * described (the stack's ARP frames; a link's own callers): false when it could not be queued.
     */
    boolean send(MemorySegment frame, int length);

    /** What the link can do, asked once, when the stack is built: by default whole frames only, on one queue. */
    default LinkCapabilities capabilities() {
        return LinkCapabilities.WHOLE_FRAMES;
    }

    /**
     * Sends the frame f describes: false when it could not be queued. Only what
     * {@link #capabilities()} allows comes this way: a payload from elsewhere to a link that
     * gathers or offloads, a partial checksum and cutting to a link that offloads. By default (a
     * link of whole frames, which needs nothing of the description) the frame is sent whole, a
     * payload from elsewhere copied after the headers (the frame buffer has room for it).
     */
    default boolean send(TxFrame f) {
        if (f.payloadLength() > 0) {
            MemorySegment.copy(f.payload(), f.payloadOffset(), f.frame(), f.frameLength(), f.payloadLength());
        }
        return send(f.frame(), f.length());
    }

    /**
     * Writes out what the sink gathered: at the end of each loop iteration, and before memory that
     * payloads were sent from is used again.
     */
    default void flush() {
    }
}
