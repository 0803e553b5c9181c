package io.jslirp.tcp;

import java.lang.foreign.MemorySegment;

/**
 * Where the bytes from the host toward the guest wait until the guest acknowledges them. For a
 * re-originated flow that is the host socket's own receive queue (read with MSG_PEEK, dropped once
 * acknowledged), so no copy of them is held in user space; a connection only ever looks at them
 * through a window of at most {@link #MAX_PEEK} bytes, valid until the next peek of any connection
 * (toward a link that writes payloads from where they wait, until the link wrote them out).
 */
public interface HostStream {
    /** {@link #peek} result: the host finished its stream, and no byte follows skip. */
    int END = -1;
    /** {@link #peek} result: the host socket failed (the peer reset it): the connection is over. */
    int FAILED = -2;
    /** The most bytes one {@link #peek} makes readable. */
    int MAX_PEEK = 1 << 16;

    /**
     * Makes up to length (at most {@link #MAX_PEEK}) bytes readable at {@link #memory()} from
     * {@link #offset()}, starting skip bytes after the oldest byte not yet acknowledged, without
     * consuming them. Returns how many: fewer than length when no more are there now (0 for none),
     * {@link #END} when the stream ended before any, or {@link #FAILED}.
     */
    int peek(int skip, int length);

    /** Where the latest {@link #peek} put its bytes. */
    MemorySegment memory();

    /** Offset in {@link #memory()} of the latest peek's first byte. */
    long offset();

    /** The guest acknowledged the oldest n bytes: they may go. */
    void acknowledged(int n);
}
