package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.sys.Libc;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/** Running an engine in the foreground of a command: readiness, signals, the counters at the end. */
final class Serving {
    private Serving() {}

    /** The result of a setup done on another thread (a namespace's), its failure rethrown as it was. */
    static <T> T joined(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    /** Writes "1" to fd and closes it: a parent waiting on it knows the network is up. */
    static void signalReady(int fd) {
        MemorySegment one = Arena.ofAuto().allocateFrom("1");
        Libc.write(fd, one, 0, 1);
        Libc.close(fd);
    }

    /**
     * Runs the engine on this thread until the exit fd, SIGTERM or SIGINT, then prints the
     * counters and returns 0: the engine has reset every open connection, closed its sockets and
     * removed its socket files. A second signal while that runs exits at once.
     */
    static int untilStopped(Engine engine) {
        return untilStopped(engine, true);
    }

    /**
     * From now on SIGTERM and SIGINT stop engine, also before it runs (it then stops at once); a
     * second one exits at once. For a command whose caller may signal it before it serves (a PID
     * file written first).
     */
    static void stopOnSignals(Engine engine) {
        AtomicBoolean signalled = new AtomicBoolean();
        for (String name : new String[] {"TERM", "INT"}) {
            Signal signal = new Signal(name);
            Signal.handle(signal, s -> {
                if (signalled.getAndSet(true)) Runtime.getRuntime().halt(128 + s.getNumber());
                engine.stop();
            });
        }
    }

    /** As {@link #untilStopped(Engine)}; the counters line only if printCounters (pasta's --quiet shows none). */
    static int untilStopped(Engine engine, boolean printCounters) {
        stopOnSignals(engine);
        try {
            engine.run();
        } finally {
            if (printCounters) Log.warn("counters: " + engine.figuresLine());
        }
        return 0;
    }
}
