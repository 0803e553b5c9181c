package io.jslirp.isolate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The confined root, as a list of steps (paths as they will be seen inside it), and where the JVM
 * to exec is found in it. Pure: what the host has is passed in ({@link Host}), so that the layout
 * can be checked without building it.
 *
 * <p>Everything is bound read-only, nosuid, nodev and noexec, but for what must run (the JDK and
 * the C library under /usr: exec) and the device nodes (dev). Nothing is writable but a --pcap
 * file (bound alone, not its directory) and what the handed-over descriptors reach.
 */
public record RootLayout(List<Step> steps, String java, String javaLibraries, String jar, String aotCache) {
    /** Where the JDK (when not under /usr), the jar and its AOT cache are found in the new root. */
    public static final String APP = "/jslirp";
    /** Directories bound whole: the resolver's files and the API socket's directory (as slirp4netns has), the C library. */
    static final List<String> BOUND = List.of("/etc", "/run", "/usr");
    /** Directories bound whole in place ({@link #inPlace}): the C library and what else the JVM may load from /usr, nothing more. */
    static final List<String> BOUND_IN_PLACE = List.of("/usr");
    /** The top-level names a merged /usr makes symlinks (bin -> usr/bin), bound where they are directories. */
    static final List<String> LIBRARY_LINKS = List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32");
    /** Device nodes a JVM may open (the random ones for SecureRandom). */
    static final List<String> DEVICES = List.of("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom");

    /** How a bound path may be used. */
    public enum Use {
        /** Read only: nosuid, nodev, noexec. */
        DATA,
        /** Read and run: nosuid, nodev. */
        PROGRAM,
        /** A device node: nosuid, noexec. */
        DEVICE,
        /** A file jslirp writes (a --pcap capture): nosuid, nodev, noexec, not read-only. */
        WRITABLE
    }

    /** One step of building the root. */
    public sealed interface Step {
        /** A directory (mode 0755) at path. */
        record Directory(String path) implements Step {}

        /** A symbolic link at path to target. */
        record Link(String path, String target) implements Step {}

        /** The host's source (a directory when directory, else a file) bound at path, for use. */
        record Bind(String source, String path, boolean directory, Use use) implements Step {}
    }

    /**
     * What the host has: the JDK's home, the jar and AOT cache in use (real paths; aotCache null
     * when none), what each of {@link #LIBRARY_LINKS} is at the host's root (a symlink's target, or
     * "" for a directory; absent when missing), further paths the options name to be read (real
     * paths, each with whether it is a directory), and files to be written (real paths).
     */
    public record Host(String javaHome, String jar, String aotCache, Map<String, String> rootEntries, Map<String, Boolean> exposed,
            List<String> writable) {}

    /** The layout for host, for a JVM started again in it: the JDK (unless under /usr), the jar and its cache at {@link #APP}. */
    public static RootLayout of(Host host) {
        return build(host, BOUND, true);
    }

    /**
     * The layout for host, for the running JVM to go on in ({@link InPlace}): /usr, and the JDK, the
     * jar and its cache each at its own path, where the JVM finds what it loads later (a native
     * library, a class of the jar); no /etc and no /run, which no command confined in place reads.
     */
    public static RootLayout inPlace(Host host) {
        return build(host, BOUND_IN_PLACE, false);
    }

    private static RootLayout build(Host host, List<String> bound, boolean relocate) {
        List<Step> steps = new ArrayList<>();
        Set<String> made = new LinkedHashSet<>();
        made.add("/");
        for (String dir : bound) {
            directories(dir, steps, made);
            steps.add(new Step.Bind(dir, dir, true, dir.equals("/usr") ? Use.PROGRAM : Use.DATA));
        }
        for (String name : LIBRARY_LINKS) {
            String entry = host.rootEntries().get(name);
            if (entry == null) continue;
            if (entry.isEmpty()) {
                directories("/" + name, steps, made);
                steps.add(new Step.Bind("/" + name, "/" + name, true, Use.PROGRAM));
            } else {
                steps.add(new Step.Link("/" + name, entry));
            }
        }
        directories("/dev", steps, made);
        for (String device : DEVICES) steps.add(new Step.Bind(device, device, false, Use.DEVICE));

        if (relocate) directories(APP, steps, made);
        String javaHome = host.javaHome();
        if (!covered(bound, javaHome)) {
            if (relocate) javaHome = APP + "/jdk";
            directories(javaHome, steps, made);
            steps.add(new Step.Bind(host.javaHome(), javaHome, true, Use.PROGRAM));
        }
        String jar = relocate ? APP + "/jslirp.jar" : host.jar();
        if (!relocate) directories(parent(jar), steps, made);
        steps.add(new Step.Bind(host.jar(), jar, false, Use.DATA));
        String aot = null;
        if (host.aotCache() != null) {
            aot = relocate ? APP + "/jslirp.aot" : host.aotCache();
            if (!relocate) directories(parent(aot), steps, made);
            steps.add(new Step.Bind(host.aotCache(), aot, false, Use.DATA));
        }
        host.exposed().forEach((path, directory) -> {
            if (covered(bound, path)) return;
            directories(directory ? path : parent(path), steps, made);
            steps.add(new Step.Bind(path, path, directory, Use.DATA));
        });
        for (String path : host.writable()) {
            directories(parent(path), steps, made);
            steps.add(new Step.Bind(path, path, false, Use.WRITABLE));
        }
        directories("/old", steps, made);
        return new RootLayout(List.copyOf(steps), javaHome + "/bin/java", javaHome + "/lib", jar, aot);
    }

    /** Whether path is inside one of the directories bound whole. */
    static boolean covered(List<String> bound, String path) {
        for (String dir : bound) if (path.equals(dir) || path.startsWith(dir + "/")) return true;
        return false;
    }

    private static String parent(String path) {
        return path.substring(0, Math.max(1, path.lastIndexOf('/')));
    }

    /** Directory steps for path and each of its parents not made yet, parents first. */
    private static void directories(String path, List<Step> steps, Set<String> made) {
        if (made.contains(path)) return;
        int slash = path.lastIndexOf('/');
        directories(slash <= 0 ? "/" : path.substring(0, slash), steps, made);
        made.add(path);
        steps.add(new Step.Directory(path));
    }
}
