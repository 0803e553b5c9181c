package io.jslirp.tcp;

import io.jslirp.wire.Seq;

/**
 * The round-trip time toward the guest and the retransmission timeout that follows from it (RFC
 * 6298), with the back-off of retransmissions. A sample comes from the timestamp the guest echoes
 * (RFC 7323), or without timestamps from timing one segment at a time (Karn: never a
 * retransmitted one, so timing stops when a retransmission goes).
 */
final class RttEstimator {
    private long rto = TcpConfig.INITIAL_RTO_NANOS;
    /** The smoothed round-trip time, or -1 before the first sample. */
    private long srtt = -1;
    private long rttvar;
    /** Retransmissions of the oldest unacknowledged segment since the guest last acknowledged new data. */
    private int retransmissions;
    /** Whether one segment is being timed: the ACK of timedSeq, taken at timedAt. */
    private boolean timing;
    private int timedSeq;
    private long timedAt;

    long rto() {
        return rto;
    }

    /** The smoothed round-trip time, or -1 before the first sample. */
    long srtt() {
        return srtt;
    }

    long rttvar() {
        return rttvar;
    }

    /** Takes one round-trip sample (RFC 6298 section 2), with a clock granularity of 1 ms. */
    void sample(long r) {
        if (srtt < 0) {
            srtt = r;
            rttvar = r / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - r)) / 4;
            srtt = (7 * srtt + r) / 8;
        }
        rto = Math.clamp(srtt + Math.max(4 * rttvar, 1_000_000L), TcpConfig.MIN_RTO_NANOS, TcpConfig.MAX_RTO_NANOS);
    }

    /** A segment ending at endSeq goes out for the first time at now: time it, unless one is timed already. */
    void segmentSent(int endSeq, long now) {
        if (timing) return;
        timing = true;
        timedSeq = endSeq;
        timedAt = now;
    }

    /** Whether a segment is being timed (a new one is not timed meanwhile). */
    boolean timing() {
        return timing;
    }

    /** A retransmission went (or recovery began): the timed segment's ACK would no longer say how long one round trip took. */
    void stopTiming() {
        timing = false;
    }

    /**
     * The guest acknowledged new data up to ack at now; tsEcr is the timestamp it echoed (in
     * milliseconds of our clock), or 0 for none. Also ends the back-off.
     */
    void acknowledged(int ack, int tsEcr, long now) {
        if (tsEcr != 0) {
            sample(Math.max(0, (now / 1_000_000L - (tsEcr & 0xffffffffL)) & 0xffffffffL) * 1_000_000L);
            timing = false;
        } else if (timing && Seq.ge(ack, timedSeq)) {
            sample(now - timedAt);
            timing = false;
        }
        retransmissions = 0;
    }

    /** Doubles the RTO for a retransmission; false when the guest stopped answering (too many already). */
    boolean backOff() {
        if (++retransmissions > TcpConfig.MAX_RETRANSMISSIONS) return false;
        doubleRto();
        return true;
    }

    /** Doubles the RTO without counting a retransmission (a zero-window probe). */
    void doubleRto() {
        rto = Math.min(rto * 2, TcpConfig.MAX_RTO_NANOS);
    }

    /** The handshake completed: its retransmissions no longer count. */
    void resetBackOff() {
        retransmissions = 0;
    }

    /** How long after a retransmission a still-reported hole means the retransmission was lost too. */
    long lostRetransmissionDelay() {
        return Math.max(2 * Math.max(srtt, 0), 2_000_000L);
    }
}
