package io.jslirp.loop;

/**
 * A re-armable timer owned by one object (a connection, a flow table). Arming it again is cheap:
 * moving a deadline later costs nothing until the old one comes due, when the loop re-queues it.
 */
public final class Timer {
    final Runnable action;
    long deadline = Long.MAX_VALUE;
    long queuedAt = Long.MAX_VALUE;
    /** Its slot in the {@link TimerQueue} while queued, else -1. */
    int slot = -1;

    public Timer(Runnable action) {
        this.action = action;
    }

    public long deadline() {
        return deadline;
    }
}
