package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TimersTest {
    @Test
    void theNextDeadlineIsTheEarliestArmed() {
        Timers t = new Timers();
        assertThat(t.next()).isEqualTo(Timers.NEVER);
        t.armRetransmit(300);
        t.armRecoveryProbe(200);
        assertThat(t.holdAckUntil(250)).isEqualTo(250);
        assertThat(t.next()).isEqualTo(200);
        t.stopRecoveryProbe();
        assertThat(t.next()).isEqualTo(250);
        t.stopAckHold();
        assertThat(t.next()).isEqualTo(300);
        assertThat(t.retransmitStopped()).isFalse();
        t.stopRetransmit();
        assertThat(t.retransmitStopped()).isTrue();
        assertThat(t.next()).isEqualTo(Timers.NEVER);
    }

    @Test
    void aHeldAckKeepsItsFirstDeadline() {
        Timers t = new Timers();
        assertThat(t.holdAckUntil(100)).isEqualTo(100);
        assertThat(t.holdAckUntil(500)).as("the hold runs from the first byte it covers").isEqualTo(100);
        t.stopAckHold();
        assertThat(t.holdAckUntil(500)).isEqualTo(500);
    }

    @Test
    void stopAllStopsEveryTimer() {
        Timers t = new Timers();
        t.armRetransmit(1);
        t.armRecoveryProbe(2);
        t.holdAckUntil(3);
        t.stopAll();
        assertThat(t.next()).isEqualTo(Timers.NEVER);
        assertThat(t.retransmit()).isEqualTo(Timers.NEVER);
        assertThat(t.recoveryProbe()).isEqualTo(Timers.NEVER);
        assertThat(t.ackHold()).isEqualTo(Timers.NEVER);
    }
}
