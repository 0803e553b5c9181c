package io.jslirp.tcp;

import java.lang.foreign.MemorySegment;

/** What a connection tells the host side of its flow; everything else the host side reads from the connection. */
public interface TcpHostSide {
    /**
     * The connection is over. With reset, the guest reset it (or it was aborted): the host peer
     * must see a reset too; otherwise both directions finished in order.
     */
    void closed(boolean reset);

    /**
     * Offers guest data that is next in the stream, with nothing buffered before it, straight to
     * the host socket, so a large segment is not copied into the connection's buffer first.
     * Returns how many bytes the socket took: 0 when it takes none now (full, not connected yet,
     * or failing: the connection then buffers the bytes and the next flush meets the error).
     */
    int writeToHost(MemorySegment data, long offset, int length);
}
