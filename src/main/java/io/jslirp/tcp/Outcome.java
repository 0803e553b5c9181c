package io.jslirp.tcp;

/**
 * What an event on a {@link TcpConnection} leaves its caller to do, as one value: send the
 * segments it made due at once ({@link #sendNow}: call {@link TcpConnection#sendNow}), forget the
 * connection ({@link #closed}; with {@link #resetHost} the host peer must see a reset), flush it
 * again in the next loop iteration ({@link #more}). The sixteen values are made once and shared:
 * returning one allocates nothing.
 */
public final class Outcome {
    static final int SEND_NOW = 1;
    static final int CLOSED = 2;
    static final int RESET_HOST = 4;
    static final int MORE = 8;

    private static final Outcome[] ALL = new Outcome[16];

    static {
        for (int i = 0; i < ALL.length; i++) ALL[i] = new Outcome(i);
    }

    /** Nothing to do. */
    public static final Outcome NOTHING = ALL[0];

    private final int bits;

    private Outcome(int bits) {
        this.bits = bits;
    }

    /** The value for these bits ({@link #SEND_NOW}, {@link #CLOSED}, {@link #RESET_HOST}, {@link #MORE}). */
    static Outcome of(int bits) {
        return ALL[bits];
    }

    /** Segments are due at once (before the next input): an ACK for data beyond a gap, a retransmission, a reset. */
    public boolean sendNow() {
        return (bits & SEND_NOW) != 0;
    }

    /** The connection is over; its buffers are released. */
    public boolean closed() {
        return (bits & CLOSED) != 0;
    }

    /** With {@link #closed}: the guest reset it (or it was given up): the host peer must see a reset too. */
    public boolean resetHost() {
        return (bits & RESET_HOST) != 0;
    }

    /**
     * Of a flush: it sent its burst toward the guest and the guest's window takes more: flush it
     * again in the next loop iteration, after the connections that have something new (lesson 3:
     * one bulk flow must not make a reply wait for its whole window).
     */
    public boolean more() {
        return (bits & MORE) != 0;
    }

    @Override
    public String toString() {
        if (bits == 0) return "nothing";
        StringBuilder b = new StringBuilder();
        if (sendNow()) b.append("send-now ");
        if (closed()) b.append(resetHost() ? "closed-reset-host " : "closed ");
        else if (resetHost()) b.append("reset-host ");
        if (more()) b.append("more ");
        return b.substring(0, b.length() - 1);
    }
}
