package io.jslirp.nat;

import io.jslirp.tcp.HostStream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where the NAT's flows peek their host sockets to: one window (valid until the next peek of any
 * of them), and, on kernels without SO_PEEK_OFF for TCP, an area for the bytes before each peek.
 */
final class PeekArea {
    /** The most bytes a peek without a peek offset skips (the guest's window rarely holds more in flight). */
    static final int MAX_SKIP = 16 << 20;

    /** Whether the kernel takes SO_PEEK_OFF for TCP (false from its first refusal on). */
    boolean peekOffsets = true;
    final MemorySegment window = Arena.ofAuto().allocate(HostStream.MAX_PEEK, 64);
    private MemorySegment skip;

    /** An area of at least bytes (at most {@link #MAX_SKIP}), taken on first need and grown by doubling. */
    MemorySegment skip(int bytes) {
        if (skip == null || skip.byteSize() < bytes) {
            long size = Math.max(skip == null ? 64 << 10 : skip.byteSize() * 2, bytes);
            skip = Arena.ofAuto().allocate(Math.min(size, MAX_SKIP), 64);
        }
        return skip;
    }
}
