package io.jslirp.util;

import java.util.function.Supplier;

/** Quiet by default: warnings always go to stderr, flow-by-flow events only with --debug. */
public final class Log {
    private static volatile boolean debug;

    private Log() {}

    public static void enableDebug(boolean on) {
        debug = on;
    }

    public static boolean debugEnabled() {
        return debug;
    }

    public static void debug(Supplier<String> message) {
        if (debug) System.err.println("jslirp: " + message.get());
    }

    public static void warn(String message) {
        System.err.println("jslirp: " + message);
    }
}
