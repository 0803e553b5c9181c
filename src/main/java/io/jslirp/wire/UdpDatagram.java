package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * One UDP datagram from the guest, read once: its IP version and addresses (as the handles the
 * stack holds for the call), its ports and where its payload lies. Filled by {@link Udp#read}
 * (and the addresses by the IP input) after the datagram was checked. Reused for every datagram:
 * valid for the call it is handed to only.
 */
public final class UdpDatagram extends Inbound {
    private int sourcePort, destinationPort;

    /** Fills the ports and the datagram's place (the length its header gives) from the checked header at off of s. */
    void fill(MemorySegment s, long off) {
        place(s, off, Udp.length(s, off));
        sourcePort = Udp.sourcePort(s, off);
        destinationPort = Udp.destinationPort(s, off);
    }

    public int sourcePort() {
        return sourcePort;
    }

    public int destinationPort() {
        return destinationPort;
    }

    /** Where the payload starts in {@link #frame}. */
    public long payloadOffset() {
        return offset() + Udp.HEADER_LENGTH;
    }

    public int payloadLength() {
        return length() - Udp.HEADER_LENGTH;
    }
}
