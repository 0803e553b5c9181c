package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.sys.Libc;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;

/** Running an engine in the foreground of a command: readiness, signals, the counters at the end. */
final class Serving {
    private Serving() {}

    /** Writes "1" to fd and closes it: a parent waiting on it knows the network is up. */
    static void signalReady(int fd) {
        MemorySegment one = Arena.ofAuto().allocateFrom("1");
        Libc.write(fd, one, 0, 1);
        Libc.close(fd);
    }

    /** Runs the engine on this thread until the exit fd or SIGTERM/SIGINT, then prints the counters. */
    static int untilStopped(Engine engine) {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            engine.stop();
            try {
                done.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            engine.run();
        } finally {
            Log.warn("counters: " + engine.counters());
            done.countDown();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // stopped by a signal: the JVM is exiting already
        }
        return 0;
    }
}
