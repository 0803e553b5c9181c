package io.jslirp.tcp;

import io.jslirp.wire.Seq;
import io.jslirp.wire.TcpOptions;

/**
 * Loss recovery toward the guest: fast retransmit after three duplicate ACKs, then fast recovery
 * until the guest acknowledges everything that was in flight when it began (RFC 6582). What to
 * resend during recovery is what the two kinds differ in: {@link NewRenoRecovery} resends the
 * first unacknowledged segment on each partial ACK; {@link SackRecovery}, for a guest that
 * permitted SACK, resends only the holes between the ranges the guest reported.
 *
 * <p>A retransmission it decides on is due at once: the methods that may decide one return true,
 * and {@link #dueLength()} bytes from {@link #dueFrom()} are then to be sent (sndUna and known,
 * passed in, are the oldest unacknowledged byte and how many bytes beyond it wait in the host
 * stream).
 */
abstract sealed class Recovery permits NewRenoRecovery, SackRecovery {
    private final int sendMss;
    private final RttEstimator rtt;
    private final Timers timers;

    private int dupAcks;
    private boolean inRecovery;
    /** Recovery ends when the guest acknowledges this (sndMax when it began). */
    private int recover;
    /** Where this recovery's next retransmission starts (past what it already resent). */
    int retransmitNext;
    /** When the segment at sndUna was last sent in this recovery. */
    long firstHoleSentAt;
    /** Recovery probes sent since the guest last acknowledged new data: each waits twice as long. */
    private int probes;
    /** The retransmission due, dueLength bytes from dueFrom (0 for none). */
    private int dueFrom, dueLength;

    Recovery(int sendMss, RttEstimator rtt, Timers timers) {
        this.sendMss = sendMss;
        this.rtt = rtt;
        this.timers = timers;
    }

    /** The recovery for a guest that permitted SACK (sackPermitted) or not. */
    static Recovery of(boolean sackPermitted, int sendMss, RttEstimator rtt, Timers timers) {
        return sackPermitted ? new SackRecovery(sendMss, rtt, timers) : new NewRenoRecovery(sendMss, rtt, timers);
    }

    boolean inRecovery() {
        return inRecovery;
    }

    int dueFrom() {
        return dueFrom;
    }

    int dueLength() {
        return dueLength;
    }

    /** The due retransmission was sent (or is not to be). */
    void clearDue() {
        dueLength = 0;
    }

    // ---- what the two kinds differ in ----

    /** The SACK blocks of a segment from the guest acknowledging ack; sndMax is the most we sent. */
    abstract void sackBlocks(TcpOptions opts, int ack, int sndMax);

    /** The guest acknowledged everything before sndUna. */
    abstract void advance(int sndUna);

    /** Forgets what the guest reported (a timeout: everything from sndUna goes again). */
    abstract void forget();

    /** How many bytes from seq the guest lacks before the next range it reported, or Integer.MAX_VALUE. */
    abstract int gapAfter(int seq);

    /** Resends one segment of the first range the guest lacks; false when none is due. */
    abstract boolean retransmitNextHole(int sndUna, int known, long now);

    /** A duplicate ACK during recovery that does not mean a lost retransmission: true when it clocks out a retransmission. */
    abstract boolean duplicateInRecovery(int sndUna, int known, long now);

    /** A partial ACK (some, not all, of what recovery waits for): true when a retransmission is due. */
    abstract boolean partialAck(int sndUna, int known, long now);

    // ---- the shared decisions ----

    /** The guest acknowledged new data up to sndUna (already advanced): true when a retransmission is due. */
    boolean newAck(int sndUna, int known, long now) {
        dupAcks = 0;
        if (!inRecovery) return false;
        probes = 0;
        if (Seq.ge(sndUna, recover)) {
            end();
            return false;
        }
        return partialAck(sndUna, known, now);
    }

    /**
     * A duplicate ACK (no data, same window, data in flight): the third begins recovery with a fast
     * retransmit. During recovery, when the guest still lacks sndUna's segment a round trip after it
     * was resent, that retransmission was lost too: it goes again at once instead of at the RTO.
     */
    boolean duplicateAck(int sndUna, int sndMax, int known, long now) {
        if (++dupAcks == 3 && !inRecovery) {
            inRecovery = true;
            recover = sndMax;
            retransmitNext = sndUna;
            rtt.stopTiming();
            return retransmitNextHole(sndUna, known, now);
        }
        if (!inRecovery) return false;
        if (now - firstHoleSentAt > rtt.lostRetransmissionDelay()) return resend(sndUna, sndUna, known, now);
        return duplicateInRecovery(sndUna, known, now);
    }

    /**
     * The recovery probe's time came ({@link Timers#recoveryProbe}): with the window full no
     * duplicate ACK clocks recovery on, so sndUna's segment goes again. True when it is due.
     */
    boolean probe(int sndUna, boolean inFlight, int known, long now) {
        timers.stopRecoveryProbe();
        if (!inRecovery || !inFlight) return false;
        probes++;
        return resend(sndUna, sndUna, known, now);
    }

    /** The retransmission timer fired: recovery is over, everything from sndUna goes again. */
    void timedOut() {
        end();
        forget();
    }

    /** Makes one segment from `from` (up to the next range the guest reported) due, and notes how far this recovery got. */
    boolean resend(int from, int sndUna, int known, long now) {
        int len = Math.min(Math.min(sendMss, sndUna + known - from), gapAfter(from));
        if (len <= 0) return false;
        dueFrom = from;
        dueLength = len;
        if (Seq.gt(from + len, retransmitNext)) retransmitNext = from + len;
        if (from == sndUna) {
            firstHoleSentAt = now;
            timers.armRecoveryProbe(now + Math.min(rtt.rto(), rtt.lostRetransmissionDelay() << Math.min(probes, 16)));
        }
        return true;
    }

    private void end() {
        inRecovery = false;
        timers.stopRecoveryProbe();
        probes = 0;
    }
}
