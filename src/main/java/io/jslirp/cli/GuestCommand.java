package io.jslirp.cli;

import io.jslirp.sys.Libc;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import sun.misc.Signal;

/**
 * The command that {@code jslirp run} (and {@code bin/pasta} without a target) starts in a network
 * namespace of its own, and everything that command starts, none of which may outlive jslirp:
 * <ul>
 * <li>one platform thread makes the namespace ({@link #start}), then starts the command from there
 *     once jslirp has set up everything else ({@link #go}), so a failed set-up leaves nothing;
 * <li>the command runs in a PID namespace of its own, as pasta runs its command, under a small
 *     init ({@link #INIT}: /bin/sh) that mounts the namespace's own /proc, runs the command, reaps
 *     what is orphaned there and exits with the command's status. When that init ends, the kernel
 *     kills every process left in the namespace: daemons and background jobs go with the command;
 * <li>SIGTERM and SIGHUP to jslirp go on to the command and the processes under it, which then
 *     end as they choose; a second such signal, or {@link #GRACE_MILLIS} without their end, kills
 *     them (SIGKILL). jslirp exits with the command's status. SIGINT stays ignored: the terminal
 *     gives Ctrl-C to the command itself (an init ignores it, as PID 1 ignores every signal it has
 *     no handler for);
 * <li>any other end of the JVM (an error, System.exit) kills them in a shutdown hook;
 * <li>a JVM killed outright (SIGKILL, a crash) runs no code: for that what it forks is started
 *     under util-linux's {@code setpriv --pdeathsig KILL}, so that the kernel kills it when its
 *     parent goes: util-linux's {@code unshare}, which made the PID namespace, and which takes the
 *     init, and so the namespace, with it ({@code --kill-child}). The parent that counts is the
 *     thread that forked it, which is why that thread waits until the command has ended.
 * </ul>
 * Where the kernel refuses a PID namespace, or util-linux's unshare is missing, the command runs
 * without one (with --debug, a line says so): then what it leaves behind outlives a SIGKILL of
 * jslirp, and without setpriv (util-linux before 2.33), so does the command itself.
 */
final class GuestCommand {
    /** How long the command has to end after a SIGTERM or SIGHUP to jslirp before it is killed. */
    static final long GRACE_MILLIS = 3_000;
    private static final int SIGKILL = 9;

    /**
     * PID 1 of the command's PID namespace, run by /bin/sh with the command as its arguments, in a
     * mount namespace of its own (unshare --mount) so that the new /proc, whose process numbers are
     * the namespace's, is the command's alone. The command runs in the foreground (a background job
     * of a script would ignore SIGINT); while it runs, the shell's wait reaps any child, so orphans
     * reparented to it leave no zombies. The trailing exit keeps the shell from replacing itself with
     * the command, which as PID 1 would ignore SIGTERM and leave its own orphans unreaped.
     */
    static final String INIT = "mount -t proc -o nosuid,nodev,noexec proc /proc 2>/dev/null"
            + " || echo 'jslirp: the command sees the host'\\''s /proc: cannot mount one for its PID namespace' >&2\n"
            + "\"$@\"\n"
            + "exit $?\n";

    private final Thread thread;
    private final CompletableFuture<Object> ready = new CompletableFuture<>();
    private final CompletableFuture<Boolean> go = new CompletableFuture<>();
    private final CompletableFuture<Process> started = new CompletableFuture<>();

    private GuestCommand(List<String> argv, Callable<?> setUp, Function<IOException, RuntimeException> cannotRun) {
        thread = Thread.ofPlatform().name("netns-setup").unstarted(() -> {
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET);
                ready.complete(setUp.call());
            } catch (Throwable t) {
                ready.completeExceptionally(t);
                return;
            }
            if (!go.join()) return;
            Process p;
            try {
                p = launch(argv);
            } catch (IOException e) {
                started.completeExceptionally(cannotRun.apply(e));
                return;
            } catch (Throwable t) {
                started.completeExceptionally(t);
                return;
            }
            started.complete(p);
            awaitEnd(p);
        });
    }

    /**
     * Starts the thread that gives itself a new network namespace and runs setUp there (open the
     * tap, configure it); {@link #ready} returns what setUp made. cannotRun says in the caller's words
     * that the command could not be started.
     */
    static GuestCommand start(List<String> argv, Callable<?> setUp, Function<IOException, RuntimeException> cannotRun) {
        GuestCommand c = new GuestCommand(argv, setUp, cannotRun);
        c.thread.start();
        return c;
    }

    /** What the set-up made in the namespace, once it has; rethrows its failure (then nothing will start). */
    @SuppressWarnings("unchecked")
    <T> T ready() throws Exception {
        return (T) Serving.joined(ready);
    }

    /** jslirp could not set up the rest: the command is not started, the thread ends. */
    void abandon() {
        go.complete(false);
    }

    /**
     * Starts the command and ties it to jslirp from now on until the JVM ends: TERM and HUP
     * forwarded, SIGINT ignored, the command killed if the JVM ends first. Returns the process
     * whose end is the command's (the init, where there is one).
     */
    Process go() throws Exception {
        go.complete(true);
        Process p = Serving.joined(started);
        endWithJslirp(p);
        return p;
    }

    /**
     * Forks argv (stdio inherited) from the calling thread, in a PID namespace of its own under
     * {@link #INIT} where the kernel allows, under setpriv --pdeathsig KILL where that is available.
     * util-linux's unshare makes the PID namespace and forks the init, whom it kills when it ends
     * (--kill-child): this thread cannot, as a thread that has unshared its children's PID namespace
     * can start no thread, and the JDK starts one for each process it forks.
     */
    private static Process launch(List<String> argv) throws IOException {
        String path = System.getenv("PATH");
        List<String> line = new ArrayList<>();
        String setpriv = setpriv(path);
        if (setpriv != null) {
            line.addAll(List.of(setpriv, "--pdeathsig", "KILL", "--"));
        } else {
            Log.debug(() -> "no setpriv with --pdeathsig: the command would outlive a SIGKILL of jslirp");
        }
        Path unshare = Executable.find("unshare", path);
        if (unshare == null) {
            Log.debug(() -> "no unshare on PATH: the command runs in jslirp's PID namespace");
        } else if (pidNamespaceAllowed()) {
            line.addAll(List.of(unshare.toString(), "--pid", "--fork", "--kill-child", "--mount", "--",
                    "/bin/sh", "-c", INIT, "jslirp-init"));
        }
        line.addAll(argv);
        return new ProcessBuilder(line).inheritIO().start();
    }

    /** Whether the kernel gives this user namespace a new PID namespace: tried on a thread of its own that then ends. */
    private static boolean pidNamespaceAllowed() {
        CompletableFuture<SysException> refused = new CompletableFuture<>();
        Thread.ofPlatform().name("pidns-probe").start(() -> {
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWPID);
                refused.complete(null);
            } catch (SysException e) {
                refused.complete(e);
            }
        });
        SysException e = refused.join();
        if (e != null) Log.debug(() -> "no PID namespace for the command (" + e.getMessage() + "): what it leaves behind may outlive jslirp");
        return e == null;
    }

    /** Waits on the thread that started p until p has ended (that thread is p's parent for PR_SET_PDEATHSIG). */
    private static void awaitEnd(Process p) {
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

    private static void endWithJslirp(Process p) {
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

    /**
     * Sends signal to p and to the processes under it (found before p goes, while they are still its
     * descendants). An init ignores it unless it is SIGKILL, which ends its whole namespace.
     */
    private static void kill(Process p, int signal) {
        if (!p.isAlive()) return; // reaped: its number may be another's by now
        List<ProcessHandle> under = p.descendants().toList();
        Libc.kill(p.pid(), signal);
        for (ProcessHandle h : under) Libc.kill(h.pid(), signal);
    }

    /** setpriv from util-linux 2.33 or later (the first with --pdeathsig) on PATH, or null. */
    private static String setpriv(String path) {
        Path found = Executable.find("setpriv", path);
        if (found == null) return null;
        byte[] option = "pdeathsig".getBytes(StandardCharsets.US_ASCII);
        try (InputStream in = Files.newInputStream(found)) {
            // The option's name is in its binary (its getopt table): reading the file costs less than running it.
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
