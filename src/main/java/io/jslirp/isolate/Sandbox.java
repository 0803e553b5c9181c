package io.jslirp.isolate;

import io.jslirp.sys.Capabilities;
import io.jslirp.sys.Exec;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Mounts;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.SysException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/** Builds the confined root and execs the JVM again inside it (see the package's theory of operation). */
public final class Sandbox {
    private Sandbox() {}

    /** Where the new root is built, on a tmpfs of the new mount namespace (as slirp4netns does). */
    static final String STAGING = "/tmp";
    private static final long DATA = Mounts.MS_NOSUID | Mounts.MS_NODEV | Mounts.MS_NOEXEC;

    /**
     * Confines this process and runs it again, handing over handoff's descriptors and keep (those
     * the caller passed, e.g. a ready fd), with exposed (files or directories the options name)
     * readable and writable (existing files) writable in the new root at their paths. Returns only
     * by throwing IllegalStateException with one line saying which step failed; the process is
     * then half confined and must exit.
     */
    public static void enter(List<Path> exposed, List<Path> writable, Handoff handoff, int... keep) {
        List<String> cmdline = cmdline();
        RootLayout layout = RootLayout.of(host(cmdline, exposed, writable, true));
        Relaunch relaunch = Relaunch.of(cmdline, layout, handoff, System.getenv());
        int[] inherit = IntStream.concat(Arrays.stream(handoff.all()), Arrays.stream(keep)).filter(fd -> fd >= 0).toArray();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        // One platform thread does it all: the mount namespace, the root and the capabilities it
        // changes are its own, and the program it execs starts from them.
        Thread t = Thread.ofPlatform().name("sandbox").start(() -> {
            try {
                build(layout, true);
                Capabilities.keepOnly(Capabilities.CAP_NET_BIND_SERVICE);
                Exec.inheritOnly(inherit);
                Exec.execve(layout.java(), relaunch.argv(), relaunch.env());
            } catch (RuntimeException e) {
                failure.set(e);
            }
        });
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RuntimeException e = failure.get();
        throw new IllegalStateException("cannot create the sandbox: " + (e == null ? "interrupted" : e.getMessage()), e);
    }

    /** The environment variable that makes {@link #probe} run: for tests only. */
    public static final String PROBE_VARIABLE = "JSLIRP_SANDBOX_PROBE";

    /**
     * What a compromised program in the sandbox would meet, tried from inside it: a mount (needs
     * CAP_SYS_ADMIN), unshare(0) (harmless, but refused by --enable-seccomp's filter), a file
     * written under /etc, and the paths that must be gone. One line, for a test to read
     * (SandboxIT); run only when {@link #PROBE_VARIABLE} is set.
     */
    public static String probe() {
        List<String> results = new ArrayList<>();
        results.add("mount " + outcome(() -> Mounts.mount("tmpfs", "/", "tmpfs", 0, null)));
        results.add("unshare(0) " + outcome(() -> Namespaces.unshare(0)));
        results.add("write /etc " + outcome(() -> {
            try {
                Files.delete(Files.createFile(Path.of("/etc/jslirp-sandbox-probe")));
            } catch (IOException e) {
                throw new IllegalStateException(e.getClass().getSimpleName());
            }
        }));
        for (String p : List.of("/home", "/root", "/var", "/tmp", "/proc")) results.add(p + (Files.exists(Path.of(p)) ? " present" : " absent"));
        return String.join("; ", results);
    }

    private static String outcome(Runnable call) {
        try {
            call.run();
            return "allowed";
        } catch (SysException e) {
            return "refused " + io.jslirp.sys.Errno.describe(e.errno());
        } catch (IllegalStateException e) {
            return "refused " + e.getMessage();
        }
    }

    /** The JVM's command line, as the kernel has it. */
    static List<String> cmdline() {
        try {
            String all = new String(Files.readAllBytes(Path.of("/proc/self/cmdline")), StandardCharsets.UTF_8);
            List<String> args = new ArrayList<>(Arrays.asList(all.split("\0", -1)));
            if (!args.isEmpty() && args.getLast().isEmpty()) args.removeLast();
            return args;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc/self/cmdline: " + e.getMessage(), e);
        }
    }

    /**
     * What the host has for the layout: the JDK, jar and AOT cache of cmdline, the merged-usr
     * links, exposed and writable; with resolvConf, /etc/resolv.conf's target too where it leads
     * out of /etc and /run (the resolver re-reads it).
     */
    static RootLayout.Host host(List<String> cmdline, List<Path> exposed, List<Path> writable, boolean resolvConf) {
        String jar = Relaunch.jar(cmdline);
        String aot = Relaunch.aotCache(cmdline);
        Map<String, String> entries = new LinkedHashMap<>();
        for (String name : RootLayout.LIBRARY_LINKS) {
            Path p = Path.of("/", name);
            try {
                if (Files.isSymbolicLink(p)) entries.put(name, Files.readSymbolicLink(p).toString());
                else if (Files.isDirectory(p)) entries.put(name, "");
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + p + ": " + e.getMessage(), e);
            }
        }
        Map<String, Boolean> paths = new LinkedHashMap<>();
        for (Path p : exposed) {
            Path real = real(p);
            paths.put(real.toString(), Files.isDirectory(real));
        }
        // A resolv.conf that is a link out of /etc and /run (to a file the resolver keeps elsewhere).
        Path resolv = Path.of("/etc/resolv.conf");
        if (resolvConf && Files.exists(resolv)) paths.put(real(resolv).toString(), false);
        return new RootLayout.Host(real(Path.of(System.getProperty("java.home"))).toString(), real(Path.of(jar)).toString(),
                aot != null && Files.isRegularFile(Path.of(aot)) ? real(Path.of(aot)).toString() : null, entries, paths,
                writable.stream().map(p -> real(p).toString()).toList());
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("cannot resolve " + p + ": " + e.getMessage(), e);
        }
    }

    /**
     * The layout built on a tmpfs and pivot_root into it, the working directory its root; first,
     * with unshare, a mount namespace of the calling thread's own. Without, the process's mount
     * namespace must be its own already ({@link InPlace}): every thread then moves with it, since
     * a JVM's threads share one root and working directory.
     */
    static void build(RootLayout layout, boolean unshare) {
        if (unshare) Namespaces.unshareMounts();
        // The sources named by descriptors opened before the tmpfs covers STAGING (a jar may be there).
        Map<RootLayout.Step.Bind, Integer> sources = new LinkedHashMap<>();
        try {
            for (RootLayout.Step step : layout.steps()) {
                if (step instanceof RootLayout.Step.Bind b) sources.put(b, Libc.open(b.source(), Libc.O_PATH | Libc.O_CLOEXEC));
            }
            Mounts.mount("tmpfs", STAGING, "tmpfs", DATA, "mode=0755,size=64k");
            for (RootLayout.Step step : layout.steps()) make(step, sources);
        } finally {
            sources.values().forEach(Libc::close);
        }
        Mounts.chdir(STAGING);
        Mounts.pivotRoot(".", "old");
        Mounts.chdir("/");
        Mounts.unmount("/old", Mounts.MNT_DETACH);
        try {
            Files.delete(Path.of("/old"));
            // The root itself read-only (best effort, as slirp4netns: some kernels refuse it).
            Mounts.mount(null, "/", null, Mounts.MS_REMOUNT | Mounts.MS_BIND | Mounts.MS_RDONLY | DATA, null);
        } catch (IOException | SysException e) {
            io.jslirp.util.Log.debug(() -> "sandbox: " + e.getMessage());
        }
    }

    private static void make(RootLayout.Step step, Map<RootLayout.Step.Bind, Integer> sources) {
        try {
            switch (step) {
                case RootLayout.Step.Directory d -> {
                    if (!d.path().equals("/")) Files.createDirectory(Path.of(STAGING + d.path()));
                }
                case RootLayout.Step.Link l -> Files.createSymbolicLink(Path.of(STAGING + l.path()), Path.of(l.target()));
                case RootLayout.Step.Bind b -> {
                    Path target = Path.of(STAGING + b.path());
                    if (!b.directory()) Files.createFile(target);
                    long flags = switch (b.use()) {
                        case DATA -> Mounts.MS_RDONLY | DATA;
                        case PROGRAM -> Mounts.MS_RDONLY | Mounts.MS_NOSUID | Mounts.MS_NODEV;
                        case DEVICE -> Mounts.MS_RDONLY | Mounts.MS_NOSUID | Mounts.MS_NOEXEC;
                        case WRITABLE -> DATA;
                    };
                    Mounts.bindRestricted("/proc/self/fd/" + sources.get(b), target.toString(), flags);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot make " + step + ": " + e.getMessage(), e);
        }
    }
}
