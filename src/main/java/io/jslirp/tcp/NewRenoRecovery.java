package io.jslirp.tcp;

import io.jslirp.wire.TcpOptions;

/** Recovery without SACK (RFC 6582): each partial ACK resends the segment at the new sndUna. */
final class NewRenoRecovery extends Recovery {
    NewRenoRecovery(int sendMss, RttEstimator rtt, Timers timers) {
        super(sendMss, rtt, timers);
    }

    @Override
    void sackBlocks(TcpOptions opts, int ack, int sndMax) {
        // A guest that did not permit SACK sends no blocks; any it sends anyway tell us nothing.
    }

    @Override
    void advance(int sndUna) {
    }

    @Override
    void forget() {
    }

    @Override
    int gapAfter(int seq) {
        return Integer.MAX_VALUE;
    }

    @Override
    boolean retransmitNextHole(int sndUna, int known, long now) {
        return resend(sndUna, sndUna, known, now);
    }

    @Override
    boolean duplicateInRecovery(int sndUna, int known, long now) {
        return false; // the next retransmission waits for a partial ACK
    }

    @Override
    boolean partialAck(int sndUna, int known, long now) {
        retransmitNext = sndUna;
        return resend(sndUna, sndUna, known, now);
    }
}
