package io.jslirp.cli;

import io.jslirp.isolate.InPlace;
import io.jslirp.isolate.Sandbox;
import io.jslirp.util.Log;

import java.nio.file.Path;
import java.util.List;

/** Isolation in place for the commands that have it by default (pasta mode, qemu, run): the outcome in a debug line, and the test-only probe. */
final class Isolation {
    private Isolation() {}

    /**
     * Isolates this process ({@link InPlace}) where the launcher started it in a mount namespace of
     * its own, with readable (files or directories read at run time) bound in read-only. With
     * {@link Sandbox#PROBE_VARIABLE} set (tests only), says on stderr what was done and what a
     * compromised program would meet inside.
     */
    static void inPlace(List<Path> readable) {
        inPlace(readable, List.of());
    }

    /** As {@link #inPlace(List)}, with the threads that elsewhere runs tasks on (a command's, in a mount namespace of its own) moved into the new root too. */
    static void inPlace(List<Path> readable, List<java.util.concurrent.Executor> elsewhere) {
        inPlace(readable, elsewhere, false);
    }

    /** As {@link #inPlace(List, List)}; with bypass, the filter lets the socket bypass's calls through. */
    static void inPlace(List<Path> readable, List<java.util.concurrent.Executor> elsewhere, boolean bypass) {
        InPlace.Outcome outcome = InPlace.confine(readable, List.of(), elsewhere, bypass);
        Log.debug(outcome::toString);
        if (System.getenv(Sandbox.PROBE_VARIABLE) != null) {
            System.err.println("jslirp: isolation: " + outcome);
            if (outcome.root()) System.err.println("jslirp: isolation probe: " + Sandbox.probe());
        }
    }
}
