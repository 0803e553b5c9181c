package io.jslirp.tcp;

import java.lang.foreign.MemorySegment;

/**
 * The host socket as the place the guest's in-order bytes go to at once: a large payload, or a
 * loop iteration's first, is written there before any copy (see {@link Receiver}); what it does
 * not take is buffered. Given with each guest segment ({@link TcpConnection#onSegment}).
 */
@FunctionalInterface
public interface HostSink {
    /** Writes up to length bytes at offset of data to the host socket now; returns how many it took (0 for none, or on failure). */
    int write(MemorySegment data, long offset, int length);
}
