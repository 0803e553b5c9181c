package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;

/**
 * Gives the Java heap back after load (issue 19): a process of its own, mostly waiting, should
 * not keep what a burst of connections once made it grow. Every {@link #CHECK_NANOS}, when at most
 * {@link #QUIET_FRAMES} frames moved in the interval and the heap grew since it was last collected
 * down, one full collection: SerialGC compacts and shrinks the heap to what lives (the launcher's
 * MaxHeapFreeRatio, and no shrinking in steps), and the JVM returns freed native memory itself
 * (TrimNativeHeapInterval). Nothing while traffic goes on, nor for a heap that has nothing to give
 * back. The commands' process only; the library ({@code embed}) leaves its host's heap alone.
 */
final class IdleCollector {
    static final long CHECK_NANOS = 10_000_000_000L;
    /**
     * The most frames an interval may move and still count as quiet: a container's keep-alives,
     * health checks and DNS lookups go on after its bursts, and a heap given back only after
     * ten seconds without a single frame stayed as large as the burst left it. A collection of
     * what such an instance holds pauses its loop once, briefly (docs/benchmarks.md, Why the code
     * is as it is).
     */
    static final long QUIET_FRAMES = 1_000;

    private final EventLoop loop;
    private final Counters counters;
    private final Timer timer = new Timer(this::check);
    private long frames;
    /** The committed heap after the last collection (at first: at start). */
    private long heapAfter = heap();

    private IdleCollector(Engine engine) {
        this.loop = engine.loop();
        this.counters = engine.counters();
    }

    /** Starts checking on engine's loop (before it runs, or on its thread). */
    static void start(Engine engine) {
        IdleCollector c = new IdleCollector(engine);
        c.frames = c.moved();
        c.loop.schedule(c.timer, c.loop.clock().now() + CHECK_NANOS);
    }

    private static long heap() {
        return Runtime.getRuntime().totalMemory();
    }

    private long moved() {
        return counters.framesIn + counters.framesOut;
    }

    private void check() {
        long now = moved();
        if (due(frames, now, heapAfter, heap())) {
            System.gc();
            heapAfter = heap();
        }
        frames = now;
        loop.schedule(timer, loop.clock().now() + CHECK_NANOS);
    }

    /**
     * Whether to collect now: at most {@link #QUIET_FRAMES} frames moved since the last check
     * (framesBefore → framesNow) and the committed heap (heapNow) grew beyond what the last
     * collection left (heapAfter).
     */
    static boolean due(long framesBefore, long framesNow, long heapAfter, long heapNow) {
        return framesNow - framesBefore <= QUIET_FRAMES && heapNow > heapAfter;
    }
}
