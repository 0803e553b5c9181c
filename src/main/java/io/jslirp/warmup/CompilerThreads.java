package io.jslirp.warmup;

import io.jslirp.sys.Libc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CPU time of this JVM's JIT compiler threads (HotSpot names them "C1 CompilerThreadN" and
 * "C2 CompilerThreadN"), from /proc/self/task: how the warm-up knows that the JIT has caught up.
 * An isolated instance has no /proc (io.jslirp.isolate.InPlace): for it the threads are
 * found before ({@link #remember}) and their CPU clocks read by thread id, which needs no file. A
 * compiler thread HotSpot adds later is then not counted.
 */
public final class CompilerThreads {
    private static final Path TASKS = Path.of("/proc/self/task");
    /** Nanoseconds per clock tick of /proc's utime and stime (USER_HZ is 100 on Linux). */
    private static final long TICK_NANOS = 10_000_000L;
    /** The compiler threads' ids, found by {@link #remember} for when /proc is gone; empty until then. */
    private static volatile int[] remembered = new int[0];

    private CompilerThreads() {}

    /** Notes the compiler threads there are now, for {@link #cpuNanos} once /proc is no longer there. */
    public static void remember() {
        List<Integer> tids = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).contains("CompilerThre")) tids.add(Integer.parseInt(task.getFileName().toString()));
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return;
        }
        remembered = tids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Their utime+stime so far, in nanoseconds; -1 when neither /proc nor the remembered threads can tell. */
    static long cpuNanos() {
        long ticks = 0;
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) continue;
                    ticks += ticks(Files.readString(task.resolve("stat")));
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile: it adds nothing
                }
            }
        } catch (IOException | RuntimeException e) {
            return byClocks();
        }
        return ticks * TICK_NANOS;
    }

    private static long byClocks() {
        int[] tids = remembered;
        if (tids.length == 0) return -1;
        long sum = 0;
        for (int tid : tids) {
            long n = Libc.threadCpuNanos(tid);
            if (n > 0) sum += n;
        }
        return sum;
    }

    /** utime+stime (fields 14 and 15) of a /proc stat line, whose field 2 (the name) may hold spaces. */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
