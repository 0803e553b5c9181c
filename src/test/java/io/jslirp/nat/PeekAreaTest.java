package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peek windows a link may still be writing from are not used again before it wrote them out. */
class PeekAreaTest {
    @Test
    void eachPeekGetsAWindowOfItsOwnAndTheFirstComesBackOnlyAfterTheLinkWroteOut() {
        List<Integer> flushedAfter = new ArrayList<>();
        int[] taken = {0};
        PeekArea area = new PeekArea(() -> flushedAfter.add(taken[0]));
        List<MemorySegment> firstRound = new ArrayList<>();
        for (int i = 0; i < PeekArea.SLOTS; i++) {
            MemorySegment w = area.nextWindow();
            taken[0]++;
            assertThat(firstRound).as("window %d is not one still in use", i).noneMatch(o -> o.address() == w.address());
            firstRound.add(w);
        }
        assertThat(flushedAfter).as("no flush while windows are fresh").isEmpty();
        for (int round = 1; round <= 3; round++) {
            for (int i = 0; i < PeekArea.SLOTS; i++) {
                MemorySegment w = area.nextWindow();
                taken[0]++;
                assertThat(w.address()).isEqualTo(firstRound.get(i).address());
            }
            assertThat(flushedAfter).as("the link wrote out once per round, before its first window came back")
                    .hasSize(round).last().isEqualTo(round * PeekArea.SLOTS);
        }
    }

    @Test
    void aLinkThatTakesEachPayloadAtOnceHasOneWindow() {
        PeekArea area = new PeekArea(null);
        MemorySegment w = area.nextWindow();
        for (int i = 0; i < 2 * PeekArea.SLOTS; i++) assertThat(area.nextWindow().address()).isEqualTo(w.address());
    }
}
