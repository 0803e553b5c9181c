package io.jslirp.loop;

import io.jslirp.sys.Epoll;
import io.jslirp.util.Log;

import java.util.ArrayList;
import java.util.List;

/**
 * The single-threaded event loop: epoll readiness, timers, and work run at the end of every
 * iteration (the flush that coalesces what the iteration produced). It never sleeps while work is
 * pending: the epoll timeout is the time to the next timer, or zero when a handler asked for
 * another pass.
 */
public final class EventLoop implements Reactor, AutoCloseable {
    private final Epoll epoll = new Epoll(256);
    private Handler[] handlers = new Handler[1024];
    /**
     * Which registration of each descriptor its epoll events belong to. A descriptor closed while
     * its event waits later in the same batch can be reused at once by a new socket; the stale
     * event then carries the old registration and is dropped, so a connecting socket is never
     * told it connected by its predecessor's event.
     */
    private int[] registrations = new int[1024];
    private int registrationCount;
    private final TimerQueue timers = new TimerQueue();
    private final List<Runnable> endOfIteration = new ArrayList<>();
    /** Tasks for the next iteration, and those of this one (swapped each iteration: no copy). */
    private List<Runnable> later = new ArrayList<>();
    private List<Runnable> laterNow = new ArrayList<>();
    /** Busy polling after a run of short iterations (see {@link #waitForEvents}); 0 turns it off. */
    private final long spinNanos;
    /** What is interactive: told the bytes each iteration moved and the requests sent, asked whether to busy-poll or anticipate. */
    private final Pacing pacing = new Pacing();
    private boolean running;
    private boolean again;
    private final Anticipation anticipation;

    /**
     * The machine's monotonic clock, what every loop times by ({@link Clock#SYSTEM}); for code
     * that is given no {@link Clock}: those the loop serves take {@link #clock()}.
     */
    public static long now() {
        return System.nanoTime();
    }

    @Override
    public Clock clock() {
        return Clock.SYSTEM;
    }

    @Override
    public void register(int fd, int events, Handler handler) {
        if (fd >= handlers.length) {
            int size = Math.max(fd + 1, handlers.length * 2);
            handlers = java.util.Arrays.copyOf(handlers, size);
            registrations = java.util.Arrays.copyOf(registrations, size);
        }
        handlers[fd] = handler;
        registrations[fd] = ++registrationCount;
        epoll.add(fd, events, registrationCount);
    }

    @Override
    public void modify(int fd, int events) {
        epoll.modify(fd, events, registrations[fd]);
    }

    @Override
    public void unregister(int fd) {
        if (fd < handlers.length && handlers[fd] != null) {
            handlers[fd] = null;
            epoll.remove(fd);
        }
    }

    /** Drops fd's handler without a system call, for a descriptor about to be closed (which leaves epoll by itself). */
    @Override
    public void forget(int fd) {
        if (fd < handlers.length) handlers[fd] = null;
    }

    /** Adds work to run after the events of every iteration (in registration order). */
    @Override
    public void atEndOfIteration(Runnable task) {
        endOfIteration.add(task);
    }

    /**
     * Asks for another iteration without waiting: a handler stopped at its budget while its
     * descriptor is still readable (level-triggered epoll reports it again).
     */
    @Override
    public void runAgain() {
        again = true;
    }

    /**
     * Runs task in the next iteration, without waiting, after that iteration's ready handlers
     * and a flush of what they produced: for a bulk batch that stopped at its budget, so that the
     * flows behind it (a reply, a keystroke) go first and do not wait for the whole batch.
     */
    @Override
    public void continueAfterReady(Runnable task) {
        later.add(task);
        again = true;
    }

    @Override
    public Pacing pacing() {
        return pacing;
    }

    /**
     * Says that fd, a registered descriptor, was just sent a request whose answer is due within
     * microseconds: ahead of bulk work, the loop polls a little for it ({@link Anticipation}).
     */
    @Override
    public boolean expectAnswer(int fd) {
        return fd < handlers.length && handlers[fd] != null && anticipation.expectAnswer(fd, registrations[fd], now());
    }

    /**
     * Says that fd, a registered descriptor, brought an interactive request: once the answer is
     * out, the next request is due there ({@link Anticipation}).
     */
    @Override
    public void expectNextRequest(int fd) {
        if (fd < handlers.length && handlers[fd] != null) anticipation.expectNextRequest(fd, registrations[fd], now());
    }

    /** Arms (or re-arms) timer to run at deadline (nanoTime), or disarms it with Long.MAX_VALUE. */
    @Override
    public void schedule(Timer timer, long deadline) {
        timer.deadline = deadline;
        if (deadline == Long.MAX_VALUE) return; // a queued entry finds it disarmed when due
        if (timer.queuedAt != Long.MAX_VALUE) {
            if (timer.queuedAt <= deadline) return; // re-queued when the earlier entry comes due
            timers.remove(timer);
        }
        timer.queuedAt = deadline;
        timers.add(timer);
    }

    @Override
    public void stop() {
        running = false;
    }

    /** A loop that never busy-polls. */
    public EventLoop() {
        this(0);
    }

    /** A loop that busy-polls for up to spinNanos (0: never) before sleeping while exchanges are interactive. */
    public EventLoop(long spinNanos) {
        this(spinNanos, Anticipation.WAIT_NANOS);
    }

    /** As {@link #EventLoop(long)}, polling up to anticipationNanos for an expected answer or request ({@link Anticipation}). */
    EventLoop(long spinNanos, long anticipationNanos) {
        this.spinNanos = spinNanos;
        this.anticipation = new Anticipation(this, anticipationNanos);
    }

    /**
     * Runs until {@link #stop()}. Each iteration is a method of its own ({@link #iterate}), which
     * the JIT compiles by its calls like any other: a loop entered once is compiled only by
     * on-stack replacement, late, and in a VM's download at MTU 65520 (a few thousand iterations)
     * its body was still interpreted (docs/benchmarks.md, Why the code is as it is).
     */
    public void run() {
        running = true;
        while (running) iterate();
    }

    /** One iteration: waits for events, dispatches them, runs what is due, and flushes. */
    private void iterate() {
        int n = waitForEvents();
        pacing.iterationStarted();
        again = false;
        List<Runnable> due = later; // laterNow is empty here
        later = laterNow;
        laterNow = due;
        for (int i = 0; i < n; i++) dispatch(epoll.readyFd(i), epoll.readyTag(i), epoll.readyEvents(i));
        if (!laterNow.isEmpty()) {
            flush();
            anticipation.serveExchanges();
            runAll(laterNow);
            laterNow.clear();
        }
        runTimers(now());
        flush();
        // Bulk work within the last few iterations: what is due goes first (see Anticipation).
        if (again || pacing.bulkNearby()) anticipation.serveExchanges();
        else anticipation.clear();
        pacing.iterationEnded(n > 0);
    }

    /** Passes events to fd's handler, if fd is still registered as tag. */
    void dispatch(int fd, int tag, int events) {
        Handler h = fd < handlers.length ? handlers[fd] : null;
        if (h == null || registrations[fd] != tag) return;
        try {
            h.onEvents(events);
        } catch (RuntimeException e) {
            internalError(e);
        }
    }

    /** Runs the end-of-iteration work: the flush of what the handlers produced. */
    void flush() {
        runAll(endOfIteration);
    }

    /**
     * Counts bytes a handler moved in this iteration (frames from the guest, data read from host
     * sockets): an iteration that moved many is bulk work, and bulk work turns busy polling off.
     */
    @Override
    public void moved(int bytes) {
        pacing.moved(bytes);
    }

    /**
     * Waits for events. While every recent iteration was small ({@link Pacing#mayBusyPoll}: a
     * request/response exchange, whose answer comes back within microseconds), polls without
     * sleeping for up to spinNanos first, so the answer does not pay for the thread's sleep and
     * wake-up. A bulk transfer moves more in each iteration and never spins, leaving the CPU to
     * the guest and the host peer.
     */
    private int waitForEvents() {
        int timeout = timeoutMillis();
        if (spinNanos > 0 && timeout != 0 && pacing.mayBusyPoll()) {
            long until = now() + spinNanos;
            do {
                int n = epoll.wait(0);
                if (n != 0) return n;
            } while (now() < until);
            timeout = timeoutMillis();
        }
        return epoll.wait(timeout);
    }

    private static void runAll(List<Runnable> tasks) {
        for (int i = 0; i < tasks.size(); i++) {
            try {
                tasks.get(i).run();
            } catch (RuntimeException e) {
                internalError(e);
            }
        }
    }

    /** A bug in one handler must not stop the network: log it and carry on. */
    private static void internalError(RuntimeException e) {
        Log.warn("internal error (please report): " + e);
        if (Log.debugEnabled()) e.printStackTrace();
    }

    private int timeoutMillis() {
        if (again) return 0;
        Timer next = timers.peek();
        if (next == null) return -1;
        long wait = next.queuedAt - now();
        if (wait <= 0) return 0;
        return (int) Math.min(Integer.MAX_VALUE, (wait + 999_999) / 1_000_000);
    }

    private void runTimers(long now) {
        Timer t;
        while ((t = timers.peek()) != null && t.queuedAt <= now) {
            timers.poll();
            t.queuedAt = Long.MAX_VALUE;
            if (t.deadline <= now) {
                t.deadline = Long.MAX_VALUE;
                try {
                    t.action.run();
                } catch (RuntimeException e) {
                    internalError(e);
                }
            } else if (t.deadline != Long.MAX_VALUE) {
                t.queuedAt = t.deadline;
                timers.add(t);
            }
        }
    }

    @Override
    public void close() {
        epoll.close();
    }
}
