package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The queues flows are dealt, by the hash the stack gives each frame (its TxFrame's flow key). */
class FlowLanesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int A = 0x1234_0001, B = 0x5678_0002, C = 0x9abc_0003;

    @Test
    void newFlowsAreDealtOutInTurnAndKeepTheirQueue() {
        FlowLanes lanes = new FlowLanes(4);
        int la = lanes.laneOf(A, 0), lb = lanes.laneOf(B, 0), lc = lanes.laneOf(C, 0);
        assertThat(new int[] {la, lb, lc}).containsExactly(0, 1, 2);
        for (int i = 0; i < 100; i++) {
            assertThat(lanes.laneOf(B, i * SECOND)).isEqualTo(lb);
            assertThat(lanes.laneOf(A, i * SECOND)).isEqualTo(la);
        }
    }

    @Test
    void framesWithoutAFlowUseTheFirstQueueAndTakeNoTurn() {
        FlowLanes lanes = new FlowLanes(4);
        lanes.laneOf(A, 0); // moves the turn on
        assertThat(lanes.laneOf(0, 0)).isZero();
        assertThat(lanes.laneOf(B, 0)).isEqualTo(1);
    }

    @Test
    void oneQueueTakesEverything() {
        FlowLanes lanes = new FlowLanes(1);
        for (int key = 1; key < 50; key++) assertThat(lanes.laneOf(key * 0x9E3779B1, 0)).isZero();
    }

    @Test
    void aSecondLiveFlowOnATakenSlotStaysOnTheQueueOfItsHash() {
        FlowLanes lanes = new FlowLanes(3);
        int first = 0x0001_0005, second = 0x0003_0005; // the same slot (the low 12 bits); the second hashes to queue 2, not the next in turn (1)
        assertThat(lanes.laneOf(first, 0)).isZero();
        int lane = lanes.laneOf(second, SECOND);
        assertThat(lane).isEqualTo(Integer.remainderUnsigned(second, 3));
        assertThat(lanes.laneOf(second, 2 * SECOND)).isEqualTo(lane);
        assertThat(lanes.laneOf(first, 2 * SECOND)).isZero();
    }

    @Test
    void aStaleSlotIsTakenByTheNextFlow() {
        FlowLanes lanes = new FlowLanes(3);
        int first = 0x0001_0005, second = 0x0002_0005;
        lanes.laneOf(first, 0);
        assertThat(lanes.laneOf(second, 11 * SECOND)).as("dealt the next queue in turn").isEqualTo(1);
        assertThat(lanes.laneOf(second, 12 * SECOND)).isEqualTo(1);
    }
}
