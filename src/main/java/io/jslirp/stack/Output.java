package io.jslirp.stack;

import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The one output toward the guest, for both IP versions: puts the Ethernet and IP headers (the
 * version's codec) in front of a payload already in a frame, sends TCP whole or for the link to
 * cut (TSO), and a datagram larger than the MTU in fragments (IPv4's flags, IPv6's Fragment
 * header), counting what goes out and what the link refuses. Each version's {@link IpOutput} keeps
 * its frame buffer with the payload at {@link #payloadOffset}.
 */
final class Output {
    private final FrameSink sink;
    private final Counters counters;
    private final long gatewayMac;
    private final int mtu;
    /** Fragments are built here, so the datagram in the version's frame stays intact. */
    private final MemorySegment fragmentTx;
    private final IpHeader fragment = new IpHeader();
    private int ipv4Id, ipv6Id;

    Output(FrameSink sink, Counters counters, long gatewayMac, int mtu) {
        this.sink = sink;
        this.counters = counters;
        this.gatewayMac = gatewayMac;
        this.mtu = mtu;
        this.fragmentTx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + mtu + 64, 64);
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

    boolean offloadsTcp() {
        return sink.offloadsTcp();
    }

    boolean offloadsUdp() {
        return sink.offloadsUdp();
    }

    /** A new identification for a datagram of version v (IPv4's 16 bits; IPv6's 32, used by fragments only). */
    private int nextId(IpVersion v) {
        return v == IpVersion.V4 ? ipv4Id++ & 0xffff : ++ipv6Id;
    }

    /**
     * Sends the datagram h describes, its h.payloadLength() bytes at {@link #payloadOffset} in tx,
     * to the Ethernet address mac: whole when it fits the MTU, else in fragments.
     */
    void send(IpVersion v, MemorySegment tx, IpHeader h, long mac) {
        h.id(nextId(v));
        if (v.headerLength() + h.payloadLength() > mtu) {
            sendFragments(v, tx, h, mac);
            return;
        }
        writeHeaders(v, tx, h.whole(), mac);
        count(sink.send(tx, payloadOffset(v) + h.payloadLength()));
    }

    /**
     * Sends the datagram h describes, within the MTU, whose payload is a transport header of
     * headerLength bytes at {@link #payloadOffset} in tx followed by payloadLength bytes of payload
     * from payloadOffset, checksums filled: the link writes that payload from where it is.
     */
    void send(IpVersion v, MemorySegment tx, IpHeader h, long mac, int headerLength, MemorySegment payload,
              long payloadOffset, int payloadLength) {
        writeHeaders(v, tx, h.whole().id(nextId(v)), mac);
        count(sink.send(tx, payloadOffset(v) + headerLength, payload, payloadOffset, payloadLength));
    }

    /** A TCP segment whose checksum field holds the pseudo-header sum, for the link to complete and cut into segmentSize pieces. */
    void sendTcp(IpVersion v, MemorySegment tx, IpHeader h, long mac, int segmentSize) {
        writeHeaders(v, tx, h.whole().id(nextId(v)), mac);
        count(sink.sendTcp(tx, payloadOffset(v) + h.payloadLength(), segmentSize));
    }

    /** As {@link #sendTcp(IpVersion, MemorySegment, IpHeader, long, int)}, its payload written from where it is. */
    void sendTcp(IpVersion v, MemorySegment tx, IpHeader h, long mac, int headerLength, MemorySegment payload,
                 long payloadOffset, int payloadLength, int segmentSize) {
        writeHeaders(v, tx, h.whole().id(nextId(v)), mac);
        count(sink.sendTcp(tx, payloadOffset(v) + headerLength, payload, payloadOffset, payloadLength, segmentSize));
    }

    /** A UDP frame of datagrams of segmentSize bytes for the link to cut (USO); false when the link did not send it. */
    boolean sendUdpSegments(IpVersion v, MemorySegment tx, IpHeader h, long mac, int segmentSize) {
        writeHeaders(v, tx, h.whole().id(nextId(v)), mac);
        boolean sent = sink.sendUdpSegments(tx, payloadOffset(v) + h.payloadLength(), segmentSize);
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
        for (int at = 0; at < length; at += piece) {
            int n = Math.min(piece, length - at);
            fragment.source(h.sourceHi(), h.sourceLo()).destination(h.destinationHi(), h.destinationLo())
                    .protocol(h.protocol()).ttl(h.ttl()).id(h.id()).payloadLength(n).fragment(at, at + n < length);
            Ethernet.write(fragmentTx, 0, mac, gatewayMac, v.etherType());
            int headers = Ethernet.HEADER_LENGTH + v.write(fragmentTx, Ethernet.HEADER_LENGTH, fragment);
            MemorySegment.copy(tx, payloadOffset(v) + at, fragmentTx, headers, n);
            count(sink.send(fragmentTx, headers + n));
        }
    }

    private void count(boolean sent) {
        if (sent) counters.framesOut++;
        else counters.dropped(Drop.NOT_SENT);
    }
}
