package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * One UDP datagram from the guest, read once: its IP version and addresses (as the handles the
 * stack holds for the call), its ports and where its payload lies. Filled by {@link Udp#read}
 * (and the addresses by the IP input) after the datagram was checked. Reused for every datagram:
 * valid for the call it is handed to only.
 */
public final class UdpDatagram extends Addressed {
    private int sourcePort, destinationPort;
    private MemorySegment frame;
    private long payloadOffset;
    private int payloadLength;

    /** Fills the ports and the payload's place from the checked header at off of s. */
    void fill(MemorySegment s, long off) {
        frame = s;
        sourcePort = Udp.sourcePort(s, off);
        destinationPort = Udp.destinationPort(s, off);
        payloadOffset = off + Udp.HEADER_LENGTH;
        payloadLength = Udp.length(s, off) - Udp.HEADER_LENGTH;
    }

    public int sourcePort() {
        return sourcePort;
    }

    public int destinationPort() {
        return destinationPort;
    }

    /** The frame holding the datagram. */
    public MemorySegment frame() {
        return frame;
    }

    /** Where the payload starts in {@link #frame}. */
    public long payloadOffset() {
        return payloadOffset;
    }

    public int payloadLength() {
        return payloadLength;
    }
}
