package io.jslirp.wire;

/**
 * The fields of a TCP header to write ({@link Tcp#write}): set by name, not by position, and
 * reused for every segment an output builds (it describes the one at hand only). The checksum and
 * the urgent pointer are written as 0; the options are written into the frame before, and
 * {@link #length} counts them.
 */
public final class TcpHeader {
    private int sourcePort, destinationPort, seq, ack, flags, window;
    private int length = Tcp.MIN_HEADER_LENGTH;

    public TcpHeader ports(int sourcePort, int destinationPort) {
        this.sourcePort = sourcePort;
        this.destinationPort = destinationPort;
        return this;
    }

    public TcpHeader seq(int seq) {
        this.seq = seq;
        return this;
    }

    public TcpHeader ack(int ack) {
        this.ack = ack;
        return this;
    }

    /** The flags ({@link Tcp#SYN} and the others). */
    public TcpHeader flags(int flags) {
        this.flags = flags;
        return this;
    }

    /** The window field as sent (already scaled down). */
    public TcpHeader window(int window) {
        this.window = window;
        return this;
    }

    /** The header's length: 20 and the options (a multiple of 4). */
    public TcpHeader length(int length) {
        this.length = length;
        return this;
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

    public int flags() {
        return flags;
    }

    public int window() {
        return window;
    }

    public int length() {
        return length;
    }
}
