package io.jslirp.tcp;

import io.jslirp.wire.Seq;
import io.jslirp.wire.TcpOptions;

/**
 * Recovery guided by the guest's SACK blocks (RFC 2018, RFC 6675 in spirit): the ranges above
 * sndUna it reported are kept, and recovery resends only what lies between them, one hole a
 * duplicate ACK, in order. Until the guest reports a range it behaves as {@link NewRenoRecovery}.
 */
final class SackRecovery extends Recovery {
    /** The most ranges of ours the guest's SACK blocks are remembered as. */
    static final int SACKED_RANGES = 32;

    /** Ranges above sndUna the guest reported (none allocated until the first: most flows never lose a segment). */
    private OutOfOrder sacked = OutOfOrder.NONE;

    SackRecovery(int sendMss, RttEstimator rtt, Timers timers) {
        super(sendMss, rtt, timers);
    }

    @Override
    void sackBlocks(TcpOptions opts, int ack, int sndMax) {
        for (int i = 0; i < opts.sackBlocks; i++) {
            int left = opts.sackEdges[2 * i], right = opts.sackEdges[2 * i + 1];
            // Only blocks above the cumulative ACK and within what was sent (not D-SACK, not bogus).
            if (Seq.gt(left, ack) && Seq.lt(left, right) && Seq.le(right, sndMax)) {
                if (sacked == OutOfOrder.NONE) sacked = new OutOfOrder(SACKED_RANGES);
                sacked.add(left, right);
            }
        }
    }

    @Override
    void advance(int sndUna) {
        sacked.advance(sndUna);
    }

    @Override
    void forget() {
        sacked.clear();
    }

    @Override
    int gapAfter(int seq) {
        return sacked.gapAfter(seq, Integer.MAX_VALUE);
    }

    /** From sndUna, or past what this recovery already resent, skipping what the guest SACKed. */
    @Override
    boolean retransmitNextHole(int sndUna, int known, long now) {
        int from = sndUna;
        if (!sacked.isEmpty()) {
            if (Seq.gt(retransmitNext, from)) from = retransmitNext;
            from = sacked.skipCovered(from);
            if (!Seq.lt(from, sacked.highestEnd())) return false; // nothing below the highest SACK is missing
        }
        return resend(from, sndUna, known, now);
    }

    @Override
    boolean duplicateInRecovery(int sndUna, int known, long now) {
        return !sacked.isEmpty() && retransmitNextHole(sndUna, known, now);
    }

    /** The byte at sndUna is missing; when this recovery already resent past it, the next hole goes instead. */
    @Override
    boolean partialAck(int sndUna, int known, long now) {
        if (Seq.gt(retransmitNext, sndUna) && !sacked.isEmpty()) {
            firstHoleSentAt = now; // resent earlier in this recovery: give it a round trip from here
            return retransmitNextHole(sndUna, known, now);
        }
        retransmitNext = sndUna;
        return resend(sndUna, sndUna, known, now);
    }
}
