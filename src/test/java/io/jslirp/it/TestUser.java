package io.jslirp.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An ordinary user for rootless tests, made by root for one test class and removed afterwards: the
 * user runs jslirp's entry points (and rootlesskit, Podman, QEMU) as users do, without privileges.
 *
 * <p>What {@link #create()} sets up, and {@link #close()} takes away again:
 * <ul>
 *   <li>a user of its own name ({@code jslirp-u} and six random characters, so that concurrent test
 *       runs on one machine do not share one) with a home directory ({@code useradd -m}) and
 *       subordinate ids ({@code useradd} allocates them where login.defs says so, else {@code usermod
 *       --add-subuids/--add-subgids} with a free range); {@code userdel -r} removes the user, its
 *       group, its home and its subuid/subgid entries;</li>
 *   <li>{@link #dir()}, a directory of root's in java.io.tmpdir holding {@link #install()} (a copy of
 *       the launcher {@code jslirp}, {@code bin/}, {@code scripts/} and {@code target/jslirp.jar},
 *       readable by everyone and without pom.xml, so that the launcher runs the jar as it is: the
 *       checkout itself may not be readable by other users), the user's private {@link
 *       #runtimeDir()} (XDG_RUNTIME_DIR), its TMPDIR and a {@link #work()} directory of its own;</li>
 *   <li>/dev/net/tun the user can open. These machines have it at mode 0600; instead of changing the
 *       device's mode for the whole machine (which a test run killed midway would leave changed, and
 *       which concurrent runs would race on), each command of the user's starts in a private mount
 *       namespace where a tmpfs on /dev/net holds a node for the same device with mode 0666 ({@link
 *       Tun#USABLE}) or 0600 ({@link Tun#ROOT_ONLY}: what an ordinary user meets here without
 *       changes). The machine's /dev/net/tun is never touched. Everything the command starts (user
 *       and mount namespaces of rootlesskit, Podman's pause process, ...) inherits that view.</li>
 * </ul>
 *
 * <p>Commands run as the user with {@code setpriv --reuid --regid --init-groups}, in the home
 * directory, with a clean environment: HOME, USER, LOGNAME, XDG_RUNTIME_DIR, TMPDIR, a PATH with
 * /usr/sbin and /sbin, and JAVA_HOME naming the JDK of the tests when the user can run it.
 *
 * <p>Clean-up, also when a test fails: every process of the user's (its uid, or one of its
 * subordinate ids: containers) is killed by PID — the user exists only for this fixture, so every
 * such process was started through it — and so is every process {@link #start} started; then the
 * user is deleted, and so are {@link #dir()} and the files the user left in /tmp, /var/tmp and
 * /dev/shm (Podman's lock file). {@link #close()} fails when something could not be removed. A JVM
 * shutdown hook closes a fixture left open, and {@link #create()} first removes users an earlier,
 * killed test JVM left behind (their comment field names the JVM's PID and start time).
 */
public final class TestUser implements AutoCloseable {
    /** What /dev/net/tun looks like to the user's command. */
    public enum Tun {
        /** Mode 0666, as most distributions have it: rootless networking can make taps. */
        USABLE("666"),
        /** Mode 0600, owned by root, as on these machines: an ordinary user cannot open it. */
        ROOT_ONLY("600");

        final String mode;

        Tun(String mode) {
            this.mode = mode;
        }
    }

    static final String PREFIX = "jslirp-u";
    private static final String COMMENT = "jslirp TestUser pid=";
    private static final Duration T = Duration.ofSeconds(30);
    private static final Path TUN = Path.of("/dev/net/tun");
    private static final Path SUBUID = Path.of("/etc/subuid"), SUBGID = Path.of("/etc/subgid");
    /** Shared directories where the user's programs may leave files of their own (Podman: /dev/shm/libpod_rootless_lock_UID). */
    private static final List<Path> SHARED_TMP = List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"));

    private final String name;
    private final long uid, gid;
    private final Path dir, home;
    private final String tunDevice; // "MAJOR MINOR" of the machine's /dev/net/tun
    private final List<long[]> subids = new ArrayList<>(); // [start, count] of its subordinate uid ranges
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<Process> started = new ArrayList<>();
    private final Thread hook = new Thread(this::closeQuietly, "TestUser-cleanup");
    private boolean closed;

    private TestUser(String name, long uid, long gid, Path dir, Path home, String tunDevice) {
        this.name = name;
        this.uid = uid;
        this.gid = gid;
        this.dir = dir;
        this.home = home;
        this.tunDevice = tunDevice;
    }

    /**
     * Creates the user and its directories; skips the test (assumption) unless we are root, the
     * tools are there and the user may create user namespaces.
     */
    public static TestUser create() {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeTools("useradd", "userdel", "usermod", "setpriv", "mount", "mknod", "env");
        assumeTrue(Files.isRegularFile(ItEnv.home().resolve("target/jslirp.jar")), "target/jslirp.jar not built");
        removeStaleUsers();
        String name = PREFIX + randomSuffix();
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), name);
        Path home = Path.of("/home", name);
        ProcessHandle self = ProcessHandle.current();
        String comment = COMMENT + self.pid() + " start=" + self.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        Cmd.Result add = Cmd.run(T, "useradd", "-m", "-d", home.toString(), "-s", "/bin/sh", "-c", comment, name);
        assumeTrue(add.exit() == 0, () -> "cannot create a test user: " + add);
        TestUser u = null;
        try {
            long uid = Long.parseLong(require(Cmd.run(T, "id", "-u", name)).out().strip());
            long gid = Long.parseLong(require(Cmd.run(T, "id", "-g", name)).out().strip());
            long rdev = (Long) Files.getAttribute(TUN, "unix:rdev", LinkOption.NOFOLLOW_LINKS);
            // glibc's dev_t: the major number in bits 8-19 and 44-63, the minor in bits 0-7 and 20-43
            String device = (((rdev & 0xfff00L) >>> 8) | ((rdev >>> 32) & ~0xfffL)) + " " + ((rdev & 0xffL) | ((rdev >>> 12) & 0xffffff00L));
            u = new TestUser(name, uid, gid, dir, home, device);
            Runtime.getRuntime().addShutdownHook(u.hook);
            u.setUp();
            Cmd.Result userns = u.run(T, "unshare", "--user", "--map-root-user", "true");
            assumeTrue(userns.exit() == 0, () -> "an ordinary user cannot create user namespaces here: " + userns);
            Cmd.Result tun = u.run(T, "sh", "-c", "exec 3<>/dev/net/tun");
            if (tun.exit() != 0) throw new IllegalStateException("the user cannot open its /dev/net/tun: " + tun);
            if (ItEnv.which("newuidmap") != null) { // what rootlesskit and Podman map them with
                Cmd.Result ids = u.run(T, "unshare", "--user", "--map-auto", "true");
                if (ids.exit() != 0) throw new IllegalStateException("the subordinate ids of " + u + " do not work: " + ids);
            }
            return u;
        } catch (IOException e) {
            abandon(u, name);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            abandon(u, name);
            throw e;
        }
    }

    /** Undoes a create() that failed halfway. */
    private static void abandon(TestUser u, String name) {
        if (u != null) u.closeQuietly();
        else Cmd.run(T, "userdel", "-r", name);
    }

    private void setUp() throws IOException {
        if (!hasSubids(SUBUID) || !hasSubids(SUBGID)) {
            long start = Math.max(nextFree(SUBUID), nextFree(SUBGID));
            String range = start + "-" + (start + 65535);
            require(Cmd.run(T, "usermod", "--add-subuids", range, "--add-subgids", range, name));
        }
        subids.addAll(subuids(name, uid));
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x")); // whatever the umask
        copyInstall();
        for (String d : List.of("run", "tmp", "work")) {
            Path p = dir.resolve(d);
            Files.createDirectory(p);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(d.equals("work") ? "rwxr-xr-x" : "rwx------"));
            chown(p);
        }
        env.put("HOME", home.toString());
        env.put("USER", name);
        env.put("LOGNAME", name);
        env.put("XDG_RUNTIME_DIR", runtimeDir().toString());
        env.put("TMPDIR", dir.resolve("tmp").toString());
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
        env.put("LANG", "C.UTF-8");
        String javaHome = System.getProperty("java.home");
        if (javaHome != null && run(T, "test", "-x", javaHome + "/bin/java").exit() == 0) env.put("JAVA_HOME", javaHome);
    }

    /** The launcher, bin/, scripts/ and the jar, readable and (where they were) executable by everyone; no pom.xml. */
    private void copyInstall() throws IOException {
        Path from = ItEnv.home(), to = install();
        List<String> parts = List.of("jslirp", "bin", "scripts", "target/jslirp.jar");
        for (String part : parts) {
            Path src = from.resolve(part);
            try (var s = Files.walk(src)) {
                for (Path p : s.toList()) {
                    Path dst = to.resolve(from.relativize(p).toString());
                    Files.createDirectories(dst.getParent());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(dst);
                        continue;
                    }
                    Files.copy(p, dst, StandardCopyOption.COPY_ATTRIBUTES);
                    Files.setPosixFilePermissions(dst, PosixFilePermissions.fromString(Files.isExecutable(p) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
        }
        try (var s = Files.walk(to)) {
            for (Path p : s.filter(Files::isDirectory).toList()) Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    public String name() {
        return name;
    }

    public long uid() {
        return uid;
    }

    /** Root's directory of this fixture (mode 0755): install/, run/, tmp/, work/. */
    public Path dir() {
        return dir;
    }

    /** The user's copy of jslirp: {@code jslirp}, {@code bin/slirp4netns}, {@code scripts/}, {@code target/jslirp.jar}. */
    public Path install() {
        return dir.resolve("install");
    }

    /** The user's home directory (HOME). */
    public Path home() {
        return home;
    }

    /** {@code install()/jslirp}. */
    public String jslirp() {
        return install().resolve("jslirp").toString();
    }

    /** The user's XDG_RUNTIME_DIR (mode 0700, the user's). */
    public Path runtimeDir() {
        return dir.resolve("run");
    }

    /** A directory of the user's, readable by everyone, for the test's files. */
    public Path work() {
        return dir.resolve("work");
    }

    /** Gives a file or directory the fixture made to the user. */
    public void chown(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", (int) gid, LinkOption.NOFOLLOW_LINKS);
    }

    /** The command line (for root) that runs {@code cmd} as the user, with /dev/net/tun usable. */
    public List<String> command(List<String> cmd) {
        return command(Tun.USABLE, cmd);
    }

    /**
     * The command line (for root) that runs {@code cmd} as the user: a private mount namespace with
     * /dev/net/tun as {@code tun} says, the home directory as working directory, setpriv to the user
     * with a clean environment. Every step execs the next: the process's PID is the command's.
     */
    public List<String> command(Tun tun, List<String> cmd) {
        List<String> c = new ArrayList<>(List.of(tool("unshare"), "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                "mount -t tmpfs -o mode=0755,size=16k jslirp-test-tun /dev/net && mknod -m \"$1\" /dev/net/tun c $2 && cd \"$3\""
                        + " && shift 3 && exec \"$@\"",
                "sh", tun.mode, tunDevice, home.toString(),
                tool("setpriv"), "--reuid=" + uid, "--regid=" + gid, "--init-groups", "--", tool("env"), "-i"));
        env.forEach((k, v) -> c.add(k + "=" + v));
        c.addAll(cmd);
        return c;
    }

    public Cmd.Result run(Duration timeout, String... cmd) {
        return run(timeout, Tun.USABLE, List.of(cmd));
    }

    public Cmd.Result run(Duration timeout, List<String> cmd) {
        return run(timeout, Tun.USABLE, cmd);
    }

    public Cmd.Result run(Duration timeout, Tun tun, List<String> cmd) {
        return Cmd.run(timeout, command(tun, cmd));
    }

    /** Runs a bash script as the user with {@code set -o pipefail}. */
    public Cmd.Result bash(Duration timeout, String script) {
        return run(timeout, "bash", "-c", "set -o pipefail; " + script);
    }

    /** Starts {@code cmd} as the user in the background, stdout and stderr to {@code log}; {@link #close()} kills it. */
    public synchronized Process start(Path log, List<String> cmd) {
        try {
            Process p = new ProcessBuilder(command(cmd)).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            started.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    /** Starts a jslirp command as the user (e.g. {@code attach}), as {@link Stack#start} does; the caller stops it. */
    public Stack.Running startStack(List<String> cmd) {
        return Stack.start(command(cmd));
    }

    /** Every running process of the user's: its uid, or one of its subordinate uids (a container's). */
    public List<ProcessHandle> processes() {
        List<ProcessHandle> mine = new ArrayList<>();
        String[] pids = new java.io.File("/proc").list();
        if (pids == null) return mine;
        for (String pid : pids) {
            if (!pid.chars().allMatch(Character::isDigit)) continue;
            try {
                for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                    if (line.startsWith("State:") && line.contains("(zombie)")) break; // its parent reaps it
                    if (!line.startsWith("Uid:")) continue;
                    String[] ids = line.substring(4).strip().split("\\s+"); // real, effective, saved, file system
                    if (java.util.Arrays.stream(ids).mapToLong(Long::parseLong).anyMatch(this::owns)) {
                        ProcessHandle.of(Long.parseLong(pid)).ifPresent(mine::add);
                    }
                    break;
                }
            } catch (IOException | RuntimeException gone) {
                // exited meanwhile
            }
        }
        return mine;
    }

    private boolean owns(long id) {
        if (id == uid) return true;
        for (long[] r : subids) {
            if (id >= r[0] && id < r[0] + r[1]) return true;
        }
        return false;
    }

    /** The command line of a process, arguments separated by spaces ("" when it is gone). */
    public static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")), java.nio.charset.StandardCharsets.UTF_8)
                    .replace('\0', ' ').strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills (SIGKILL, by PID) every process {@link #start} started and every process of the user's; waits until none is left. */
    public synchronized void killProcesses() {
        for (Process p : started) {
            if (p.isAlive()) Cmd.killTree(p.toHandle());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<ProcessHandle> left = processes();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.forEach(ProcessHandle::destroyForcibly);
            Namespace.sleep(50);
            left = processes();
        }
        for (Process p : started) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        started.removeIf(p -> !p.isAlive());
        if (!left.isEmpty()) throw new IllegalStateException("processes of " + name + " survive SIGKILL: " + left.stream().map(TestUser::commandLine).toList());
    }

    /** Removes everything {@link #create()} made (see the class comment); fails when something is left. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        List<String> problems = new ArrayList<>();
        try {
            killProcesses();
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
        }
        removeUserAndFiles(name, uid, subids, dir, home, problems);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // called by the hook itself
        }
        if (!problems.isEmpty()) throw new IllegalStateException("the test user " + name + " was not removed cleanly: " + problems);
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            System.err.println("TestUser: " + e.getMessage());
        }
    }

    private static void removeUserAndFiles(String name, long uid, List<long[]> subids, Path dir, Path home, List<String> problems) {
        Cmd.Result del = Cmd.run(T, "userdel", "-r", name);
        if (del.exit() != 0 && del.exit() != 12) problems.add("userdel: " + del); // 12: no mail spool to remove, say
        if (Cmd.run(T, "id", "-u", name).exit() == 0) problems.add("user still there");
        for (Path f : List.of(SUBUID, SUBGID)) {
            try {
                if (!Files.exists(f)) continue;
                List<String> lines = Files.readAllLines(f);
                List<String> others = lines.stream().filter(l -> !l.startsWith(name + ":")).toList();
                // userdel removes them; a shadow that does not leaves them to us
                if (others.size() != lines.size()) Files.write(f, others);
            } catch (IOException e) {
                problems.add(f + ": " + e);
            }
        }
        deleteTree(home, problems);
        deleteTree(dir, problems);
        for (Path shared : SHARED_TMP) {
            try (var s = Files.list(shared)) {
                for (Path p : s.toList()) {
                    Object owner = Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                    long o = ((Number) owner).longValue();
                    boolean ours = o == uid || subids.stream().anyMatch(r -> o >= r[0] && o < r[0] + r[1]);
                    if (ours) deleteTree(p, problems);
                }
            } catch (IOException e) {
                // no such directory here
            }
        }
    }

    private static void deleteTree(Path root, List<String> problems) {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            problems.add("cannot remove " + root + ": " + e);
        }
    }

    /**
     * Removes the users an earlier test JVM made and did not remove (killed before its clean-up):
     * their comment names a JVM that no longer runs.
     */
    private static void removeStaleUsers() {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/etc/passwd"));
        } catch (IOException e) {
            return;
        }
        for (String l : lines) {
            String[] f = l.split(":", -1);
            if (f.length < 7 || !f[0].startsWith(PREFIX) || !f[4].startsWith(COMMENT)) continue;
            String[] owner = f[4].substring(COMMENT.length()).split(" start=");
            long pid, start;
            try {
                pid = Long.parseLong(owner[0]);
                start = owner.length > 1 ? Long.parseLong(owner[1]) : 0;
            } catch (NumberFormatException e) {
                continue;
            }
            boolean alive = ProcessHandle.of(pid)
                    .map(p -> p.info().startInstant().map(i -> i.toEpochMilli() == start).orElse(true))
                    .orElse(false);
            if (alive) continue; // another test JVM's, in use
            long uid = Long.parseLong(f[2]);
            List<long[]> subids;
            try {
                subids = subuids(f[0], uid);
            } catch (IOException | RuntimeException e) {
                subids = List.of();
            }
            TestUser stale = new TestUser(f[0], uid, -1, Path.of(System.getProperty("java.io.tmpdir"), f[0]), Path.of(f[5]), "");
            stale.subids.addAll(subids);
            List<ProcessHandle> left = stale.processes();
            left.forEach(ProcessHandle::destroyForcibly);
            removeUserAndFiles(f[0], uid, subids, stale.dir, stale.home, new ArrayList<>());
        }
    }

    /** The user's subordinate uid ranges, as [start, count]. */
    private static List<long[]> subuids(String name, long uid) throws IOException {
        List<long[]> ranges = new ArrayList<>();
        if (!Files.exists(SUBUID)) return ranges;
        for (String l : Files.readAllLines(SUBUID)) {
            String[] p = l.split(":");
            if (p.length == 3 && (p[0].equals(name) || p[0].equals(Long.toString(uid)))) {
                ranges.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])});
            }
        }
        return ranges;
    }

    private boolean hasSubids(Path f) throws IOException {
        return Files.exists(f) && Files.readAllLines(f).stream().anyMatch(l -> l.startsWith(name + ":"));
    }

    /** The first id after every range the file lists (at least 100000). */
    private static long nextFree(Path f) throws IOException {
        long next = 100000;
        if (!Files.exists(f)) return next;
        for (String l : Files.readAllLines(f)) {
            String[] p = l.split(":");
            if (p.length != 3) continue;
            try {
                next = Math.max(next, Long.parseLong(p[1]) + Long.parseLong(p[2]));
            } catch (NumberFormatException ignored) {
                // not a numeric range
            }
        }
        return next;
    }

    private static String randomSuffix() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom r = new SecureRandom();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 6; i++) b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        return b.toString();
    }

    private static String tool(String name) {
        Path p = ItEnv.which(name);
        return p == null ? name : p.toString();
    }

    private static Cmd.Result require(Cmd.Result r) {
        if (r.exit() != 0) throw new IllegalStateException("test user set-up failed: " + r.describe());
        return r;
    }

    @Override
    public String toString() {
        return "test user " + name + " (uid " + uid + ", subordinate ids " + subids.stream().map(r -> r[0] + "+" + r[1]).toList() + ", " + dir + ")";
    }
}
