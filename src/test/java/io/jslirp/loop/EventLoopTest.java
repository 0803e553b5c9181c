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

    /**
     * A handler closes another ready descriptor and a new one takes its number in the same
     * iteration: the old descriptor's event, still in the batch, does not reach the new handler.
     */
    @Test
    void anEventOfAClosedDescriptorDoesNotReachTheDescriptorThatReusedItsNumber() {
        List<String> events = new ArrayList<>();
        try (EventLoop loop = new EventLoop()) {
            EventFd[] fds = {new EventFd(), new EventFd()};
            EventFd[] replacement = new EventFd[1];
            for (int i = 0; i < 2; i++) {
                int self = i;
                loop.register(fds[i].fd(), Epoll.IN, e -> {
                    fds[self].drain();
                    events.add("old");
                    if (replacement[0] != null) return;
                    EventFd other = fds[1 - self];
                    int number = other.fd();
                    loop.unregister(number);
                    other.close();
                    replacement[0] = new EventFd(); // not signalled: nothing may be reported for it
                    assertThat(replacement[0].fd()).as("the lowest free number is reused").isEqualTo(number);
                    loop.register(replacement[0].fd(), Epoll.IN, e2 -> events.add("new"));
                });
            }
            fds[0].signal();
            fds[1].signal();
            loop.atEndOfIteration(loop::stop);
            loop.run();
            for (EventFd f : fds) if (f.fd() != replacement[0].fd()) f.close();
            replacement[0].close();
        }
        assertThat(events).containsExactly("old");
    }

    /** A busy-polling loop (after a run of short iterations) still delivers every event, runs timers and stops. */
    @Test
    void busyPollingKeepsEventsAndTimers() {
        List<String> order = new ArrayList<>();
        try (EventLoop loop = new EventLoop(200_000); EventFd ready = new EventFd()) {
            int[] count = {0};
            loop.register(ready.fd(), Epoll.IN, events -> {
                ready.drain();
                if (++count[0] < 20) ready.signal(); // 20 short iterations: the loop polls between them
            });
            Timer done = new Timer(() -> {
                order.add("timer after " + count[0] + " events");
                loop.stop();
            });
            loop.schedule(done, EventLoop.now() + 50_000_000L);
            ready.signal();
            loop.run();
        }
        assertThat(order).containsExactly("timer after 20 events");
    }
}
