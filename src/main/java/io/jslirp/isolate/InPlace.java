package io.jslirp.isolate;

import io.jslirp.sys.Capabilities;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Mounts;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Seccomp;
import io.jslirp.util.Log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Isolation without a second start, for an instance that the launcher started in a mount namespace
 * of its own (see the package's theory of operation): once set-up is done, the running JVM moves
 * into an almost empty root, gives up its capabilities on every thread and takes a seccomp filter
 * on every thread. What it still needs is open already (the tap, the sockets, the namespaces'
 * descriptors, a log or capture file) or bound into the new root at its own path (the JDK, the
 * jar and its AOT cache, /usr).
 */
public final class InPlace {
    private InPlace() {}

    /**
     * Set to 1 by the launcher for a JVM it started in a new mount namespace, which no other
     * process shares: pivot_root moves every process whose root is the old one, so it is safe only
     * there.
     */
    public static final String PRIVATE_MOUNTS = "JSLIRP_PRIVATE_MOUNTS";
    /** The user every thread becomes where user 0 gives up its capabilities: nobody, as pasta does. */
    static final int NOBODY = 65534;

    /** What was done, for a debug line and the tests: the user stage (the root and the filter go together), or why nothing was. */
    public record Outcome(boolean root, String user, String reason) {
        @Override
        public String toString() {
            if (!root) return "not isolated: " + reason;
            return "isolated: an empty root; " + user + "; seccomp filter on every thread";
        }
    }

    /**
     * Confines this process where the launcher made that possible ({@link #PRIVATE_MOUNTS}), with
     * exposed (files or directories to be read) and writable (existing files) bound at their paths.
     * Returns what was done; throws IllegalStateException with one line naming the step that
     * failed once it has started changing the root (the process must then exit).
     */
    public static Outcome confine(List<Path> exposed, List<Path> writable) {
        return confine(exposed, writable, List.of());
    }

    /**
     * As {@link #confine(List, List)}, for a process some of whose threads have a mount namespace
     * of their own (a thread that unshared one to start a command there, and the threads it
     * started): pivot_root does not move them, so each executor runs {@link Mounts#enterRoot} on
     * its thread, into the new root, before the user and the filter change. An executor whose
     * thread has ended refuses the task (RejectedExecutionException); nothing is left to move then.
     */
    public static Outcome confine(List<Path> exposed, List<Path> writable, List<Executor> elsewhere) {
        return confine(exposed, writable, elsewhere, false);
    }

    /**
     * As {@link #confine(List, List, List)}; with bypass the filter allows what the socket bypass
     * calls (process_vm_readv, pidfd_open, pidfd_getfd), and user 0 stays user 0 with its
     * capabilities: those calls need ptrace's access to the processes whose connects it takes,
     * which run as that user (a container's, in the user namespace Podman made).
     */
    public static Outcome confine(List<Path> exposed, List<Path> writable, List<Executor> elsewhere, boolean bypass) {
        String why = unsafe();
        if (why != null) return new Outcome(false, null, why);
        List<String> cmdline = Sandbox.cmdline();
        RootLayout layout = RootLayout.inPlace(Sandbox.host(cmdline, exposed, writable, false));
        int uid = Libc.geteuid();
        boolean nobody = uid == 0 && mapped(NOBODY) && !bypass;
        try {
            Sandbox.build(layout, false);
            if (!elsewhere.isEmpty()) follow(elsewhere);
            String user;
            if (nobody) {
                Capabilities.becomeUser(NOBODY);
                user = "every thread user " + NOBODY + ", without capabilities";
            } else {
                user = uid != 0 ? "user " + uid : bypass ? "capabilities kept (the socket bypass takes the descriptors of this user's processes)"
                        : "capabilities kept (no other user is mapped in this user namespace)";
            }
            Seccomp.installForIsolation(bypass);
            return new Outcome(true, user, null);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot isolate: " + e.getMessage(), e);
        }
    }

    /** Each executor's thread (and those sharing its root) into the root the calling thread now has. */
    private static void follow(List<Executor> elsewhere) {
        int root = Libc.open("/", Libc.O_PATH | Libc.O_CLOEXEC);
        try {
            for (Executor thread : elsewhere) {
                CompletableFuture<Void> moved = new CompletableFuture<>();
                try {
                    thread.execute(() -> {
                        try {
                            Mounts.enterRoot(root);
                            moved.complete(null);
                        } catch (Throwable t) {
                            moved.completeExceptionally(t);
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException gone) {
                    continue;
                }
                try {
                    moved.join();
                } catch (CompletionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            }
        } finally {
            Libc.close(root);
        }
    }

    /**
     * Why pivot_root here would reach beyond this process, or null when the launcher made the mount
     * namespace ours alone: it says so, and the parent's mount namespace is another. Where the
     * parent cannot be looked at (it is in the user namespace above ours, which the launcher made
     * with the mount namespace: {@code jslirp qemu} as an ordinary user), that mount namespace must
     * belong to our own user namespace.
     */
    private static String unsafe() {
        if (!"1".equals(System.getenv(PRIVATE_MOUNTS))) return "not started in a mount namespace of its own (" + PRIVATE_MOUNTS + ")";
        Path own, parent;
        try {
            own = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"));
        } catch (IOException e) {
            return "cannot read its mount namespace: " + e.getMessage();
        }
        try {
            parent = Files.readSymbolicLink(Path.of("/proc/" + ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(1L) + "/ns/mnt"));
        } catch (IOException | SecurityException e) {
            return Namespaces.ownsItsMountNamespace() ? null
                    : "cannot compare the mount namespace with the parent's (" + e.getMessage() + ") and it is not its user namespace's own";
        }
        return own.equals(parent) ? "the mount namespace is the parent's" : null;
    }

    /** Whether id is a user of this user namespace (its uid_map has it). */
    static boolean mapped(int id) {
        try {
            return mapped(Files.readAllLines(Path.of("/proc/self/uid_map")), id);
        } catch (IOException e) {
            Log.debug(() -> "uid_map: " + e.getMessage());
            return false;
        }
    }

    /** Whether id falls in one of uid_map's lines ("inside outside count"). */
    static boolean mapped(List<String> uidMap, long id) {
        for (String line : uidMap) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 3) continue;
            try {
                long first = Long.parseLong(f[0]), count = Long.parseLong(f[2]);
                Long.parseLong(f[1]); // the outside id: a line without one is not a mapping
                if (id >= first && id < first + count) return true;
            } catch (NumberFormatException e) {
                // not a mapping line
            }
        }
        return false;
    }
}
