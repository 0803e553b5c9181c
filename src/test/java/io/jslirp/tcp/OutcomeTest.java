package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OutcomeTest {
    @Test
    void eachBitIsItsOwnAnswer() {
        for (int bits = 0; bits < 16; bits++) {
            Outcome o = Outcome.of(bits);
            assertThat(o.sendNow()).isEqualTo((bits & Outcome.SEND_NOW) != 0);
            assertThat(o.closed()).isEqualTo((bits & Outcome.CLOSED) != 0);
            assertThat(o.resetHost()).isEqualTo((bits & Outcome.RESET_HOST) != 0);
            assertThat(o.more()).isEqualTo((bits & Outcome.MORE) != 0);
        }
    }

    @Test
    void theValuesAreSharedNotMade() {
        assertThat(Outcome.of(Outcome.CLOSED | Outcome.RESET_HOST)).isSameAs(Outcome.of(Outcome.CLOSED | Outcome.RESET_HOST));
        assertThat(Outcome.of(0)).isSameAs(Outcome.NOTHING);
    }

    @Test
    void itSaysWhatIsToBeDone() {
        assertThat(Outcome.NOTHING).hasToString("nothing");
        assertThat(Outcome.of(Outcome.SEND_NOW | Outcome.CLOSED | Outcome.RESET_HOST)).hasToString("send-now closed-reset-host");
        assertThat(Outcome.of(Outcome.MORE)).hasToString("more");
    }
}
