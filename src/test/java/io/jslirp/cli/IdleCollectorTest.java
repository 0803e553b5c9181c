package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the commands give the heap back: only in a quiet interval (a trickle of frames is quiet), and only a heap that grew since it was last collected. */
class IdleCollectorTest {
    private static final long MB = 1 << 20;

    @Test
    void aQuietIntervalAfterTheHeapGrewCollects() {
        assertThat(IdleCollector.due(500, 500, 4 * MB, 20 * MB)).isTrue();
    }

    @Test
    void aTrickleOfFramesIsStillQuiet() {
        assertThat(IdleCollector.due(500, 520, 4 * MB, 20 * MB)).as("keep-alives after a burst").isTrue();
        assertThat(IdleCollector.due(500, 500 + IdleCollector.QUIET_FRAMES, 4 * MB, 20 * MB)).isTrue();
    }

    @Test
    void noCollectionWhileTrafficGoesOn() {
        assertThat(IdleCollector.due(500, 501 + IdleCollector.QUIET_FRAMES, 4 * MB, 20 * MB))
                .as("traffic: the heap it uses is in use").isFalse();
        assertThat(IdleCollector.due(500, 500_000, 4 * MB, 20 * MB)).isFalse();
    }

    @Test
    void aHeapThatDidNotGrowSinceItsLastCollectionIsLeftAlone() {
        assertThat(IdleCollector.due(500, 500, 6 * MB, 6 * MB)).as("an idle instance is not collected again and again").isFalse();
        assertThat(IdleCollector.due(500, 500, 6 * MB, 5 * MB)).isFalse();
    }
}
