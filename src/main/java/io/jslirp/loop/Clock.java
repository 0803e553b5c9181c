package io.jslirp.loop;

/**
 * Monotonic time in nanoseconds, passed in to whatever keeps time (flows' idle timeouts, TCP
 * timers, the age in the status report), so that tests can run it on a virtual clock.
 */
@FunctionalInterface
public interface Clock {
    /** The machine's monotonic clock ({@link System#nanoTime()}). */
    Clock SYSTEM = System::nanoTime;

    /** Now, in nanoseconds of an arbitrary origin; only differences mean anything. */
    long now();
}
