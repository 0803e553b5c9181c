package io.jslirp.tcp;

import io.jslirp.wire.Tcp;

import java.lang.foreign.MemorySegment;

/** Resets for segments that belong to no connection (RFC 9293 section 3.10.7.1). */
public final class Resets {
    private Resets() {}

    /**
     * Answers the segment of len bytes at off, sent by source to destination, with a RST from
     * destination, unless it is itself a RST.
     */
    public static void answer(MemorySegment s, long off, int len, int source, int destination, TcpOutput out) {
        int flags = Tcp.flags(s, off);
        if ((flags & Tcp.RST) != 0) return;
        int seq = 0;
        int ack = 0;
        int outFlags = Tcp.RST;
        if ((flags & Tcp.ACK) != 0) {
            seq = Tcp.ack(s, off);
        } else {
            int segLen = len - Tcp.headerLength(s, off) + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
            ack = Tcp.seq(s, off) + segLen;
            outFlags |= Tcp.ACK;
        }
        int sourcePort = Tcp.sourcePort(s, off);
        int destinationPort = Tcp.destinationPort(s, off);
        MemorySegment f = out.frame();
        long o = out.tcpOffset();
        Tcp.write(f, o, destinationPort, sourcePort, seq, ack, outFlags, 0, Tcp.MIN_HEADER_LENGTH);
        out.sendTcp(destination, source, Tcp.MIN_HEADER_LENGTH);
    }
}
