package io.jslirp.loop;

import java.util.Arrays;

/**
 * The pacing policy: whether an interactive exchange (a request, its answer) is under way, so
 * that it does not wait behind bulk traffic, while bulk traffic still moves in large batches (each
 * batch ends in a flush: a host write, an ACK that wakes the guest's sender, and fewer flushes per
 * byte is what throughput needs). One per loop ({@link Reactor#pacing()}), with every constant of
 * the decision; the loop, the link receiver and the NAT report what they see and ask it:
 * <ul>
 * <li>The link receiver: frames arrived on a queue that is not busy (a guest's request), or a
 *     batch of a queue stopped at its budget (the queue is busy for {@link #BUSY_NANOS}); it asks
 *     how large the next batch may be ({@link #smallBatch}): while a guest's requests keep
 *     coming on quiet queues, busy ones get small batches for {@link #INTERACTIVE_NANOS}.
 * <li>The NAT: a frame that left the guest waiting for the host ({@link #hostTurn}: a
 *     request, a connect, the guest's end), a small write to the host ({@link #isRequest}) whose
 *     answer the guest awaits ({@link #requestWritten}); it asks whether connections send short
 *     bursts toward the guest ({@link #shortBursts}): for {@link #INTERACTIVE_NANOS} after one.
 * <li>The loop: the bytes each iteration moved ({@link #moved}); after a run of
 *     {@link #SHORT_RUN} iterations that moved little it may busy-poll ({@link #mayBusyPoll}), and
 *     while bulk work is near it serves the exchanges that are due first ({@link #bulkNearby}).
 * </ul>
 * The TCP core keeps what only a connection sees (its guest's one-way run for ACK pacing, its
 * bursts' size by its segments) and is told the decision at its flush (short bursts or not).
 * Pure logic: the callers pass the time, so it runs on a virtual clock in tests.
 */
public final class Pacing {
    // Chosen by 1-byte round trips beside an upload (LessonsIT): a smaller small batch shortens
    // the exchange's wait and costs the upload throughput, a larger one the reverse; a single
    // queue made the exchange wait behind everything (docs/benchmarks.md, Why the code is as it is).
    static final int LARGE_FRAMES = 128, LARGE_BYTES = 256 << 10;
    static final int SMALL_FRAMES = 6, SMALL_BYTES = 12 << 10;
    /** A queue is busy for this long after a batch of it hit the budget. */
    public static final long BUSY_NANOS = 2_000_000L;
    /** An exchange is under way for this long after a request: small batches, short bursts. */
    public static final long INTERACTIVE_NANOS = 2_000_000L;
    /** The largest write to the host that is taken for a request, whose answer the loop may wait for ({@link Reactor#expectAnswer}). */
    public static final int REQUEST_BYTES = 16 << 10;
    /** An iteration that moved less than this carried a request or a reply, not a bulk batch. */
    static final int SMALL_ITERATION_BYTES = 4096;
    /** Iterations in a row that must be small before the loop busy-polls. */
    static final int SHORT_RUN = 8;

    /** Per link queue: when a batch of it last hit its budget. */
    private long[] lastBacklog = new long[0];
    /** Per link queue: whether its last batch stopped at its budget (frames may wait unread); how many do. */
    private boolean[] backlog = new boolean[0];
    private int backloggedQueues;
    /** When frames last arrived on a queue that was not busy. */
    private long guestRequestAt = Long.MIN_VALUE / 2;
    /** Until when connections send short bursts toward the guest. */
    private long shortBurstsUntil = Long.MIN_VALUE;
    /**
     * Frames that left the guest waiting for the host, ever (a request written to the host, a
     * connect begun, the guest's end passed on): a reader sees whether a frame was one.
     */
    private long hostTurns;
    /** Loop iterations begun, ever. */
    private long iterations;
    /**
     * Per link queue: the last iteration in which a batch of it reads on to the end (up to its
     * budget, or until the queue is empty) whatever its first frame: the one after a batch of it
     * stopped early ({@link #stoppedEarly}) or hit its budget.
     */
    private long[] readOnUntil = new long[0];
    /** Iterations in a row that moved little data; bytes moved in this iteration. */
    private int shortIterations;
    private long movedThisIteration;

    // ---- the link receiver ----

    /**
     * Frames arrived on queue at now, which is not backlogged: when the queue is not busy they are
     * an interactive request (true), and busy queues' batches are small for a while.
     */
    public boolean framesArrived(int queue, long now) {
        if (busy(queue, now)) return false;
        guestRequestAt = now;
        return true;
    }

    /** Whether queue is busy at now: a batch of it hit its budget within {@link #BUSY_NANOS}. */
    public boolean busy(int queue, long now) {
        return queue < lastBacklog.length && now - lastBacklog[queue] < BUSY_NANOS;
    }

    /** The link has queues receive queues: their state is made now, not on the packet path. */
    public void linkQueues(int queues) {
        if (queues <= lastBacklog.length) return;
        int old = lastBacklog.length;
        lastBacklog = Arrays.copyOf(lastBacklog, queues);
        Arrays.fill(lastBacklog, old, queues, Long.MIN_VALUE / 2);
        readOnUntil = Arrays.copyOf(readOnUntil, queues);
        Arrays.fill(readOnUntil, old, queues, Long.MIN_VALUE / 2);
        backlog = Arrays.copyOf(backlog, queues);
    }

    /**
     * Whether a batch of queue, which is not busy and whose first frame left the guest waiting for
     * the host ({@link #hostTurns}), may stop after that frame, without the read that would find
     * the queue empty (a tap's queue stays readable to epoll while frames wait in it): the guest
     * sends nothing more until the answer. Not in the iteration after a batch of it stopped so, or
     * hit its budget: frames were waiting behind that one (a burst of connects, of requests on
     * many connections; with thousands of connections an iteration can outlast {@link #BUSY_NANOS}),
     * and this batch reads on.
     */
    public boolean mayStopEarly(int queue) {
        return queue >= readOnUntil.length || iterations > readOnUntil[queue];
    }

    /** A batch of queue stopped after its first frame ({@link #mayStopEarly}). */
    public void stoppedEarly(int queue) {
        linkQueues(queue + 1);
        readOnUntil[queue] = iterations + 1;
    }

    /** A batch of queue stopped at its budget at now (its next runs in the next iteration): the queue is busy. */
    public void backlogged(int queue, long now) {
        linkQueues(queue + 1);
        lastBacklog[queue] = now;
        readOnUntil[queue] = iterations + 1;
        if (!backlog[queue]) {
            backlog[queue] = true;
            backloggedQueues++;
        }
    }

    /** A batch of queue ended without reaching its budget: the queue was found empty (or its batch stopped early). */
    public void caughtUp(int queue) {
        if (queue < backlog.length && backlog[queue]) {
            backlog[queue] = false;
            backloggedQueues--;
        }
    }

    /** Whether queue's last batch stopped at its budget: its next batch is scheduled, frames may wait unread there. */
    public boolean backlogged(int queue) {
        return queue < backlog.length && backlog[queue];
    }

    /** Whether a link queue's last batch stopped at its budget: frames may wait unread there. */
    public boolean linkBacklogged() {
        return backloggedQueues > 0;
    }

    /** Whether a batch of queue starting at now is small: the queue is busy while a guest's requests come on others. */
    public boolean smallBatch(int queue, long now) {
        return busy(queue, now) && now - guestRequestAt < INTERACTIVE_NANOS;
    }

    /** The most frames a batch takes, small or large. */
    public static int batchFrames(boolean small) {
        return small ? SMALL_FRAMES : LARGE_FRAMES;
    }

    /** The most bytes a batch takes (it stops after the frame that reaches them), small or large. */
    public static int batchBytes(boolean small) {
        return small ? SMALL_BYTES : LARGE_BYTES;
    }

    // ---- the NAT ----

    /** Whether a write of bytes to the host is small enough to be a request whose answer is awaited. */
    public static boolean isRequest(long bytes) {
        return bytes > 0 && bytes <= REQUEST_BYTES;
    }

    /**
     * A guest's frame left it waiting for the host: it carried a request the NAT wrote to the host,
     * began a host connect, or ended the guest's sending. Whether or not the loop will poll for the answer.
     */
    public void hostTurn() {
        hostTurns++;
    }

    /** How many frames have left the guest waiting for the host: a reader compares before and after a frame. */
    public long hostTurns() {
        return hostTurns;
    }

    /** A connection wrote, by now, a request whose answer the guest awaits: connections send short bursts for a while. */
    public void requestWritten(long now) {
        shortBurstsUntil = now + INTERACTIVE_NANOS;
    }

    /** Whether connections send at most a short burst toward the guest at now: an exchange is under way beside them. */
    public boolean shortBursts(long now) {
        return now < shortBurstsUntil;
    }

    // ---- the loop ----

    /** An iteration begins: nothing moved yet. */
    void iterationStarted() {
        movedThisIteration = 0;
        iterations++;
    }

    /** Handlers moved bytes (frames from the guest, data read from or written to host sockets). */
    void moved(int bytes) {
        movedThisIteration += bytes;
    }

    /** An iteration ended; events: whether any descriptor was ready (one that only ran timers does not count). */
    void iterationEnded(boolean events) {
        if (events) shortIterations = movedThisIteration < SMALL_ITERATION_BYTES ? shortIterations + 1 : 0;
    }

    /** Whether the loop may busy-poll before it sleeps: every recent iteration was small (an exchange's answers come within microseconds). */
    boolean mayBusyPoll() {
        return shortIterations >= SHORT_RUN;
    }

    /** Whether bulk work moved within the last few iterations: the exchanges that are due are served ahead of it. */
    boolean bulkNearby() {
        return shortIterations < SHORT_RUN;
    }
}
