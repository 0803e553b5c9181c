package io.jslirp.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.EventFd;
import io.jslirp.sys.TimerFd;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnticipationTest {
    /**
     * A request goes out while a bulk batch is deferred; its answer (a timer here) comes later,
     * when the next iteration would already have run the batch, but within the wait (both scaled
     * up so that a slow test machine cannot blur them): the loop polls for it and passes it on first.
     */
    @Test
    void anAnswerThatComesWithinTheWaitGoesBeforeTheDeferredBulkBatch() {
        List<String> order = new ArrayList<>();
        try (EventLoop loop = new EventLoop(0, 200_000_000L); EventFd request = new EventFd(); TimerFd answer = new TimerFd()) {
            loop.register(answer.fd(), Epoll.IN, events -> {
                answer.drain();
                order.add("answer");
            });
            loop.register(request.fd(), Epoll.IN, events -> {
                request.drain();
                loop.continueAfterReady(() -> { // a bulk batch that stopped at its budget
                    order.add("bulk");
                    loop.stop();
                });
                answer.arm(50_000_000L);
                loop.expectAnswer(answer.fd());
            });
            request.signal();
            loop.run();
        }
        assertThat(order).containsExactly("answer", "bulk");
    }

    /** After an answer fails to come MISSES times in a row, the loop stops polling for it, except once per quiet time. */
    @Test
    void aDescriptorThatKeepsTheLoopWaitingInVainIsNotWaitedForUntilItAnswersAgain() {
        try (EventLoop loop = new EventLoop(); EventFd silent = new EventFd()) {
            List<String> answers = new ArrayList<>();
            loop.register(silent.fd(), Epoll.IN, events -> {
                silent.drain();
                answers.add("answer");
            });
            int tag = 1; // the loop's first registration
            Anticipation anticipation = new Anticipation(loop, Anticipation.WAIT_NANOS);
            for (int i = 0; i < Patience.MISSES; i++) {
                assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now())).as("wait %d", i).isTrue();
                anticipation.serveExchanges();
            }
            assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now())).isFalse();

            // Once the quiet time is over it is polled for once; silent still, it is left alone again.
            assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now() + Patience.QUIET_NANOS)).isTrue();
            anticipation.serveExchanges();
            assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now())).isFalse();

            // Answering, it is waited for again.
            assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now() + Patience.QUIET_NANOS)).isTrue();
            silent.signal();
            anticipation.serveExchanges();
            assertThat(answers).containsExactly("answer");
            assertThat(anticipation.expectAnswer(silent.fd(), tag, EventLoop.now())).as("quick again").isTrue();
        }
    }
}
