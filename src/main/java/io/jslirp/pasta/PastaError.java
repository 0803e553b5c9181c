package io.jslirp.pasta;

import java.io.Serial;

/**
 * A command line pasta refuses, in pasta's words: one line for stderr, then exit status 1. After
 * getopt's own messages (an unknown option, a missing argument) pasta also prints its usage to
 * stderr; {@link #withUsage} says so, and the usage text comes along.
 */
public final class PastaError extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String usage;

    /** A setup or command-line failure in pasta's words. */
    public PastaError(String message) {
        this(message, null);
    }

    PastaError(String message, String usage) {
        super(message, null, false, false);
        this.usage = usage;
    }

    /** Whether pasta follows this message with its usage (getopt's errors). */
    public boolean withUsage() {
        return usage != null;
    }

    /** What pasta writes to stderr: the message, and the usage when it goes with it. */
    public String stderr() {
        return usage == null ? getMessage() + "\n" : getMessage() + "\n" + usage;
    }
}
