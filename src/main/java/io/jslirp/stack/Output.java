package io.jslirp.stack;

import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The one output toward the guest, for both IP versions: puts the Ethernet and IP headers (the
 * version's codec) in front of a payload already in a frame, describes the frame for the link
 * ({@link TxFrame}: its flow's hash for a link with several queues), sends a datagram larger than
 * the MTU in fragments (IPv4's flags, IPv6's Fragment header), and counts what goes out and what
 * the link refuses. How TCP segments go out (copied, gathered, offloaded) is the {@link Transmit}
 * picked for the link, which sends through here. Each version's {@link IpOutput} keeps its frame
 * buffer with the payload at {@link #payloadOffset}.
 */
final class Output {
    private final FrameSink sink;
    /** The frames sent and not written out yet: the owner of their payloads until the link's flush. */
    private final TxBatch batch;
    /** Whether the link spreads flows over queues: only then is each frame's flow hashed. */
    private final boolean flowKeys;
    private final Counters counters;
    private final long gatewayMac;
    private final int mtu;
    /** Fragments are built here, so the datagram in the version's frame stays intact. */
    private final MemorySegment fragmentTx;
    private final IpHeader fragment = new IpHeader();
    /** The description every frame goes to the link with. */
    private final TxFrame described = new TxFrame();
    private int ipv4Id, ipv6Id;

    Output(FrameSink sink, LinkCapabilities capabilities, Counters counters, long gatewayMac, int mtu) {
        this.sink = sink;
        this.batch = new TxBatch(sink, capabilities);
        this.flowKeys = capabilities.spreadsFlows();
        this.counters = counters;
        this.gatewayMac = gatewayMac;
        this.mtu = mtu;
        this.fragmentTx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + mtu + 64, 64);
    }

    /** The frames sent and not written out yet ({@link TxBatch}). */
    TxBatch batch() {
        return batch;
    }

    /** Where the IP payload of version v starts in an outgoing frame. */
    static int payloadOffset(IpVersion v) {
        return Ethernet.HEADER_LENGTH + v.headerLength();
    }

    /** A frame buffer for version v: room for the largest datagram's payload after the headers. */
    static MemorySegment frame(IpVersion v) {
        return Arena.ofAuto().allocate(payloadOffset(v) + v.maxPayload() + 64, 64);
    }

    Counters counters() {
        return counters;
    }

    long gatewayMac() {
        return gatewayMac;
    }

    int mtu() {
        return mtu;
    }

    /** A new identification for a datagram of version v (IPv4's 16 bits; IPv6's 32, used by fragments only). */
    private int nextId(IpVersion v) {
        return v == IpVersion.V4 ? ipv4Id++ & 0xffff : ++ipv6Id;
    }

    /**
     * Sends the datagram h describes, its h.payloadLength() bytes at {@link #payloadOffset} in tx,
     * checksums filled, to the Ethernet address mac: whole when it fits the MTU, else in fragments.
     */
    void send(IpVersion v, MemorySegment tx, IpHeader h, long mac) {
        if (v.headerLength() + h.payloadLength() > mtu) {
            h.id(nextId(v));
            sendFragments(v, tx, h, mac);
            return;
        }
        send(describe(v, tx, h, mac));
    }

    /**
     * Writes the headers of the datagram h describes (a new identification), whose payload is at
     * {@link #payloadOffset} in tx, to the Ethernet address mac, and describes the frame: whole,
     * its checksums filled, not to be cut; the caller may say more before {@link #send(TxFrame)}.
     */
    TxFrame describe(IpVersion v, MemorySegment tx, IpHeader h, long mac) {
        writeHeaders(v, tx, h.whole().id(nextId(v)), mac);
        int l4 = payloadOffset(v);
        return described.whole(tx, l4 + h.payloadLength(), flowKeys ? TxFrame.flowKey(v, h, tx, l4) : 0);
    }

    /** Sends the frame f describes, counting it sent or dropped. */
    void send(TxFrame f) {
        count(sink.send(f));
    }

    /** Sends the frame f describes, counting it only when sent: false when not (the caller sends its content otherwise). */
    boolean sendIfTaken(TxFrame f) {
        boolean sent = sink.send(f);
        if (sent) counters.framesOut++;
        return sent;
    }

    /** A frame already whole (ARP). */
    void sendFrame(MemorySegment frame, int length) {
        count(sink.send(frame, length));
    }

    private void writeHeaders(IpVersion v, MemorySegment tx, IpHeader h, long mac) {
        Ethernet.write(tx, 0, mac, gatewayMac, v.etherType());
        v.write(tx, Ethernet.HEADER_LENGTH, h);
    }

    /** Cuts the datagram in tx into fragments of whole 8-byte units that fit the MTU (RFC 791, RFC 8200 section 4.5). */
    private void sendFragments(IpVersion v, MemorySegment tx, IpHeader h, long mac) {
        int piece = (mtu - v.headerLength() - v.fragmentHeaderLength()) & ~7;
        int length = h.payloadLength();
        int key = 0; // the same for every fragment: their addresses and protocol
        for (int at = 0; at < length; at += piece) {
            int n = Math.min(piece, length - at);
            fragment.source(h.sourceHi(), h.sourceLo()).destination(h.destinationHi(), h.destinationLo())
                    .protocol(h.protocol()).ttl(h.ttl()).id(h.id()).payloadLength(n).fragment(at, at + n < length);
            Ethernet.write(fragmentTx, 0, mac, gatewayMac, v.etherType());
            int headers = Ethernet.HEADER_LENGTH + v.write(fragmentTx, Ethernet.HEADER_LENGTH, fragment);
            MemorySegment.copy(tx, payloadOffset(v) + at, fragmentTx, headers, n);
            if (at == 0 && flowKeys) key = TxFrame.flowKey(v, fragment, fragmentTx, headers);
            send(described.whole(fragmentTx, headers + n, key));
        }
    }

    private void count(boolean sent) {
        if (sent) counters.framesOut++;
        else counters.dropped(Drop.NOT_SENT);
    }
}
