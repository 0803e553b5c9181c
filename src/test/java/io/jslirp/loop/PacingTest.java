package io.jslirp.loop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pacing policy's decisions, from the events reported to it, on virtual time. */
class PacingTest {
    /** Far from zero, so no code can take "time 0" for "unset". */
    private static final long T = 7L * 24 * 3600 * 1_000_000_000L;
    private static final long MS = 1_000_000L;

    private final Pacing pacing = new Pacing();

    @Test
    void aQueueIsBusyForAWhileAfterABatchOfItHitItsBudget() {
        assertThat(pacing.busy(0, T)).as("never backlogged").isFalse();
        assertThat(pacing.framesArrived(0, T)).as("frames on a quiet queue: a request").isTrue();
        pacing.backlogged(0, T);
        assertThat(pacing.busy(0, T + Pacing.BUSY_NANOS - 1)).isTrue();
        assertThat(pacing.framesArrived(0, T + Pacing.BUSY_NANOS - 1)).as("frames on a busy queue: bulk").isFalse();
        assertThat(pacing.busy(1, T)).as("another queue").isFalse();
        assertThat(pacing.busy(0, T + Pacing.BUSY_NANOS)).isFalse();
        assertThat(pacing.framesArrived(0, T + Pacing.BUSY_NANOS)).isTrue();
    }

    @Test
    void queuesMadeAheadStartQuiet() {
        pacing.linkQueues(4);
        assertThat(pacing.busy(3, T)).isFalse();
        pacing.backlogged(3, T);
        pacing.linkQueues(2); // fewer: nothing forgotten
        assertThat(pacing.busy(3, T + 1)).isTrue();
        assertThat(pacing.busy(2, T + 1)).isFalse();
    }

    @Test
    void aBusyQueueGetsSmallBatchesOnlyWhileRequestsComeOnQuietOnes() {
        pacing.backlogged(0, T);
        assertThat(pacing.smallBatch(0, T + MS)).as("bulk alone: large batches").isFalse();
        assertThat(Pacing.batchFrames(false)).isEqualTo(Pacing.LARGE_FRAMES);
        assertThat(Pacing.batchBytes(false)).isEqualTo(Pacing.LARGE_BYTES);

        assertThat(pacing.framesArrived(1, T + MS)).isTrue();
        pacing.backlogged(0, T + MS);
        assertThat(pacing.smallBatch(0, T + MS)).as("a request on queue 1").isTrue();
        assertThat(pacing.smallBatch(1, T + MS)).as("the quiet queue itself").isFalse();
        assertThat(Pacing.batchFrames(true)).isEqualTo(Pacing.SMALL_FRAMES).isLessThan(Pacing.LARGE_FRAMES);
        assertThat(Pacing.batchBytes(true)).isEqualTo(Pacing.SMALL_BYTES).isLessThan(Pacing.LARGE_BYTES);
        assertThat(pacing.smallBatch(0, T + MS + Pacing.INTERACTIVE_NANOS - 1)).isTrue();
        pacing.backlogged(0, T + MS + Pacing.INTERACTIVE_NANOS - 1);
        assertThat(pacing.smallBatch(0, T + MS + Pacing.INTERACTIVE_NANOS)).as("no request for a while").isFalse();
    }

    @Test
    void framesOnABusyQueueDoNotMakeTheExchange() {
        pacing.backlogged(0, T);
        assertThat(pacing.framesArrived(0, T + MS)).isFalse();
        assertThat(pacing.smallBatch(0, T + MS)).isFalse();
    }

    @Test
    void connectionsSendShortBurstsForAWhileAfterARequestWasWritten() {
        assertThat(pacing.shortBursts(T)).isFalse();
        pacing.requestWritten(T);
        assertThat(pacing.shortBursts(T)).isTrue();
        assertThat(pacing.shortBursts(T + Pacing.INTERACTIVE_NANOS - 1)).isTrue();
        assertThat(pacing.shortBursts(T + Pacing.INTERACTIVE_NANOS)).isFalse();
        pacing.requestWritten(T + 5 * MS);
        assertThat(pacing.shortBursts(T + 5 * MS + 1)).as("a later request starts it again").isTrue();
    }

    @Test
    void aSmallWriteIsARequestALargeOneOrNoneIsNot() {
        assertThat(Pacing.isRequest(0)).isFalse();
        assertThat(Pacing.isRequest(1)).isTrue();
        assertThat(Pacing.isRequest(Pacing.REQUEST_BYTES)).isTrue();
        assertThat(Pacing.isRequest(Pacing.REQUEST_BYTES + 1)).isFalse();
    }

    @Test
    void hostTurnsAreCountedForAReaderToCompare() {
        long before = pacing.hostTurns();
        pacing.hostTurn();
        pacing.hostTurn();
        assertThat(pacing.hostTurns() - before).isEqualTo(2);
    }

    @Test
    void aQueueStopsEarlyUnlessItsLastEarlyStopWasInTheIterationBefore() {
        pacing.linkQueues(2);
        pacing.iterationStarted();
        assertThat(pacing.mayStopEarly(0)).isTrue();
        pacing.stoppedEarly(0);
        pacing.iterationStarted();
        assertThat(pacing.mayStopEarly(0)).as("frames were waiting behind the last early stop").isFalse();
        assertThat(pacing.mayStopEarly(1)).as("another queue").isTrue();
        pacing.iterationStarted();
        assertThat(pacing.mayStopEarly(0)).as("an iteration without it between").isTrue();
        pacing.backlogged(0, 0);
        pacing.iterationStarted();
        assertThat(pacing.mayStopEarly(0)).as("the iteration after a batch that hit its budget, busy or not").isFalse();
        pacing.iterationStarted();
        assertThat(pacing.mayStopEarly(0)).isTrue();
    }

    @Test
    void theLoopBusyPollsOnlyAfterARunOfSmallIterationsAndAnticipatesBesideBulk() {
        for (int i = 0; i < Pacing.SHORT_RUN - 1; i++) iteration(Pacing.SMALL_ITERATION_BYTES - 1, true);
        assertThat(pacing.mayBusyPoll()).isFalse();
        assertThat(pacing.bulkNearby()).isTrue();
        iteration(0, false);
        assertThat(pacing.mayBusyPoll()).as("an iteration without events (timers only) does not count").isFalse();
        iteration(100, true);
        assertThat(pacing.mayBusyPoll()).as("the run is long enough").isTrue();
        assertThat(pacing.bulkNearby()).isFalse();
        iteration(Pacing.SMALL_ITERATION_BYTES, true);
        assertThat(pacing.mayBusyPoll()).as("bulk work ends the run").isFalse();
        assertThat(pacing.bulkNearby()).isTrue();
    }

    @Test
    void whatAnIterationMovedIsSummedOverItsHandlers() {
        for (int i = 0; i < Pacing.SHORT_RUN; i++) iteration(100, true);
        assertThat(pacing.mayBusyPoll()).isTrue();
        pacing.iterationStarted();
        pacing.moved(Pacing.SMALL_ITERATION_BYTES / 2);
        pacing.moved(Pacing.SMALL_ITERATION_BYTES / 2);
        pacing.iterationEnded(true);
        assertThat(pacing.mayBusyPoll()).isFalse();
    }

    private void iteration(int bytes, boolean events) {
        pacing.iterationStarted();
        pacing.moved(bytes);
        pacing.iterationEnded(events);
    }
}
