package io.jslirp.tcp;

/**
 * A connection's deadlines, in nanoseconds of the caller's clock, each Long.MAX_VALUE when not
 * armed: the one timer of retransmission, zero-window persist and TIME_WAIT; the recovery probe
 * (resend the first hole when no duplicate ACK clocks recovery on); the held ACK. The caller runs
 * the connection's timer at the earliest ({@link #next}).
 */
final class Timers {
    static final long NEVER = Long.MAX_VALUE;

    private long retransmit = NEVER;
    private long recoveryProbe = NEVER;
    private long ackHold = NEVER;

    /** When the connection's timer must run next, or {@link #NEVER}. */
    long next() {
        return Math.min(Math.min(retransmit, recoveryProbe), ackHold);
    }

    long retransmit() {
        return retransmit;
    }

    void armRetransmit(long at) {
        retransmit = at;
    }

    void stopRetransmit() {
        retransmit = NEVER;
    }

    boolean retransmitStopped() {
        return retransmit == NEVER;
    }

    long recoveryProbe() {
        return recoveryProbe;
    }

    void armRecoveryProbe(long at) {
        recoveryProbe = at;
    }

    void stopRecoveryProbe() {
        recoveryProbe = NEVER;
    }

    long ackHold() {
        return ackHold;
    }

    /** Starts holding an ACK until at, unless one is held already; returns when it goes. */
    long holdAckUntil(long at) {
        if (ackHold == NEVER) ackHold = at;
        return ackHold;
    }

    void stopAckHold() {
        ackHold = NEVER;
    }

    /** The connection is over: nothing more is due. */
    void stopAll() {
        retransmit = NEVER;
        recoveryProbe = NEVER;
        ackHold = NEVER;
    }
}
