package io.jslirp.loop;

/**
 * Whether polling for what is due is worth its CPU time. Polls that came up empty {@link #MISSES}
 * times in a row (a peer slower than the poll waits: a streaming flow, a client that paused, a VM
 * under emulation) are not tried again for {@link #QUIET_NANOS}, and then once, to see whether the
 * peer has become quick; one that finds something starts the count afresh. {@link Anticipation}
 * keeps one per descriptor. Pure logic: the caller passes the time.
 */
final class Patience {
    // Measured in LessonsIT on the 2-core machine: with 3 misses and a second's quiet, a client
    // descheduled three times in a row lost its anticipation for the whole measurement.
    static final int MISSES = 8;
    static final long QUIET_NANOS = 100_000_000L;

    private int misses;
    private long quietUntil;

    /** Whether a poll is worth trying at now. */
    boolean worthTrying(long now) {
        return misses < MISSES || now >= quietUntil;
    }

    /** No history: as new. */
    void reset() {
        misses = 0;
    }

    /** A poll found what it waited for. */
    void hit() {
        misses = 0;
    }

    /** A poll that ended at now found nothing. */
    void miss(long now) {
        if (++misses >= MISSES) quietUntil = now + QUIET_NANOS;
    }
}
