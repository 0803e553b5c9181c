package io.jslirp.tcp;

import io.jslirp.wire.Tcp;

import java.lang.foreign.MemorySegment;

/**
 * Builds a connection's segments toward the guest into the output's frame and sends them: the
 * header with the receiver's window and options, the payload from where it waits. It tells the
 * {@link Receiver} what each ACK acknowledged and offered.
 */
final class SegmentWriter {
    private final TcpOutput out;
    /** The flow's addresses and ports (copied: one object less per connection). */
    private final int guestAddress, guestPort, remoteAddress, remotePort;
    private final Receiver receiver;
    /** Payload per segment toward the guest (the guest's MSS less our options). */
    private final int sendMss;
    /** The clock at the latest event, for the timestamps of segments sent while handling it. */
    private long now;

    SegmentWriter(TcpOutput out, FlowAddresses addresses, Receiver receiver, int sendMss) {
        this.out = out;
        this.guestAddress = addresses.guestAddress();
        this.guestPort = addresses.guestPort();
        this.remoteAddress = addresses.remoteAddress();
        this.remotePort = addresses.remotePort();
        this.receiver = receiver;
        this.sendMss = sendMss;
    }

    /** The clock of the event being handled. */
    void now(long now) {
        this.now = now;
    }

    long now() {
        return now;
    }

    /** Payload per segment toward the guest. */
    int sendMss() {
        return sendMss;
    }

    /** Our timestamp clock: milliseconds (RFC 7323 allows 1 ms to 1 s per tick). */
    private int tsVal() {
        return (int) (now / 1_000_000L);
    }

    /** Whether the output takes segments larger than one, which the link cuts for the guest (TSO). */
    boolean largeSegments() {
        return out.largeSegments();
    }

    /** Sends a segment without payload. */
    void send(int seq, int ack, int flags) {
        send(seq, ack, flags, null, 0, 0);
    }

    /** Sends a segment with len bytes of payload at dataOffset of data (none when len is 0). */
    void send(int seq, int ack, int flags, MemorySegment data, long dataOffset, int len) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        boolean reset = (flags & Tcp.RST) != 0;
        int window = reset ? 0 : receiver.advertisableWindow(); // a reset may follow the close, when the buffers are gone
        int hdr = Tcp.MIN_HEADER_LENGTH;
        if (!reset) hdr = receiver.appendOptions(f, off, hdr, tsVal());
        Tcp.write(f, off, out.tcpHeader().ports(remotePort, guestPort).seq(seq).ack(ack).flags(flags)
                .window(window >>> receiver.rcvShift()).length(hdr));
        if (len > 0) out.sendTcp(remoteAddress, guestAddress, data, dataOffset, len, sendMss);
        else out.sendTcp(remoteAddress, guestAddress, hdr, sendMss);
        if ((flags & Tcp.ACK) != 0) receiver.ackSent(ack, window);
        if (len > 0) receiver.dataSent();
    }

    /** Sends the SYN of a connection we open toward the guest, offering window (see {@link TcpConnection#sendSyn}). */
    static void sendSyn(TcpContext context, FlowAddresses addresses, int iss, int window, long now) {
        TcpOutput out = context.out();
        TcpConfig config = context.config();
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        int hdr = Tcp.writeSynOptions(f, off, config.mss(), config.windowShift());
        hdr = Tcp.appendTimestamps(f, off, hdr, (int) (now / 1_000_000L), 0);
        hdr = Tcp.appendSackPermitted(f, off, hdr);
        Tcp.write(f, off, out.tcpHeader().ports(addresses.remotePort(), addresses.guestPort()).seq(iss).ack(0).flags(Tcp.SYN)
                .window(window).length(hdr));
        out.sendTcp(addresses.remoteAddress(), addresses.guestAddress(), hdr);
    }

    /** Sends our SYN-ACK with sequence number iss, announcing mss and offering what the guest's SYN did. */
    void sendSynAck(int iss, int mss) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        int hdr = Tcp.writeSynOptions(f, off, mss, receiver.windowScale());
        if (receiver.timestamps()) hdr = Tcp.appendTimestamps(f, off, hdr, tsVal(), receiver.tsRecent());
        // SACK on: the guest then recovers from loss and reordering by our SACK blocks, and its
        // blocks steer our recovery (SackRecovery).
        if (receiver.sackPermitted()) hdr = Tcp.appendSackPermitted(f, off, hdr);
        int window = receiver.synWindow(); // never scaled in a SYN
        int rcvNxt = receiver.rcvNxt();
        Tcp.write(f, off, out.tcpHeader().ports(remotePort, guestPort).seq(iss).ack(rcvNxt).flags(Tcp.SYN | Tcp.ACK).window(window)
                .length(hdr));
        out.sendTcp(remoteAddress, guestAddress, hdr);
        receiver.ackSent(rcvNxt, window);
    }
}
