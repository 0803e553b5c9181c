package io.jslirp.tcp;

import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpSegment;

import java.lang.foreign.MemorySegment;

/** Resets for segments that belong to no connection (RFC 9293 section 3.10.7.1). */
public final class Resets {
    private Resets() {}

    /** Answers the guest's segment seg with a RST from its destination, unless it is itself a RST. */
    public static void answer(TcpSegment seg, TcpOutput out) {
        TcpHeader h = seg.header();
        int flags = h.flags();
        if ((flags & Tcp.RST) != 0) return;
        int seq = 0;
        int ack = 0;
        int outFlags = Tcp.RST;
        if ((flags & Tcp.ACK) != 0) {
            seq = h.ack();
        } else {
            ack = h.seq() + seg.sequenceLength();
            outFlags |= Tcp.ACK;
        }
        MemorySegment f = out.frame();
        long o = out.tcpOffset();
        Tcp.write(f, o, out.tcpHeader().ports(h.destinationPort(), h.sourcePort()).seq(seq).ack(ack).flags(outFlags).window(0)
                .length(Tcp.MIN_HEADER_LENGTH));
        out.sendTcp(seg.destination(), seg.source(), Tcp.MIN_HEADER_LENGTH);
    }
}
