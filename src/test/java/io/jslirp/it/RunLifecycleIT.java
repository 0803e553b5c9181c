package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jslirp run}'s command, and whatever it starts, does not outlive it: not when the set-up
 * fails (it never starts), nor when jslirp is sent SIGTERM or SIGHUP (passed on to the command,
 * which is killed if it does not end), nor when jslirp is killed outright (the kernel kills the
 * command: PR_SET_PDEATHSIG, and with its PID namespace's init, all in it), nor when the command
 * ends leaving a daemon behind. Each command is {@code sleep N} with a random N, looked for in /proc
 * afterwards.
 */
class RunLifecycleIT {
    private static final Duration T = Duration.ofSeconds(60);

    private static String bin() {
        return Stack.Kind.JSLIRP.executable();
    }

    private static String marker() {
        return Integer.toString(ThreadLocalRandom.current().nextInt(100_000, 1_000_000_000));
    }

    /** PIDs of live processes whose argv is "sleep MARKER" (argv[0] sleep or a path ending in /sleep). */
    static List<Long> sleeping(String marker) {
        List<Long> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(d -> d.getFileName().toString().matches("\\d+")).toList()) {
                String[] argv;
                try {
                    argv = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).split("\0");
                } catch (IOException gone) {
                    continue;
                }
                if (argv.length == 2 && (argv[0].equals("sleep") || argv[0].endsWith("/sleep")) && argv[1].equals(marker)) {
                    found.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return found;
    }

    /** Waits until the command is running (so a signal to jslirp meets it), failing if jslirp ends first. */
    private static void awaitCommand(Stack.Running run, String marker) {
        awaitCommand(run, marker, 1);
    }

    /** Waits until count "sleep MARKER" processes run. */
    private static void awaitCommand(Stack.Running run, String marker, int count) {
        long deadline = System.nanoTime() + T.toNanos();
        while (sleeping(marker).size() < count) {
            if (!run.alive()) throw new AssertionError("jslirp ended before its command ran:\n" + run.describe());
            if (System.nanoTime() > deadline) throw new AssertionError("the command did not start:\n" + run.describe());
            Namespace.sleep(50);
        }
    }

    /** Asserts that no "sleep MARKER" is left, allowing the kernel a moment to deliver a SIGKILL; kills any found. */
    static void assertNoneLeft(String marker, String why) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<Long> left = sleeping(marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Namespace.sleep(50);
            left = sleeping(marker);
        }
        for (long pid : left) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        assertThat(left).as("processes of the command left after %s", why).isEmpty();
    }

    private static int signalAndWait(Stack.Running run, String signal) throws Exception {
        Cmd.Result kill = Cmd.run(T, "kill", "-" + signal, Long.toString(run.pid()));
        assertThat(kill.exit()).as("%s", kill).isZero();
        ProcessHandle h = ProcessHandle.of(run.pid()).orElse(null);
        if (h != null) h.onExit().get(T.toSeconds(), TimeUnit.SECONDS);
        return run.stop().code();
    }

    @Test
    @Timeout(120)
    void aFailedSetUpLeavesNoCommand() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        String marker = marker();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Cmd.Result r = Cmd.run(T, bin(), "run", "-t", taken.getLocalPort() + ":80", "--", "sleep", marker);
            assertThat(r.exit()).as("%s", r).isEqualTo(1);
            assertThat(r.err()).as("%s", r).contains("Address already in use");
        }
        Namespace.sleep(300); // a command started before the failure would be running now
        assertNoneLeft(marker, "a failed set-up");
    }

    /** SIGTERM or SIGHUP to jslirp goes on to the command, whose status (128 + the signal) is jslirp's. */
    @ParameterizedTest
    @CsvSource({"TERM, 15", "HUP, 1"})
    @Timeout(120)
    void aSignalToJslirpEndsTheCommand(String signal, int number) throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        String marker = marker();
        try (Stack.Running run = Stack.start(List.of(bin(), "run", "--", "sleep", marker))) {
            awaitCommand(run, marker);
            assertThat(signalAndWait(run, signal)).as("the command's status: killed by SIG%s\n%s", signal, run.describe())
                    .isEqualTo(128 + number);
        }
        assertNoneLeft(marker, "SIG" + signal + " to jslirp");
    }

    /** A command that ignores SIGTERM is killed once its grace is over; jslirp still exits. */
    @Test
    @Timeout(120)
    void aCommandIgnoringSigtermIsKilled() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        String marker = marker();
        try (Stack.Running run = Stack.start(List.of(bin(), "run", "--", "sh", "-c", "trap '' TERM; exec sleep " + marker))) {
            awaitCommand(run, marker);
            assertThat(signalAndWait(run, "TERM")).as("%s", run.describe()).isEqualTo(128 + 9);
        }
        assertNoneLeft(marker, "SIGTERM to jslirp, ignored by the command");
    }

    /** A SIGKILL leaves jslirp no say: the kernel ends the command and the daemon it started (a new session, its own). */
    @Test
    @Timeout(120)
    void sigkillToJslirpEndsTheCommandAndWhatItStarted() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        ItEnv.assumeTools("setpriv", "setsid");
        String marker = marker();
        try (Stack.Running run = Stack.start(List.of(bin(), "run", "--", "sh", "-c", "setsid sleep " + marker + " & exec sleep " + marker))) {
            awaitCommand(run, marker, 2);
            assertThat(signalAndWait(run, "KILL")).isEqualTo(128 + 9);
        }
        assertNoneLeft(marker, "SIGKILL to jslirp");
    }

    /**
     * A command that ends leaving a daemon behind (it waits until the daemon runs, seen in its own
     * /proc by the number its shell knows it by) takes the daemon with it; jslirp exits with the
     * command's status.
     */
    @Test
    @Timeout(120)
    void whatTheCommandLeavesBehindEndsWithIt() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        ItEnv.assumeTools("setsid");
        String marker = marker();
        String script = "setsid sleep " + marker + " & i=0\n"
                + "until [ \"$(tr '\\0' ' ' < /proc/$!/cmdline)\" = 'sleep " + marker + " ' ]; do\n"
                + "  i=$((i + 1)); [ $i -lt 400 ] || exit 6; sleep 0.05\n"
                + "done\n"
                + "exit 5\n";
        Cmd.Result r = Cmd.run(T, bin(), "run", "--", "sh", "-c", script);
        assertThat(r.exit()).as("5: the daemon ran and the command saw it in its /proc; 6: it did not\n%s", r).isEqualTo(5);
        assertNoneLeft(marker, "the command's end");
    }

    /** The command's /proc is its PID namespace's: the number its shell has ($$) is the shell there, not a host process. */
    @Test
    @Timeout(120)
    void theCommandsProcShowsItsOwnProcesses() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp run's own lifecycle");
        String marker = marker();
        Cmd.Result r = Cmd.run(T, bin(), "run", "--", "sh", "-c", "tr '\\0' ' ' < /proc/$$/cmdline; echo; ls /proc | grep -c '^[0-9]' # " + marker);
        assertThat(r.exit()).as("%s", r).isZero();
        String[] lines = r.out().strip().split("\n");
        assertThat(lines[0]).as("%s", r).startsWith("sh -c ").contains(marker);
        assertThat(Integer.parseInt(lines[1].strip())).as("processes in the command's /proc (the init, sh, ls, grep)\n%s", r).isLessThan(10);
    }
}
