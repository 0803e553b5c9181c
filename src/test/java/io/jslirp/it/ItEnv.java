package io.jslirp.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Environment of the kernel-peer integration tests: which stack is under test, where the repository
 * is, and the assumptions (root, tools) without which a test is skipped rather than failed.
 *
 * <p>System properties: {@code jslirp.it.stack} = {@code jslirp} (default) or {@code slirp4netns}
 * (to validate the tests themselves against the reference implementation); {@code jslirp.home} =
 * the repository root (default: the working directory).
 */
public final class ItEnv {
    private ItEnv() {}

    /** The repository root: holds the {@code jslirp} launcher. */
    public static Path home() {
        String h = System.getProperty("jslirp.home");
        if (h == null || h.isBlank()) h = System.getProperty("user.dir");
        return Path.of(h).toAbsolutePath().normalize();
    }

    public static boolean isRoot() {
        return "root".equals(System.getProperty("user.name")) || uid() == 0;
    }

    private static long uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return Long.parseLong(line.split("\\s+")[1]);
            }
        } catch (Exception e) {
            // fall through
        }
        return -1;
    }

    /** Finds an executable on PATH (or an absolute path), or null. */
    public static Path which(String tool) {
        if (tool.startsWith("/")) {
            Path p = Path.of(tool);
            return Files.isExecutable(p) ? p : null;
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        path = path + ":/usr/sbin:/usr/bin:/sbin:/bin";
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) return p;
        }
        return null;
    }

    /** Skips the test unless we are root and /dev/net/tun exists. */
    public static void assumeRootAndTun() {
        assumeTrue(isRoot(), "kernel-peer tests need root (network namespaces, tap)");
        assumeTrue(Files.exists(Path.of("/dev/net/tun")), "/dev/net/tun is missing");
        assumeTools("unshare", "nsenter", "ip");
    }

    /** Skips the test unless root, tap and the selected stack's executable are there. */
    public static void assumeStack() {
        assumeRootAndTun();
        Stack.Kind k = Stack.Kind.selected();
        assumeTrue(k.installed(), () -> "stack not installed: " + k.executable());
    }

    /** Skips the test when one of the tools is not installed. */
    public static void assumeTools(String... tools) {
        for (String t : tools) {
            assumeTrue(which(t) != null, () -> "tool not installed: " + t + " (needed: " + Arrays.toString(tools) + ")");
        }
    }

    /** Skips the test unless the stack under test is jslirp (for jslirp-only contract items). */
    public static void assumeJslirp(String why) {
        assumeTrue(Stack.Kind.selected() == Stack.Kind.JSLIRP, () -> "jslirp only: " + why);
    }

    /** Whether the running kernel's version (uname -r, /proc/sys/kernel/osrelease) is major.minor or later. */
    public static boolean kernelAtLeast(int major, int minor) {
        try {
            String[] v = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim().split("[.-]");
            int a = Integer.parseInt(v[0]), b = Integer.parseInt(v[1]);
            return a > major || a == major && b >= minor;
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the kernel's version: " + e, e);
        }
    }

    /** The Debian python3 (a python3 earlier on PATH may be a separate installation). */
    public static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /**
     * A port free on address now, below the ephemeral range (32768 and up here), so that no other
     * process's outgoing connection takes it between this probe and the test's bind.
     */
    public static int freePort(java.net.InetAddress address) throws java.io.IOException {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = random.nextInt(20000, 32000);
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.bind(new java.net.InetSocketAddress(address, port), 1);
                return port;
            } catch (java.net.BindException taken) {
                // another one
            }
        }
        throw new java.io.IOException("no free port in 20000-31999 on " + address);
    }
}
