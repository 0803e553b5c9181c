package io.jslirp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.link.Link;
import io.jslirp.loop.Pacing;
import io.jslirp.loop.VirtualLoop;
import io.jslirp.stack.Counters;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Epoll;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The link receiver's batches on virtual time, as the loop's pacing policy sizes them: large for
 * bulk work alone, small on a busy queue while requests come on a quiet one, a backlogged queue
 * continued in the next iteration, a request that came alone answered before the queue is read again.
 */
class LinkReceiverTest {
    private static final long START = 7L * 24 * 3600 * 1_000_000_000L;
    private static final int FD = 100;
    /** The guest's frames: small ones, so that the frame count bounds every batch. */
    private static final int FRAME = 60;

    /** A tap-like link: per queue, frames waiting (each readable to epoll), and what each read took. */
    private static final class FakeLink implements Link {
        final int[] waiting;
        /** Per read that found a frame: its queue. */
        final List<Integer> reads = new ArrayList<>();
        /** Reads, those that found the queue empty too. */
        int calls;
        boolean gone;
        /** Frames that leave the guest waiting for the host, as the NAT says of a request or a connect (their read counts one). */
        int requestsAhead;
        VirtualLoop loop;

        FakeLink(int queues) {
            waiting = new int[queues];
        }

        @Override
        public int queues() {
            return waiting.length;
        }

        @Override
        public int fd(int queue) {
            return FD + queue;
        }

        @Override
        public int receive(int queue, MemorySegment buffer) {
            if (gone) return -1;
            calls++;
            if (waiting[queue] == 0) return 0;
            waiting[queue]--;
            reads.add(queue);
            if (requestsAhead > 0) {
                requestsAhead--;
                loop.pacing().hostTurn(); // as the NAT says when it writes the frame's request to the host
            }
            buffer.asSlice(0, FRAME).fill((byte) 0);
            return FRAME;
        }

        @Override
        public boolean pollSeesEveryFrame() {
            return true;
        }

        @Override
        public boolean send(MemorySegment frame, int length) {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private final VirtualLoop loop = new VirtualLoop(START);
    private final FakeLink link = new FakeLink(2);

    LinkReceiverTest() {
        link.loop = loop;
        loop.readiness(fd -> fd >= FD && fd < FD + link.queues() && link.waiting[fd - FD] > 0 ? Epoll.IN : 0);
        new LinkReceiver(link, new Stack(NetworkConfig.defaults(), link, new Counters()), loop, null);
    }

    /** Runs one iteration; how many frames of queue it took. */
    private int iterate(int queue) {
        int before = link.waiting[queue];
        loop.iterate();
        return before - link.waiting[queue];
    }

    @Test
    void bulkAloneGoesInLargeBatchesAndABackloggedQueueContinuesNextIteration() {
        link.waiting[0] = 1000;
        assertThat(iterate(0)).isEqualTo(Pacing.batchFrames(false));
        link.waiting[0] = 5;
        loop.skip(1000);
        assertThat(iterate(0)).as("the continued batch").isEqualTo(5);
        assertThat(loop.iterate()).as("drained: nothing more to do").isFalse();
    }

    @Test
    void framesOnAQuietQueueMakeTheBusyOnesBatchesSmallForAWhile() {
        link.waiting[0] = 100_000;
        assertThat(iterate(0)).isEqualTo(Pacing.batchFrames(false));
        assertThat(loop.expectedRequests).as("the first frames came on a quiet queue").containsExactly(FD);
        loop.skip(100_000);
        assertThat(iterate(0)).as("busy, right after the first frames came on a quiet queue").isEqualTo(Pacing.batchFrames(true));
        loop.skip(Pacing.INTERACTIVE_NANOS);
        iterate(0);
        loop.skip(100_000);
        assertThat(iterate(0)).as("busy, but no request for a while").isEqualTo(Pacing.batchFrames(false));
        assertThat(loop.expectedRequests).as("a busy queue brings no request").containsExactly(FD);

        link.waiting[1] = 1; // a keystroke on the other queue
        loop.skip(100_000);
        int before0 = link.waiting[0];
        loop.iterate();
        assertThat(link.waiting[1]).isZero();
        assertThat(loop.expectedRequests).containsExactly(FD, FD + 1);
        assertThat(before0 - link.waiting[0]).as("the bulk queue's batch in that iteration").isEqualTo(Pacing.batchFrames(true));
        loop.skip(Pacing.INTERACTIVE_NANOS - 200_000);
        assertThat(iterate(0)).as("still within the exchange").isEqualTo(Pacing.batchFrames(true));
        loop.skip(200_000);
        assertThat(iterate(0)).as("no request for a while: large again").isEqualTo(Pacing.batchFrames(false));
    }

    @Test
    void aRequestThatCameAloneIsAnsweredBeforeTheQueueIsReadAgain() {
        link.waiting[0] = 3;
        link.requestsAhead = 1;
        loop.iterate();
        assertThat(link.reads).as("one read: the request goes to be answered").hasSize(1);
        assertThat(loop.iterate()).as("the frames behind it keep the queue readable").isTrue();
        assertThat(link.waiting[0]).isZero();
    }

    @Test
    void aFrameThatLeftTheGuestWaitingEndsItsBatchWithoutTheReadThatFindsTheQueueEmpty() {
        link.waiting[0] = 1;
        link.requestsAhead = 1;
        loop.iterate();
        assertThat(link.calls).as("the frame's read alone").isEqualTo(1);
        loop.iterate(); // an iteration for something else
        link.waiting[0] = 1;
        link.requestsAhead = 1;
        loop.iterate();
        assertThat(link.calls).isEqualTo(2);

        loop.iterate();
        link.waiting[0] = 1; // a frame that leaves the guest waiting for nothing (an ACK)
        loop.iterate();
        assertThat(link.calls).as("read on until the queue is empty").isEqualTo(4);
    }

    @Test
    void aBurstOfConnectsIsReadOnAfterTheFirstStop() {
        link.waiting[0] = 5;
        link.requestsAhead = 5;
        loop.iterate();
        assertThat(link.reads).hasSize(1);
        loop.iterate();
        assertThat(link.reads).as("the stop found frames behind it: the rest in one batch").hasSize(5);
        assertThat(link.calls).as("and the read that found the queue empty").isEqualTo(6);
    }

    @Test
    void framesThatMakeNoRequestAreReadOnInTheSameBatch() {
        link.waiting[0] = 3;
        loop.iterate();
        assertThat(link.reads).hasSize(3);
    }

    @Test
    void aLinkThatIsGoneStopsTheLoop() {
        link.waiting[0] = 1;
        link.gone = true;
        loop.iterate();
        assertThat(loop.stopped).isTrue();
    }
}
