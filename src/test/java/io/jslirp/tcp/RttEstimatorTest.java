package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.List;

/** The RTT estimator against RFC 6298 section 2, written out here again in its own terms (G = 1 ms). */
class RttEstimatorTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final long NOW = 7 * 24 * 3600 * SECOND;

    @Test
    void beforeAnySampleTheRtoIsTheInitialOne() {
        RttEstimator e = new RttEstimator();
        assertThat(e.rto()).isEqualTo(TcpConfig.INITIAL_RTO_NANOS).isEqualTo(SECOND);
        assertThat(e.srtt()).isNegative();
        assertThat(e.lostRetransmissionDelay()).isEqualTo(2 * MS);
    }

    @Test
    void theFirstSampleSetsSrttAndHalfOfItAsRttvar() {
        RttEstimator e = new RttEstimator();
        e.sample(300 * MS);
        assertThat(e.srtt()).isEqualTo(300 * MS);
        assertThat(e.rttvar()).isEqualTo(150 * MS);
        assertThat(e.rto()).isEqualTo(300 * MS + 4 * 150 * MS);
    }

    /** Every sequence of samples: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, SRTT <- 7/8 SRTT + 1/8 R', RTO <- SRTT + max(G, 4 RTTVAR) within [min, max]. */
    @Property(tries = 200)
    void followsRfc6298(@ForAll @Size(min = 1, max = 30) List<@LongRange(min = 0, max = 90_000_000_000L) Long> samples) {
        RttEstimator e = new RttEstimator();
        double srtt = -1, rttvar = 0;
        for (long r : samples) {
            e.sample(r);
            if (srtt < 0) {
                srtt = r;
                rttvar = r / 2.0;
            } else {
                rttvar = 0.75 * rttvar + 0.25 * Math.abs(srtt - r);
                srtt = 0.875 * srtt + 0.125 * r;
            }
            // Integer arithmetic truncates each step: a nanosecond or so per sample.
            assertThat((double) e.srtt()).isCloseTo(srtt, org.assertj.core.data.Offset.offset(samples.size() + 1.0));
            assertThat((double) e.rttvar()).isCloseTo(rttvar, org.assertj.core.data.Offset.offset(samples.size() + 1.0));
            long expected = Math.clamp(e.srtt() + Math.max(4 * e.rttvar(), MS), TcpConfig.MIN_RTO_NANOS, TcpConfig.MAX_RTO_NANOS);
            assertThat(e.rto()).isEqualTo(expected);
        }
    }

    @Test
    void theRtoStaysWithinItsBounds() {
        RttEstimator e = new RttEstimator();
        e.sample(MS);
        assertThat(e.rto()).isEqualTo(TcpConfig.MIN_RTO_NANOS);
        RttEstimator slow = new RttEstimator();
        slow.sample(100 * SECOND);
        assertThat(slow.rto()).isEqualTo(TcpConfig.MAX_RTO_NANOS);
    }

    @Test
    void backOffDoublesUntilTheGuestCountsAsGone() {
        RttEstimator e = new RttEstimator();
        for (int i = 1; i <= TcpConfig.MAX_RETRANSMISSIONS; i++) {
            assertThat(e.backOff()).as("retransmission %d", i).isTrue();
            assertThat(e.rto()).isEqualTo(Math.min(SECOND << i, TcpConfig.MAX_RTO_NANOS));
        }
        assertThat(e.backOff()).isFalse();
    }

    @Test
    void anAcknowledgmentEndsTheBackOff() {
        RttEstimator e = new RttEstimator();
        for (int i = 0; i < TcpConfig.MAX_RETRANSMISSIONS; i++) e.backOff();
        e.acknowledged(100, 0, NOW);
        assertThat(e.backOff()).isTrue();
    }

    @Test
    void aTimedSegmentIsSampledWhenItsEndIsAcknowledged() {
        RttEstimator e = new RttEstimator();
        e.segmentSent(1000, NOW);
        e.segmentSent(2000, NOW + 5 * MS); // one segment at a time: this one is not timed
        e.acknowledged(999, 0, NOW + 10 * MS);
        assertThat(e.srtt()).as("not all of the timed segment acknowledged").isNegative();
        e.acknowledged(1000, 0, NOW + 40 * MS);
        assertThat(e.srtt()).isEqualTo(40 * MS);
        assertThat(e.timing()).isFalse();
    }

    @Test
    void karnNoSampleFromATimingStoppedByARetransmission() {
        RttEstimator e = new RttEstimator();
        e.segmentSent(1000, NOW);
        e.stopTiming();
        e.acknowledged(1000, 0, NOW + 40 * MS);
        assertThat(e.srtt()).isNegative();
    }

    @Test
    void anEchoedTimestampGivesTheSampleInMilliseconds() {
        RttEstimator e = new RttEstimator();
        int sentAtMs = (int) (NOW / MS);
        e.segmentSent(1000, NOW);
        e.acknowledged(500, sentAtMs, NOW + 25 * MS + 300_000);
        assertThat(e.srtt()).isEqualTo(25 * MS);
        assertThat(e.timing()).as("the timestamp sample ends the timing too").isFalse();
    }

    @Test
    void aLostRetransmissionIsTwoRoundTripsLate() {
        RttEstimator e = new RttEstimator();
        e.sample(30 * MS);
        assertThat(e.lostRetransmissionDelay()).isEqualTo(60 * MS);
    }
}
