package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * One TCP segment from the guest, read once: its IP version and addresses (as the handles the
 * stack holds for the call), its header's fields (the {@link TcpHeader} description the writer
 * takes too), its parsed options and where its payload lies.
 * Filled by {@link Tcp#read} (and the addresses by the IP input) after the header was checked;
 * the transports and the TCP state machine read it instead of the frame's bytes. Reused for
 * every segment: valid for the call it is handed to only (what must outlive it is copied).
 */
public final class TcpSegment extends Inbound {
    private final TcpHeader header = new TcpHeader();
    private final TcpOptions options = new TcpOptions();

    /** Fills the header's fields from the checked header at off (length bytes with the payload) of s. */
    void fill(MemorySegment s, long off, int len) {
        place(s, off, len);
        Tcp.fill(s, off, header);
    }

    /** The header's fields (the window as sent, not scaled), as {@link Tcp#write} takes them. */
    public TcpHeader header() {
        return header;
    }

    /** The options, parsed in the header's check. */
    public TcpOptions options() {
        return options;
    }

    /** Where the payload starts in {@link #frame}. */
    public long payloadOffset() {
        return offset() + header.length();
    }

    public int payloadLength() {
        return length() - header.length();
    }

    /** How much sequence space the segment takes: its payload, and one each for SYN and FIN. */
    public int sequenceLength() {
        int flags = header.flags();
        return payloadLength() + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
    }
}
