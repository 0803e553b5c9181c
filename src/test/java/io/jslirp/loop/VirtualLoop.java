package io.jslirp.loop;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Reactor} on virtual time, for tests: the clock moves only when the test says so
 * ({@link #advance}), and readiness comes from {@link Readiness}, fake host sockets, rather than
 * epoll. An iteration is the real loop's: the ready descriptors' handlers (in the order they were
 * registered; level-triggered, or for {@link io.jslirp.sys.Epoll#ET} interest only when the
 * descriptor's {@link Readiness#generation} moved or it became ready for more), the tasks left
 * for it ({@link #continueAfterReady}, after a flush), the timers that are due, then the
 * end-of-iteration work. A
 * handler's exception is not caught: it fails the test. A loop that never settles (a handler
 * left ready that makes no progress, which would spin the real loop) fails it too.
 */
public final class VirtualLoop implements Reactor {
    /** What a descriptor is ready for now (Epoll bits), or -1 when it is closed (which takes it out of the loop, as closing does with epoll). */
    public interface Readiness {
        int ready(int fd);

        /** A count of what happened to fd (new data, the peer's end...): a change is an edge. */
        default long generation(int fd) {
            return 0;
        }
    }

    private static final class Registration {
        final int events;
        final Handler handler;
        /** For edge-triggered interest: the readiness and generation last reported. */
        int lastReady;
        long lastGeneration = -1;

        Registration(int events, Handler handler) {
            this.events = events;
            this.handler = handler;
        }

        int events() {
            return events;
        }

        Handler handler() {
            return handler;
        }
    }

    private static final int EPOLL_ET = 1 << 31;

    private static final int EPOLL_ERR = 0x008, EPOLL_HUP = 0x010;
    private static final int MAX_ITERATIONS = 10_000;

    private long now;
    private final Clock clock = () -> now;
    private Readiness readiness = fd -> 0;
    private final Map<Integer, Registration> registered = new LinkedHashMap<>();
    private final Set<Timer> timers = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Runnable> endOfIteration = new ArrayList<>();
    /** Tasks for the next iteration ({@link #continueAfterReady}). */
    private List<Runnable> later = new ArrayList<>();
    private boolean again;
    private final Pacing pacing = new Pacing();
    /** What handlers reported: bytes moved, descriptors whose answer they expect, and whose next request. */
    public long moved;
    public final List<Integer> expectedAnswers = new ArrayList<>();
    public final List<Integer> expectedRequests = new ArrayList<>();
    /** Whether a handler stopped the loop. */
    public boolean stopped;

    /** A loop whose clock starts at start (far from 0, so that no code can take 0 for "unset"). */
    public VirtualLoop(long start) {
        this.now = start;
    }

    public void readiness(Readiness r) {
        this.readiness = r;
    }

    public long now() {
        return now;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public void register(int fd, int events, Handler handler) {
        if (registered.containsKey(fd)) throw new IllegalStateException("fd " + fd + " registered twice (epoll: EEXIST)");
        registered.put(fd, new Registration(events, handler));
    }

    @Override
    public void modify(int fd, int events) {
        Registration r = registered.get(fd);
        if (r == null) throw new IllegalStateException("fd " + fd + " modified but not registered (epoll: ENOENT)");
        registered.put(fd, new Registration(events, r.handler()));
    }

    @Override
    public void unregister(int fd) {
        registered.remove(fd);
    }

    @Override
    public void forget(int fd) {
        registered.remove(fd);
    }

    /** The events fd is registered for, or 0 when it is not. */
    public int interest(int fd) {
        Registration r = registered.get(fd);
        return r == null ? 0 : r.events();
    }

    @Override
    public void schedule(Timer timer, long deadline) {
        timer.deadline = deadline;
        if (deadline == Long.MAX_VALUE) timers.remove(timer);
        else timers.add(timer);
    }

    @Override
    public void atEndOfIteration(Runnable task) {
        endOfIteration.add(task);
    }

    @Override
    public void runAgain() {
        again = true;
    }

    @Override
    public void moved(int bytes) {
        moved += bytes;
    }

    @Override
    public boolean expectAnswer(int fd) {
        expectedAnswers.add(fd);
        return true;
    }

    @Override
    public void continueAfterReady(Runnable task) {
        later.add(task);
        again = true;
    }

    @Override
    public void expectNextRequest(int fd) {
        expectedRequests.add(fd);
    }

    @Override
    public Pacing pacing() {
        return pacing;
    }

    @Override
    public void stop() {
        stopped = true;
    }

    /** The earliest armed timer's deadline, or Long.MAX_VALUE. */
    public long nextDeadline() {
        long next = Long.MAX_VALUE;
        for (Timer t : timers) next = Math.min(next, t.deadline);
        return next;
    }

    /** One iteration; whether it did anything (a handler or timer ran, or one asked for another pass). */
    public boolean iterate() {
        pacing.iterationStarted();
        again = false;
        boolean ran = false;
        List<Runnable> due = later;
        later = new ArrayList<>();
        for (Integer fd : List.copyOf(registered.keySet())) {
            Registration r = registered.get(fd);
            if (r == null) continue;
            int ready = readiness.ready(fd);
            if (ready < 0) {
                registered.remove(fd);
                continue;
            }
            int events = ready & (r.events() | EPOLL_ERR | EPOLL_HUP);
            if ((r.events() & EPOLL_ET) != 0) {
                long generation = readiness.generation(fd);
                boolean edge = generation != r.lastGeneration || (events & ~r.lastReady) != 0;
                r.lastGeneration = generation;
                r.lastReady = events;
                if (!edge) events = 0;
            }
            if (events != 0) {
                r.handler().onEvents(events);
                ran = true;
            }
        }
        if (!due.isEmpty()) { // after the ready handlers and a flush of what they produced, as the real loop
            for (Runnable task : endOfIteration) task.run();
            due.forEach(Runnable::run);
            ran = true;
        }
        for (Timer t : List.copyOf(timers)) {
            if (t.deadline <= now) {
                timers.remove(t);
                t.deadline = Long.MAX_VALUE;
                t.action.run();
                ran = true;
            }
        }
        for (Runnable task : endOfIteration) task.run();
        return ran || again;
    }

    /** Iterates until nothing is left to do now. */
    public void settle() {
        for (int i = 0; i < MAX_ITERATIONS; i++) {
            if (!iterate()) return;
        }
        throw new AssertionError("the loop does not settle: a descriptor stays ready without progress, or a timer re-arms itself at once");
    }

    /** Moves the clock on by nanos without running anything (a test that iterates by hand: the iterations took that long). */
    public void skip(long nanos) {
        now += nanos;
    }

    /** Moves the clock on by nanos, running each timer when it comes due (and what follows it). */
    public void advance(long nanos) {
        long until = now + nanos;
        settle();
        for (long next = nextDeadline(); next <= until; next = nextDeadline()) {
            now = Math.max(now, next);
            settle();
        }
        now = until;
        settle();
    }
}
