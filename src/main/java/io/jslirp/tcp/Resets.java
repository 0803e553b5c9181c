package io.jslirp.tcp;

import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpSegment;

import java.lang.foreign.MemorySegment;

/** Resets for segments that belong to no connection (RFC 9293 section 3.10.7.1). */
public final class Resets {
    private Resets() {}

    /** Answers the guest's segment seg with a RST from its destination, unless it is itself a RST. */
    public static void answer(TcpSegment seg, TcpOutput out) {
        int flags = seg.flags();
        if ((flags & Tcp.RST) != 0) return;
        int seq = 0;
        int ack = 0;
        int outFlags = Tcp.RST;
        if ((flags & Tcp.ACK) != 0) {
            seq = seg.ack();
        } else {
            ack = seg.seq() + seg.sequenceLength();
            outFlags |= Tcp.ACK;
        }
        int sourcePort = seg.sourcePort();
        int destinationPort = seg.destinationPort();
        MemorySegment f = out.frame();
        long o = out.tcpOffset();
        Tcp.write(f, o, destinationPort, sourcePort, seq, ack, outFlags, 0, Tcp.MIN_HEADER_LENGTH);
        out.sendTcp(seg.destination(), seg.source(), Tcp.MIN_HEADER_LENGTH);
    }
}
