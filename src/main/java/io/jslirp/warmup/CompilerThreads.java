package io.jslirp.warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The CPU time of this JVM's JIT compiler threads (HotSpot names them "C1 CompilerThreadN" and
 * "C2 CompilerThreadN"), from /proc/self/task: how the warm-up knows that the JIT has caught up.
 */
final class CompilerThreads {
    private static final Path TASKS = Path.of("/proc/self/task");
    /** Nanoseconds per clock tick of /proc's utime and stime (USER_HZ is 100 on Linux). */
    private static final long TICK_NANOS = 10_000_000L;

    private CompilerThreads() {}

    /** Their utime+stime so far, in nanoseconds; -1 when /proc cannot tell. */
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
            return -1;
        }
        return ticks * TICK_NANOS;
    }

    /** utime+stime (fields 14 and 15) of a /proc stat line, whose field 2 (the name) may hold spaces. */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
