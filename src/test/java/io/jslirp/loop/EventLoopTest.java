package io.jslirp.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.EventFd;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLoopTest {
    /**
     * Work continued after the ready handlers runs in the next iteration, behind that iteration's
     * ready handlers and a flush of their output, and is flushed itself.
     */
    @Test
    void continuedWorkRunsAfterTheNextReadyHandlersAndTheirFlush() {
        List<String> order = new ArrayList<>();
        try (EventLoop loop = new EventLoop(); EventFd ready = new EventFd()) {
            int[] iteration = {0};
            loop.register(ready.fd(), Epoll.IN, events -> {
                ready.drain();
                iteration[0]++;
                order.add("ready" + iteration[0]);
                if (iteration[0] == 1) {
                    loop.continueAfterReady(() -> {
                        order.add("continued");
                        loop.stop();
                    });
                    ready.signal(); // the next iteration has a ready handler too
                }
            });
            loop.atEndOfIteration(() -> order.add("flush"));
            ready.signal();
            loop.run();
        }
        assertThat(order).containsExactly("ready1", "flush", "ready2", "flush", "continued", "flush");
    }

    @Test
    void timersRunWhenDueAndDisarmedTimersDoNot() {
        List<String> order = new ArrayList<>();
        try (EventLoop loop = new EventLoop()) {
            Timer disarmed = new Timer(() -> order.add("disarmed"));
            Timer late = new Timer(() -> {
                order.add("late");
                loop.stop();
            });
            Timer early = new Timer(() -> order.add("early"));
            long now = EventLoop.now();
            loop.schedule(late, now + 30_000_000L);
            loop.schedule(early, now + 5_000_000L);
            loop.schedule(disarmed, now + 10_000_000L);
            loop.schedule(disarmed, Long.MAX_VALUE);
            loop.run();
        }
        assertThat(order).containsExactly("early", "late");
    }
}
