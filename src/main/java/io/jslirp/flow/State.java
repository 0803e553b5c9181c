package io.jslirp.flow;

/**
 * Where a flow is in its life, as the table knows it (a TCP connection's own state toward the
 * guest is finer: it is the flow's {@link Flow#detail}). Changes go through
 * {@link Flows#transition}, the one place that makes them, and logs them with --debug.
 */
public enum State {
    /** Being opened: a host connect in progress, or a SYN toward the guest not answered yet. */
    OPENING,
    /** Carrying data. */
    OPEN,
    /** The host side is gone; the guest side lingers (TCP's TIME_WAIT toward the guest). */
    CLOSING,
    /** Over: no longer in the table. */
    CLOSED
}
