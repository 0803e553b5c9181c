package io.jslirp.isolate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class HandoffTest {
    @Test
    void encodesAndParsesBack() {
        Handoff h = new Handoff(Map.of("tap", new int[] {5, 6, 7}, "api", new int[] {9, 10}));
        assertThat(h.encode()).isEqualTo("api=9,10;tap=5,6,7");
        Handoff back = Handoff.parse(h.encode());
        assertThat(back.get("tap")).containsExactly(5, 6, 7);
        assertThat(back.get("api")).containsExactly(9, 10);
        assertThat(back.get("none")).isEmpty();
        assertThat(back.all()).containsExactlyInAnyOrder(5, 6, 7, 9, 10);
        assertThat(Handoff.parse("").all()).isEmpty();
    }

    @Test
    void refusesWhatItDidNotMake() {
        for (String bad : new String[] {"tap", "=5", "tap=x", "tap=-1", "tap=5;tap=6", "tap=5,"}) {
            assertThatThrownBy(() -> Handoff.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("JSLIRP_SANDBOXED");
        }
    }
}
