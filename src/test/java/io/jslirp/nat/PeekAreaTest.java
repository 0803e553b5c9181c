package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.stack.FrameSink;
import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxBatch;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peek windows a link may still be writing from are not used again before it wrote them out. */
class PeekAreaTest {
    /** A link that gathers or not, recording after how many windows taken each of its flushes came. */
    private static final class Link implements FrameSink {
        final List<Integer> flushedAfter = new ArrayList<>();
        final LinkCapabilities capabilities;
        int taken;

        Link(LinkCapabilities capabilities) {
            this.capabilities = capabilities;
        }

        @Override
        public boolean send(MemorySegment frame, int length) {
            return true;
        }

        @Override
        public LinkCapabilities capabilities() {
            return capabilities;
        }

        @Override
        public void flush() {
            flushedAfter.add(taken);
        }
    }

    @Test
    void eachPeekGetsAWindowOfItsOwnAndTheFirstComesBackOnlyAfterTheLinkWroteOut() {
        Link link = new Link(LinkCapabilities.GATHERS);
        PeekArea area = new PeekArea(new TxBatch(link, link.capabilities));
        List<MemorySegment> firstRound = new ArrayList<>();
        for (int i = 0; i < PeekArea.SLOTS; i++) {
            MemorySegment w = area.nextWindow();
            link.taken++;
            assertThat(firstRound).as("window %d is not one still in use", i).noneMatch(o -> o.address() == w.address());
            firstRound.add(w);
        }
        assertThat(link.flushedAfter).as("no flush while windows are fresh").isEmpty();
        for (int round = 1; round <= 3; round++) {
            for (int i = 0; i < PeekArea.SLOTS; i++) {
                MemorySegment w = area.nextWindow();
                link.taken++;
                assertThat(w.address()).isEqualTo(firstRound.get(i).address());
            }
            assertThat(link.flushedAfter).as("the link wrote out once per round, before its first window came back")
                    .hasSize(round).last().isEqualTo(round * PeekArea.SLOTS);
        }
    }

    /**
     * The end of a loop iteration writes the batch out: the windows taken before it are free, and
     * the next iteration's peeks reuse them without a write of their own; one taken after it is not.
     */
    @Test
    void aWindowWrittenOutByTheIterationsFlushIsReusedWithoutAnother() {
        Link link = new Link(LinkCapabilities.GATHERS);
        TxBatch batch = new TxBatch(link, link.capabilities);
        PeekArea area = new PeekArea(batch);
        List<MemorySegment> taken = new ArrayList<>();
        for (int i = 0; i < PeekArea.SLOTS - 1; i++) taken.add(area.nextWindow());
        batch.flush(); // the iteration's end
        link.taken = 1;
        MemorySegment last = area.nextWindow(); // never used: free
        for (int i = 0; i < PeekArea.SLOTS - 1; i++) {
            assertThat(area.nextWindow().address()).isEqualTo(taken.get(i).address());
        }
        assertThat(link.flushedAfter).as("only the iteration's flush: what they held was written out").containsExactly(0);
        assertThat(area.nextWindow().address()).as("the window taken after the flush").isEqualTo(last.address());
        assertThat(link.flushedAfter).as("its payloads may still be held: written out first").containsExactly(0, 1);
    }

    @Test
    void aLinkThatTakesEachPayloadAtOnceHasOneWindowAndIsNeverAskedToWriteOut() {
        Link link = new Link(LinkCapabilities.WHOLE_FRAMES);
        PeekArea area = new PeekArea(new TxBatch(link, link.capabilities));
        MemorySegment w = area.nextWindow();
        for (int i = 0; i < 2 * PeekArea.SLOTS; i++) assertThat(area.nextWindow().address()).isEqualTo(w.address());
        assertThat(link.flushedAfter).isEmpty();
    }
}
