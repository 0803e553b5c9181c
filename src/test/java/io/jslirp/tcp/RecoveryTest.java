package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.TcpOptions;
import org.junit.jupiter.api.Test;

/**
 * NewReno and SACK recovery decisions, without a connection: ten segments of MSS bytes are in
 * flight from UNA; the tests play the guest's ACKs and look at what each kind makes due.
 */
class RecoveryTest {
    private static final int MSS = 1000;
    private static final int UNA = 0x7fff_f000; // the sequence space wraps within the flight
    private static final int MAX = UNA + 10 * MSS;
    private static final long MS = 1_000_000L;
    private static final long NOW = 3_600_000 * MS;

    private final RttEstimator rtt = new RttEstimator();
    private final Timers timers = new Timers();
    private final TcpOptions opts = new TcpOptions();

    private Recovery recovery(boolean sack) {
        rtt.sample(10 * MS);
        return Recovery.of(sack, MSS, rtt, timers);
    }

    private void sack(Recovery r, int ack, int... edges) {
        opts.sackBlocks = edges.length / 2;
        System.arraycopy(edges, 0, opts.sackEdges, 0, edges.length);
        r.sackBlocks(opts, ack, MAX);
    }

    private static int seg(int i) {
        return UNA + i * MSS;
    }

    /** Two duplicate ACKs, then the third: returns what the third decided. */
    private boolean threeDuplicates(Recovery r, long now) {
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, now)).isFalse();
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, now)).isFalse();
        return r.duplicateAck(UNA, MAX, MAX - UNA, now);
    }

    @Test
    void theKindFollowsTheGuestsSackPermitted() {
        assertThat(Recovery.of(true, MSS, rtt, timers)).isInstanceOf(SackRecovery.class);
        assertThat(Recovery.of(false, MSS, rtt, timers)).isInstanceOf(NewRenoRecovery.class);
    }

    @Test
    void bothFastRetransmitTheFirstSegmentOnTheThirdDuplicate() {
        for (boolean sack : new boolean[] {false, true}) {
            Recovery r = recovery(sack);
            rtt.segmentSent(MAX, NOW);
            assertThat(threeDuplicates(r, NOW)).as("sack %s", sack).isTrue();
            assertThat(r.inRecovery()).isTrue();
            assertThat(r.dueFrom()).isEqualTo(UNA);
            assertThat(r.dueLength()).isEqualTo(MSS);
            assertThat(rtt.timing()).as("Karn: no sample across a retransmission").isFalse();
            assertThat(timers.recoveryProbe()).as("the probe waits two round trips").isEqualTo(NOW + 20 * MS);
        }
    }

    @Test
    void aPartialAckResendsTheNewFirstSegmentAndTheFullAckEndsRecovery() {
        for (boolean sack : new boolean[] {false, true}) {
            Recovery r = recovery(sack);
            threeDuplicates(r, NOW);
            r.clearDue();
            r.advance(seg(3));
            assertThat(r.newAck(seg(3), 7 * MSS, NOW + MS)).as("sack %s", sack).isTrue();
            assertThat(r.dueFrom()).isEqualTo(seg(3));
            assertThat(r.inRecovery()).isTrue();
            r.advance(MAX);
            assertThat(r.newAck(MAX, 0, NOW + 2 * MS)).isFalse();
            assertThat(r.inRecovery()).isFalse();
            assertThat(timers.recoveryProbe()).isEqualTo(Timers.NEVER);
        }
    }

    @Test
    void sackRecoveryResendsOnlyTheHolesOneADuplicate() {
        Recovery r = recovery(true);
        sack(r, UNA, seg(2), seg(4)); // segments 0, 1 and 4 on are missing
        sack(r, UNA, seg(5), seg(7));
        assertThat(threeDuplicates(r, NOW)).isTrue();
        assertThat(r.dueFrom()).isEqualTo(seg(0));
        assertThat(r.dueLength()).isEqualTo(MSS);
        r.clearDue();
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, NOW + MS)).isTrue();
        assertThat(r.dueFrom()).isEqualTo(seg(1));
        r.clearDue();
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, NOW + MS)).isTrue();
        assertThat(r.dueFrom()).as("past the SACKed segments 2 and 3").isEqualTo(seg(4));
        assertThat(r.dueLength()).as("up to the next SACKed range").isEqualTo(MSS);
        r.clearDue();
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, NOW + MS)).as("nothing below the highest SACK is missing").isFalse();
    }

    @Test
    void newRenoWaitsForAPartialAckWhereSackWalksOn() {
        Recovery r = recovery(false);
        sack(r, UNA, seg(2), seg(4)); // blocks a guest sends without having permitted SACK tell NewReno nothing
        threeDuplicates(r, NOW);
        assertThat(r.dueLength()).isEqualTo(MSS);
        r.clearDue();
        assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, NOW + MS)).isFalse();
        assertThat(r.dueLength()).isZero();
    }

    @Test
    void aRetransmissionStillMissingTwoRoundTripsLaterGoesAgain() {
        for (boolean sack : new boolean[] {false, true}) {
            Recovery r = recovery(sack);
            threeDuplicates(r, NOW);
            r.clearDue();
            assertThat(r.duplicateAck(UNA, MAX, MAX - UNA, NOW + 21 * MS)).as("sack %s", sack).isTrue();
            assertThat(r.dueFrom()).isEqualTo(UNA);
        }
    }

    @Test
    void theProbeResendsTheFirstSegmentAndBacksOff() {
        Recovery r = recovery(false);
        threeDuplicates(r, NOW);
        r.clearDue();
        assertThat(r.probe(UNA, true, MAX - UNA, NOW + 20 * MS)).isTrue();
        assertThat(r.dueFrom()).isEqualTo(UNA);
        assertThat(timers.recoveryProbe()).as("twice as long as the first").isEqualTo(NOW + 20 * MS + 40 * MS);
        r.clearDue();
        assertThat(r.probe(UNA, false, MAX - UNA, NOW + 60 * MS)).as("nothing in flight").isFalse();
        assertThat(timers.recoveryProbe()).isEqualTo(Timers.NEVER);
    }

    @Test
    void aTimeoutEndsRecoveryAndForgetsTheSackedRanges() {
        Recovery r = recovery(true);
        sack(r, UNA, seg(2), seg(4));
        threeDuplicates(r, NOW);
        r.timedOut();
        assertThat(r.inRecovery()).isFalse();
        assertThat(r.gapAfter(UNA)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void sackBlocksOutsideWhatWasSentOrAtTheAckAreIgnored() {
        Recovery r = recovery(true);
        sack(r, UNA, UNA - MSS, UNA);      // D-SACK: below the cumulative ACK
        sack(r, UNA, seg(9), MAX + MSS);   // beyond what was sent
        sack(r, UNA, seg(4), seg(3));      // reversed
        assertThat(r.gapAfter(UNA)).isEqualTo(Integer.MAX_VALUE);
        sack(r, UNA, seg(4), seg(5));
        assertThat(r.gapAfter(UNA)).isEqualTo(4 * MSS);
        r.advance(seg(6));
        assertThat(r.gapAfter(seg(6))).as("acknowledged ranges are dropped").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aRetransmissionIsNoLongerThanWhatWaitsInTheHostStream() {
        Recovery r = recovery(false);
        r.duplicateAck(UNA, MAX, MSS / 2, NOW);
        r.duplicateAck(UNA, MAX, MSS / 2, NOW);
        assertThat(r.duplicateAck(UNA, MAX, MSS / 2, NOW)).isTrue();
        assertThat(r.dueLength()).isEqualTo(MSS / 2);
    }
}
