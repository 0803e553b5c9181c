package io.jslirp.loop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When polling stops paying: by a clock passed in, no real time. */
class PatienceTest {
    private static final long MS = 1_000_000L;

    @Test
    void pollsThatKeepComingUpEmptyRestForTheQuietTimeThenTryOnce() {
        Patience p = new Patience();
        long now = 5 * MS;
        for (int i = 0; i < Patience.MISSES - 1; i++) {
            assertThat(p.worthTrying(now)).isTrue();
            p.miss(now);
        }
        assertThat(p.worthTrying(now)).as("one miss short of the limit").isTrue();
        p.miss(now);
        assertThat(p.worthTrying(now)).isFalse();
        assertThat(p.worthTrying(now + Patience.QUIET_NANOS - 1)).isFalse();
        long later = now + Patience.QUIET_NANOS;
        assertThat(p.worthTrying(later)).as("once the quiet time is over").isTrue();
        p.miss(later); // still slow: quiet again, from then
        assertThat(p.worthTrying(later + 1)).isFalse();
        assertThat(p.worthTrying(later + Patience.QUIET_NANOS)).isTrue();
    }

    @Test
    void aPollThatFindsSomethingStartsTheCountAfresh() {
        Patience p = new Patience();
        for (int i = 0; i < Patience.MISSES - 1; i++) p.miss(0);
        p.hit();
        for (int i = 0; i < Patience.MISSES - 1; i++) p.miss(0);
        assertThat(p.worthTrying(0)).isTrue();
        p.miss(0);
        assertThat(p.worthTrying(0)).isFalse();
        p.reset();
        assertThat(p.worthTrying(0)).as("a new history").isTrue();
    }
}
