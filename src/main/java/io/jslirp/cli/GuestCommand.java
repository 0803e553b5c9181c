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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import sun.misc.Signal;

/**
 * The command that {@code jslirp run} (and {@code bin/pasta} without a target) starts in a network
 * namespace of its own, and everything that command starts, none of which may outlive jslirp:
 * <ul>
 * <li>one platform thread makes the namespace, and a mount namespace of its own ({@link #start}),
 *     then starts the command from there once jslirp has set up everything else ({@link #go}), so
 *     a failed set-up leaves nothing. Its mount namespace (a copy of the JVM's, with the command's
 *     resolv.conf) is what lets the rest of the JVM isolate itself after: pivot_root moves the
 *     JVM's threads and leaves the command where it was. That thread then lives as long as the
 *     JVM, running what it is given ({@link #execute}): the isolation's move of its own root;
 * <li>the command runs in a PID namespace of its own, as pasta runs its command, under a small
 *     init ({@link #INIT}: /bin/sh) that mounts the namespace's own /proc, runs the command, reaps
 *     what is orphaned there and exits with the command's status. When that init ends, the kernel
 *     kills every process left in the namespace: daemons and background jobs go with the command;
 * <li>SIGTERM and SIGHUP to jslirp go on to the command and the processes under it, which then
 *     end as they choose; a second such signal, or {@link #GRACE_MILLIS} without their end, kills
 *     them (SIGKILL). jslirp exits with the command's status. SIGINT stays ignored: the terminal
 *     gives Ctrl-C to the command itself (an init ignores it, as PID 1 ignores every signal it has
 *     no handler for). An isolated JVM has no /proc to find the processes under the command, so a
 *     small shell started beside the command ({@link #RELAY}) finds and signals them when the JVM
 *     writes the signal's name to it;
 * <li>any other end of the JVM (an error, System.exit) kills them in a shutdown hook;
 * <li>a JVM killed outright (SIGKILL, a crash) runs no code: for that what it forks is started
 *     under util-linux's {@code setpriv --pdeathsig KILL}, so that the kernel kills it when its
 *     parent goes: util-linux's {@code unshare}, which made the PID namespace, and which takes the
 *     init, and so the namespace, with it ({@code --kill-child}). The parent that counts is the
 *     thread that forked it, which is why that thread never ends before the JVM.
 * </ul>
 * Where the kernel refuses a PID namespace, or util-linux's unshare is missing, the command runs
 * without one (with --debug, a line says so): then what it leaves behind outlives a SIGKILL of
 * jslirp, and without setpriv (util-linux before 2.33), so does the command itself.
 */
final class GuestCommand implements Executor {
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

    /**
     * The relay's script: for each signal name it reads (TERM, HUP or KILL), the signal to the
     * process $1 and every process under it (all found first, while they are still under it), then
     * "done". It reads /proc, which an isolated JVM no longer has; it ignores the terminal's
     * signals and exits at the end of its input, when the JVM has gone.
     */
    static final String RELAY = "trap '' INT QUIT HUP TERM\n"
            + "below() { for c in $(cat /proc/$1/task/*/children 2>/dev/null); do echo \"$c\"; below \"$c\"; done; }\n"
            + "while read -r s; do\n"
            + "  case $s in TERM|HUP|KILL) kill -s \"$s\" \"$1\" $(below \"$1\") 2>/dev/null ;; esac\n"
            + "  echo done\n"
            + "done\n";

    private final Thread thread;
    private final CompletableFuture<Object> ready = new CompletableFuture<>();
    private final CompletableFuture<Boolean> go = new CompletableFuture<>();
    private final CompletableFuture<Launched> started = new CompletableFuture<>();
    /** What {@link #execute} gives the thread once the command has started. */
    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();

    private GuestCommand(List<String> argv, Callable<?> setUp, Function<IOException, RuntimeException> cannotRun) {
        // A daemon: it ends with the JVM, never before (it is the command's parent for PR_SET_PDEATHSIG).
        thread = Thread.ofPlatform().name("netns-setup").daemon().unstarted(() -> {
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET | Namespaces.CLONE_NEWNS | Namespaces.CLONE_FS);
                ready.complete(setUp.call());
            } catch (Throwable t) {
                ready.completeExceptionally(t);
                return;
            }
            if (!go.join()) return;
            try {
                started.complete(launch(argv));
            } catch (IOException e) {
                started.completeExceptionally(cannotRun.apply(e));
                return;
            } catch (Throwable t) {
                started.completeExceptionally(t);
                return;
            }
            runTasks();
        });
    }

    /**
     * Runs task on the thread that started the command (in the command's mount namespace, with the
     * root and working directory that it and the threads it started share), once the command has
     * started; refuses it where the command could not be started (the thread has ended).
     */
    @Override
    public void execute(Runnable task) {
        if (!thread.isAlive() || started.isCompletedExceptionally()) throw new RejectedExecutionException("the command's thread has ended");
        tasks.add(task);
    }

    private void runTasks() {
        while (true) {
            try {
                tasks.take().run();
            } catch (InterruptedException e) {
                // only the JVM's end stops this thread
            } catch (RuntimeException | Error e) {
                Log.debug(() -> "the command's thread: " + Main.oneLine(e)); // the task says so to its caller
            }
        }
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
        // Handled before the command starts: a TERM that came as soon as it ran (a caller that
        // waits for it to appear, then stops it) found the JVM's default and ended jslirp alone.
        SignalForwarding forwarding = new SignalForwarding();
        go.complete(true);
        Launched l = Serving.joined(started);
        forwarding.launched(l);
        return l.command();
    }

    /** The command's process (its chain's first) and the relay that signals what is under it, or null where none started. */
    private record Launched(Process command, Relay relay) {}

    /**
     * Forks argv (stdio inherited) from the calling thread, in a PID namespace of its own under
     * {@link #INIT} where the kernel allows, under setpriv --pdeathsig KILL where that is available.
     * util-linux's unshare makes the PID namespace and forks the init, whom it kills when it ends
     * (--kill-child): this thread cannot, as a thread that has unshared its children's PID namespace
     * can start no thread, and the JDK starts one for each process it forks.
     */
    private static Launched launch(List<String> argv) throws IOException {
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
        Process p = new ProcessBuilder(line).inheritIO().start();
        return new Launched(p, Relay.start(p));
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

    /**
     * SIGTERM and SIGHUP to jslirp go on to the command (and what runs under it), which has
     * {@link #GRACE_MILLIS} to end before it is killed; a second one kills it at once. SIGINT is
     * the command's (a shell ignores it): the network lives as long as the command. Installed
     * before the command starts; a signal that comes before it has is passed on once it has.
     */
    private static final class SignalForwarding {
        private final AtomicBoolean signalled = new AtomicBoolean();
        /** The command, once started; guarded by this. */
        private Launched launched;
        /** The first signal that came before the command started, and how many did; guarded by this. */
        private String early;
        private int earlyCount;

        SignalForwarding() {
            Signal.handle(new Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
            for (String name : new String[] {"TERM", "HUP"}) Signal.handle(new Signal(name), s -> received(name));
        }

        /** The command started: what came before is passed on, and the command goes if the JVM ends first. */
        void launched(Launched l) {
            String pending;
            int count;
            synchronized (this) {
                launched = l;
                pending = early;
                count = earlyCount;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (l.command().isAlive()) kill(l, "KILL");
            }, "command-end"));
            for (int i = 0; i < Math.min(count, 2); i++) pass(l, pending); // a second one kills it
        }

        private void received(String name) {
            Launched l;
            synchronized (this) {
                l = launched;
                if (l == null && earlyCount++ == 0) early = name;
            }
            if (l != null) pass(l, name);
        }

        private void pass(Launched l, String name) {
            if (signalled.getAndSet(true)) {
                kill(l, "KILL");
                return;
            }
            Log.debug(() -> "SIG" + name + ": passed on to the command");
            kill(l, name);
            Process p = l.command();
            Thread.ofPlatform().daemon().name("command-grace").start(() -> {
                try {
                    if (!p.waitFor(GRACE_MILLIS, TimeUnit.MILLISECONDS)) kill(l, "KILL");
                } catch (InterruptedException ignored) {
                    // the JVM is ending: the shutdown hook kills it
                }
            });
        }
    }

    /**
     * Sends the signal (TERM, HUP or KILL) to the command and to the processes under it, through
     * the relay; without one, to the command alone. An init ignores it unless it is SIGKILL, which
     * ends its whole namespace.
     */
    private static void kill(Launched l, String signal) {
        Process p = l.command();
        if (!p.isAlive()) return; // reaped: its number may be another's by now
        if (l.relay() == null || !l.relay().signal(signal)) Libc.kill(p.pid(), signal.equals("KILL") ? SIGKILL : new Signal(signal).getNumber());
    }

    /** The shell that finds and signals the processes under the command ({@link #RELAY}): its input, and its answers. */
    private static final class Relay {
        private final Process process;
        private final java.io.BufferedReader answers;

        private Relay(Process process) {
            this.process = process;
            this.answers = process.inputReader(StandardCharsets.US_ASCII);
        }

        /** The relay for command, started from the calling thread (the command's mount namespace, where /proc is); null if it cannot start. */
        static Relay start(Process command) {
            try {
                return new Relay(new ProcessBuilder("/bin/sh", "-c", RELAY, "jslirp-signals", Long.toString(command.pid()))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            } catch (IOException e) {
                Log.debug(() -> "no relay for signals (" + e.getMessage() + "): only the command itself gets them");
                return null;
            }
        }

        /** Has the relay send signal, and waits for its answer; false where it is gone. */
        synchronized boolean signal(String signal) {
            try {
                var in = process.getOutputStream();
                in.write((signal + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
                return "done".equals(answers.readLine());
            } catch (IOException e) {
                return false;
            }
        }
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
