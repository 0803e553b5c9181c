package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * One TCP segment from the guest, read once: its IP version and addresses (as the handles the
 * stack holds for the call), its header's fields, its parsed options and where its payload lies.
 * Filled by {@link Tcp#read} (and the addresses by the IP input) after the header was checked;
 * the transports and the TCP state machine read it instead of the frame's bytes. Reused for
 * every segment: valid for the call it is handed to only (what must outlive it is copied).
 */
public final class TcpSegment extends Addressed {
    private int sourcePort, destinationPort, seq, ack, flags, window, headerLength;
    private final TcpOptions options = new TcpOptions();
    private MemorySegment frame;
    private long offset;
    private int length;

    /** Fills the header's fields from the checked header at off (length bytes with the payload) of s. */
    void fill(MemorySegment s, long off, int len) {
        frame = s;
        offset = off;
        length = len;
        sourcePort = Tcp.sourcePort(s, off);
        destinationPort = Tcp.destinationPort(s, off);
        seq = Tcp.seq(s, off);
        ack = Tcp.ack(s, off);
        flags = Tcp.flags(s, off);
        window = Tcp.window(s, off);
        headerLength = Tcp.headerLength(s, off);
    }

    public int sourcePort() {
        return sourcePort;
    }

    public int destinationPort() {
        return destinationPort;
    }

    public int seq() {
        return seq;
    }

    public int ack() {
        return ack;
    }

    /** The flags ({@link Tcp#SYN} and the others). */
    public int flags() {
        return flags;
    }

    /** Whether every flag of mask is set. */
    public boolean has(int mask) {
        return (flags & mask) == mask;
    }

    /** The window field as sent (not scaled). */
    public int window() {
        return window;
    }

    public int headerLength() {
        return headerLength;
    }

    /** The options, parsed in the header's check. */
    public TcpOptions options() {
        return options;
    }

    /** The frame holding the segment. */
    public MemorySegment frame() {
        return frame;
    }

    /** Where the TCP header starts in {@link #frame}. */
    public long offset() {
        return offset;
    }

    /** The segment's length: header and payload. */
    public int length() {
        return length;
    }

    /** Where the payload starts in {@link #frame}. */
    public long payloadOffset() {
        return offset + headerLength;
    }

    public int payloadLength() {
        return length - headerLength;
    }

    /** How much sequence space the segment takes: its payload, and one each for SYN and FIN. */
    public int sequenceLength() {
        return payloadLength() + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
    }
}
