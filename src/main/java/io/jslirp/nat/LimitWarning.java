package io.jslirp.nat;

import io.jslirp.util.Log;

/** One log line when a limit first refuses a flow, then at most one a minute saying how many more it refused. */
final class LimitWarning {
    private static final long INTERVAL_NANOS = 60_000_000_000L;
    private final String what;
    private long refusedSinceLog;
    private long loggedAt;
    private boolean logged;

    /** what: the limit and how to raise it, e.g. "4096 half-open TCP connections (--max-half-open)". */
    LimitWarning(String what) {
        this.what = what;
    }

    void refused(long now) {
        refusedSinceLog++;
        if (logged && now - loggedAt < INTERVAL_NANOS) return;
        Log.warn((logged ? "still at the limit of " : "reached the limit of ") + what + ": refused "
                + refusedSinceLog + " new flow" + (refusedSinceLog == 1 ? "" : "s") + (logged ? " in the last minute" : "")
                + "; existing flows carry on");
        logged = true;
        loggedAt = now;
        refusedSinceLog = 0;
    }
}
