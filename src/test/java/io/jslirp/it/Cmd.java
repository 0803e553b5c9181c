package io.jslirp.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion with a timeout; stdout and stderr go to temporary files (no pipe deadlocks). */
public final class Cmd {
    private Cmd() {}

    /** What a finished (or killed) command left behind. */
    public record Result(List<String> command, int exit, String out, String err, Duration took, boolean timedOut) {
        /** A description for assertion messages. */
        public String describe() {
            return "command " + String.join(" ", command) + "\n  exit=" + exit + (timedOut ? " (TIMED OUT, killed)" : "")
                    + " took=" + took.toMillis() + "ms\n  stdout: " + clip(out) + "\n  stderr: " + clip(err);
        }

        @Override
        public String toString() {
            return describe();
        }
    }

    static String clip(String s) {
        if (s == null) return "";
        s = s.strip();
        return s.length() <= 4000 ? s : s.substring(0, 2000) + "\n...[" + (s.length() - 4000) + " chars]...\n" + s.substring(s.length() - 2000);
    }

    public static Result run(Duration timeout, String... command) {
        return run(timeout, List.of(command), null, Map.of());
    }

    public static Result run(Duration timeout, List<String> command) {
        return run(timeout, command, null, Map.of());
    }

    /** Runs the command; stdin from a file (or nothing), extra environment variables added. */
    public static Result run(Duration timeout, List<String> command, Path stdin, Map<String, String> env) {
        Path out = null, err = null;
        long t0 = System.nanoTime();
        try {
            out = Files.createTempFile("jslirp-it-out", ".txt");
            err = Files.createTempFile("jslirp-it-err", ".txt");
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(stdin == null ? ProcessBuilder.Redirect.from(new java.io.File("/dev/null")) : ProcessBuilder.Redirect.from(stdin.toFile()));
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) killTree(p.toHandle());
            int exit = done ? p.exitValue() : -1;
            if (!done) p.waitFor(5, TimeUnit.SECONDS);
            return new Result(List.copyOf(command), exit, Files.readString(out, StandardCharsets.ISO_8859_1),
                    Files.readString(err, StandardCharsets.ISO_8859_1), Duration.ofNanos(System.nanoTime() - t0), !done);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    /** SIGKILLs a process and every descendant (collected before the parent dies and they get reparented). */
    public static void killTree(ProcessHandle h) {
        List<ProcessHandle> all = new ArrayList<>(h.descendants().toList());
        all.add(h);
        for (ProcessHandle p : all) p.destroyForcibly();
    }

    static void deleteQuietly(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }
}
