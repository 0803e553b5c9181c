package io.jslirp.cli;

import io.jslirp.sys.Libc;
import io.jslirp.util.Log;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * The command {@code jslirp run} starts in its namespace, which must not outlive jslirp:
 * <ul>
 * <li>it starts only once the network is set up ({@link RunCommand}), so a failed set-up leaves nothing;
 * <li>SIGTERM and SIGHUP to jslirp go on to the command (and the processes under it), which then
 *     ends as it chooses; a second such signal, or {@link #GRACE_MILLIS} without its end, kills them
 *     (SIGKILL). jslirp exits with the command's status, as ever. SIGINT stays ignored: the terminal
 *     gives Ctrl-C to the command itself;
 * <li>any other end of the JVM (an error, System.exit) kills them in a shutdown hook;
 * <li>a JVM killed outright (SIGKILL, a crash) runs no code: for that the command is started under
 *     util-linux's {@code setpriv --pdeathsig KILL}, so that the kernel kills it when its parent
 *     goes. The parent that counts is the thread that forked it, so {@link #start} must be called
 *     on a thread that lives until the command has ended ({@link #awaitEnd}).
 * </ul>
 * Not covered: processes the command has already left behind (daemons, orphans) when a SIGKILL
 * ends jslirp; without setpriv (util-linux before 2.33), the command itself after such a kill.
 */
final class GuestCommand {
    /** How long the command has to end after a SIGTERM or SIGHUP to jslirp before it is killed. */
    static final long GRACE_MILLIS = 3_000;
    private static final int SIGKILL = 9;

    private GuestCommand() {}

    /**
     * Starts argv on this thread (in its namespaces), stdio inherited, under {@code setpriv
     * --pdeathsig KILL} where that is available; argv names a program that runs ({@link Executable#check}).
     */
    static Process start(List<String> argv) throws IOException {
        String setpriv = setpriv();
        List<String> line = argv;
        if (setpriv != null) { // argv names a program that runs: RunCommand checked (Executable)
            line = new ArrayList<>(List.of(setpriv, "--pdeathsig", "KILL", "--"));
            line.addAll(argv);
        } else if (setpriv == null) {
            Log.debug(() -> "no setpriv with --pdeathsig: the command would outlive a SIGKILL of jslirp");
        }
        return new ProcessBuilder(line).inheritIO().start();
    }

    /**
     * Waits on the thread that started p until p has ended (that thread is p's parent for
     * PR_SET_PDEATHSIG, and must not end before it).
     */
    static void awaitEnd(Process p) {
        boolean interrupted = false;
        while (true) {
            try {
                p.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** From now on until the JVM ends: TERM and HUP forwarded to p, SIGINT ignored, p killed if the JVM ends first. */
    static void endWithJslirp(Process p) {
        // Ctrl-C belongs to the command (a shell ignores it); the network lives as long as the command.
        Signal.handle(new Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
        AtomicBoolean signalled = new AtomicBoolean();
        for (String name : new String[] {"TERM", "HUP"}) {
            Signal.handle(new Signal(name), s -> {
                if (signalled.getAndSet(true)) {
                    kill(p, SIGKILL);
                    return;
                }
                Log.debug(() -> "SIG" + name + ": passed on to the command");
                kill(p, s.getNumber());
                Thread.ofPlatform().daemon().name("command-grace").start(() -> {
                    try {
                        if (!p.waitFor(GRACE_MILLIS, TimeUnit.MILLISECONDS)) kill(p, SIGKILL);
                    } catch (InterruptedException ignored) {
                        // the JVM is ending: the shutdown hook kills it
                    }
                });
            });
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (p.isAlive()) kill(p, SIGKILL);
        }, "command-end"));
    }

    /** Sends signal to p and to the processes under it (found before p goes, while they are still its descendants). */
    private static void kill(Process p, int signal) {
        if (!p.isAlive()) return; // reaped: its number may be another's by now
        List<ProcessHandle> under = p.descendants().toList();
        Libc.kill(p.pid(), signal);
        for (ProcessHandle h : under) Libc.kill(h.pid(), signal);
    }

    /** setpriv from util-linux 2.33 or later (the first with --pdeathsig) on PATH, or null. */
    private static String setpriv() {
        Path found = Executable.find("setpriv", System.getenv("PATH"));
        if (found == null) return null;
        byte[] option = "pdeathsig".getBytes(StandardCharsets.US_ASCII);
        try (InputStream in = Files.newInputStream(found)) {
            // The option's name is in its binary (its getopt table); reading ~50 KB costs less than running it.
            byte[] all = in.readNBytes(4 << 20);
            outer:
            for (int i = 0; i + option.length <= all.length; i++) {
                for (int j = 0; j < option.length; j++) {
                    if (all[i + j] != option[j]) continue outer;
                }
                return found.toString();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
