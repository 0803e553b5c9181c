package io.jslirp.tcp;

import java.lang.foreign.MemorySegment;

/** Where a connection writes the segments it sends to the guest; the IP layer below fills in the rest. */
public interface TcpOutput {
    /** The frame buffer a segment is built in; reused for every segment. */
    MemorySegment frame();

    /** Offset in {@link #frame()} where the TCP header starts (room for link and IP headers before it). */
    long tcpOffset();

    /** Sends the TCP segment of tcpLength bytes at {@link #tcpOffset()} from source to destination (IPv4, host order). */
    void sendTcp4(int source, int destination, int tcpLength);
}
