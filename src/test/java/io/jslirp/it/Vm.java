package io.jslirp.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real VM for the tests: QEMU (TCG) booting Debian's cloud kernel with a busybox initramfs built
 * from Debian packages by {@code scripts/vm-image.sh} (cached in {@code target/vm-image}, built once
 * per test run), running one shell script of the caller's and powering off.
 *
 * <p>Inside the VM, /init loads the virtio-net modules, disables IPv6, brings {@code lo} and
 * {@code eth0} up without an address and runs the script as {@code /test.sh} with {@code sh}; its
 * output goes to the serial console, which is what {@link Result#console()} holds. The script
 * configures the network itself: {@code udhcpc -i eth0 -n -q -t 5 -T 1} (the image's udhcpc script
 * sets the address, the default route, the MTU and /etc/resolv.conf from the lease). Available in the
 * VM: the busybox applets (wget, sha256sum, ping, nslookup, httpd, nc, ip, timeout, ...). After the
 * script, /init prints {@value #EXIT_MARKER}{@code <status>} and powers off, which ends QEMU.
 *
 * <p>The script is added without rebuilding the image: the kernel unpacks concatenated cpio archives,
 * so each run's initrd is the cached {@code initramfs.cpio.gz} (zero-padded to 4 bytes) followed by
 * a small newc archive holding {@code /test.sh}.
 *
 * <p>Network safety: a VM script addresses only {@value Namespace#GATEWAY} (which every stack used
 * here maps to the host's 127.0.0.1) and, for DNS tests, {@value Namespace#DNS} with a resolver the
 * test started on loopback; host servers listen on 127.0.0.1 only.
 *
 * <p>How a test uses it (see {@link VmPasstIT} for a complete one):
 * <pre>{@code
 * Vm.assumeAvailable();                                     // skips without qemu-system-x86_64
 * try (HttpBlobServer http = new HttpBlobServer();
 *      Stack.Running stack = Stack.start(List.of(..., socket.toString()))) {   // listening on a unix socket
 *     Vm.awaitSocket(socket, Duration.ofSeconds(30), stack);
 *     Vm.Result r = Vm.run(Vm.streamNetdev(socket), """
 *             udhcpc -i eth0 -n -q -t 5 -T 1 || exit 1
 *             wget -q -O /tmp/blob '%s' || exit 2
 *             echo "SHA256 $(sha256sum /tmp/blob | cut -d' ' -f1)"
 *             """.formatted(http.guestUrl("/blob?seed=7&size=" + 20 * Blob.MIB)),
 *             Duration.ofSeconds(60));                      // script timeout; boot: BOOT_TIMEOUT
 *     assertThat(r.ok()).as(r.describe()).isTrue();         // status 0, powered off by itself
 *     assertThat(r.lines("SHA256 ")).containsExactly("SHA256 " + Blob.sha256(7, 20 * Blob.MIB));
 * }
 * }</pre>
 * Write big downloads to a file (the VM's root is in RAM) and hash afterwards: under TCG a
 * {@code wget | sha256sum} pipe costs about 0.65 s for 20 MiB of emulated CPU, several times the
 * transfer itself. A server in the VM reached from the host (port forwarding):
 * <pre>{@code
 * try (Vm.Running vm = Vm.start(netdev, """
 *         udhcpc -i eth0 -n -q -t 5 -T 1 || exit 1
 *         echo hello >/var/www/index.html && httpd -p 80 -h /var/www || exit 2
 *         echo HTTPD_READY
 *         sleep 60
 *         """)) {
 *     vm.awaitLine("HTTPD_READY", Vm.BOOT_TIMEOUT);
 *     ... GET http://127.0.0.1:FORWARDED_PORT/ on the host ...
 * }                                                         // close() kills QEMU
 * }</pre>
 * A DNS check in the VM: {@code nslookup NAME 10.0.2.3} (busybox), against a resolver the test runs
 * on host loopback behind the stack's DNS relay — never the machine's own resolver.
 * Netdev argument lists: {@link #streamNetdev(Path)} (QEMU connects to a stack listening on a unix
 * stream socket: frames with a 4-byte big-endian length), {@link #dgramNetdev(Path, Path)} (one frame
 * per unix datagram), {@link #userNetdev()} (QEMU's own slirp), or any list ending with a
 * {@code -device virtio-net-pci,netdev=n0} for a netdev of id {@code n0}.
 *
 * <p>QEMU 7.2 (Debian 12) connects a {@code -netdev stream} client once, at start, with no
 * {@code reconnect} option; when nothing listens yet it does not fail: the VM boots with a dead link
 * (udhcpc finds no lease) and nothing on stderr. So the stack must be listening before {@link #run}
 * starts QEMU ({@link #awaitSocket}).
 */
public final class Vm {
    /** What /init prints after /test.sh, followed by its exit status. */
    public static final String EXIT_MARKER = "JSLIRP-VM-TEST-EXIT=";
    /** What /init prints just before it runs /test.sh (the end of the boot). */
    static final String SCRIPT_START = "init: running /test.sh";
    /** Boot to /test.sh: about 2 s here with TCG; generous for a loaded 2-core CI machine. */
    public static final Duration BOOT_TIMEOUT = Duration.ofSeconds(90);
    /** Image build (first run: two package downloads, about 10 s). */
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(8);
    static final String QEMU = "qemu-system-x86_64";

    /** Terminal control sequences SeaBIOS and the kernel write (ESC c, ESC [ ... letter). */
    private static final Pattern ANSI = Pattern.compile("\u001B(?:\\[[0-9;?]*[A-Za-z]|c)");
    private static final Pattern EXIT = Pattern.compile("(?m)^" + Pattern.quote(EXIT_MARKER) + "(\\d+)\\s*$");

    private Vm() {}

    /** The kernel and initramfs of the cached image. */
    public record Image(Path kernel, Path initramfs) {}

    /**
     * How a VM run ended. {@code exit} is the script's status, -1 when the marker never came (boot
     * failure, timeout, crash); {@code timedOut} when QEMU had to be killed.
     */
    public record Result(List<String> command, String console, String qemuStderr, int exit, boolean timedOut,
                         Duration boot, Duration took) {
        /** The script ran to the end with status 0 and the VM powered off by itself. */
        public boolean ok() {
            return exit == 0 && !timedOut;
        }

        /** Console lines starting with {@code prefix} (e.g. a script's {@code "RESULT "} lines). */
        public List<String> lines(String prefix) {
            return console.lines().filter(l -> l.startsWith(prefix)).toList();
        }

        public String describe() {
            return "VM " + String.join(" ", command) + "\n  script exit=" + exit + (timedOut ? " (TIMED OUT, QEMU killed)" : "")
                    + " boot=" + (boot == null ? "n/a" : boot.toMillis() + "ms") + " took=" + took.toMillis() + "ms"
                    + "\n  console:\n" + Cmd.clip(console).indent(4) + "  qemu stderr: " + Cmd.clip(qemuStderr);
        }

        @Override
        public String toString() {
            return describe();
        }
    }

    /** Skips the test unless QEMU is installed and the image is there or can be built (apt-get, dpkg-deb). */
    public static void assumeAvailable() {
        ItEnv.assumeTools(QEMU);
        if (!cached()) ItEnv.assumeTools("apt-get", "apt-cache", "dpkg-deb", "gzip");
        assumeTrue(Files.isRegularFile(ItEnv.home().resolve("scripts/vm-image.sh")), "scripts/vm-image.sh missing");
    }

    static Path imageDir() {
        return ItEnv.home().resolve("target/vm-image");
    }

    private static boolean cached() {
        Path d = imageDir();
        return Files.isRegularFile(d.resolve("vmlinuz")) && Files.isRegularFile(d.resolve("initramfs.cpio.gz"));
    }

    private static Image image;

    /** The image, built (or found up to date) by scripts/vm-image.sh once per JVM. */
    public static synchronized Image image() {
        if (image != null) return image;
        Path dir = imageDir();
        Cmd.Result r = Cmd.run(BUILD_TIMEOUT, "bash", ItEnv.home().resolve("scripts/vm-image.sh").toString(), dir.toString());
        if (r.exit() != 0) throw new AssertionError("VM image build failed: " + r.describe());
        image = new Image(dir.resolve("vmlinuz"), dir.resolve("initramfs.cpio.gz"));
        return image;
    }

    /** {@code -netdev stream} as a client of a stack listening on a unix stream socket. */
    public static List<String> streamNetdev(Path socket) {
        return List.of("-netdev", "stream,id=n0,server=off,addr.type=unix,addr.path=" + qemuValue(socket),
                "-device", nic());
    }

    /** {@code -netdev dgram}: QEMU binds {@code local} and sends each frame as one datagram to {@code remote}. */
    public static List<String> dgramNetdev(Path local, Path remote) {
        return List.of("-netdev", "dgram,id=n0,local.type=unix,local.path=" + qemuValue(local)
                        + ",remote.type=unix,remote.path=" + qemuValue(remote),
                "-device", nic());
    }

    /**
     * {@code -netdev vhost-user} as a client of a backend listening on a unix stream socket. The
     * guest's memory must be a shareable file for the backend to map: a memfd backend of the
     * VM's whole memory (the 256 MiB {@link #start} gives it), on one NUMA node.
     */
    public static List<String> vhostUserNetdev(Path socket) {
        return vhostUserNetdev(socket, 1, 0);
    }

    /**
     * As {@link #vhostUserNetdev(Path)}, with {@code queues} queue pairs (the device multiqueue, one
     * interrupt vector per queue and two more: run it with as many vCPUs, {@link Machine#cpus}) and,
     * when {@code reconnectMs} is above 0, a chardev that connects again that long after the backend
     * went away (and waits for it to listen at start, instead of failing).
     */
    public static List<String> vhostUserNetdev(Path socket, int queues, int reconnectMs) {
        String chardev = "socket,id=c,path=" + qemuValue(socket) + (reconnectMs > 0 ? ",reconnect-ms=" + reconnectMs : "");
        String netdev = "vhost-user,id=n0,chardev=c" + (queues > 1 ? ",queues=" + queues : "");
        String device = nic() + (queues > 1 ? ",mq=on,vectors=" + (2 * queues + 2) : "");
        return List.of("-object", "memory-backend-memfd,id=mem,size=256M,share=on", "-numa", "node,memdev=mem",
                "-chardev", chardev, "-netdev", netdev, "-device", device);
    }

    /** Skips the test unless QEMU is of version major or later (vhost-user under TCG needs 10: 7.2 crashes). */
    public static void assumeQemuAtLeast(int major) {
        Cmd.Result r = Cmd.run(Duration.ofSeconds(30), QEMU, "--version");
        Matcher m = Pattern.compile("version (\\d+)\\.").matcher(r.out());
        assumeTrue(r.exit() == 0 && m.find() && Integer.parseInt(m.group(1)) >= major,
                "QEMU " + major + " or later needed: " + r.out().lines().findFirst().orElse("no version"));
    }

    /**
     * QEMU's own user-mode network (libslirp): gateway 10.0.2.2 is the host's loopback, DHCP from
     * 10.0.2.15. Options are appended, e.g. {@code "hostfwd=tcp:127.0.0.1:8080-:80"}. Its DNS relay
     * 10.0.2.3 goes to the machine's resolver: a script must not use it.
     */
    public static List<String> userNetdev(String... options) {
        StringBuilder o = new StringBuilder("user,id=n0,ipv6=off");
        for (String x : options) o.append(',').append(x);
        return List.of("-netdev", o.toString(), "-device", nic());
    }

    /** virtio-net on netdev n0, without the iPXE option ROM (not needed for -kernel boots; saves time). */
    static String nic() {
        return "virtio-net-pci,netdev=n0,romfile=";
    }

    /** A path as a QEMU option value (a comma would have to be doubled: refused instead). */
    private static String qemuValue(Path p) {
        String s = p.toAbsolutePath().toString();
        if (s.contains(",")) throw new IllegalArgumentException("path with a comma: " + s);
        return s;
    }

    /**
     * Waits until {@code socket} exists as a socket (the stack is listening), failing early when the
     * stack process has exited.
     */
    public static void awaitSocket(Path socket, Duration timeout, Stack.Running stack) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isSocket(socket)) {
            if (stack != null && !stack.alive()) throw new AssertionError("stack exited before listening on " + socket + ":\n" + stack.describe());
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no socket at " + socket + " after " + timeout + (stack == null ? "" : ":\n" + stack.describe()));
            }
            Namespace.sleep(20);
        }
    }

    private static boolean isSocket(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class).isOther();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Boots the VM with the given netdev arguments, runs {@code script} as /test.sh and returns the
     * console. Waits at most {@link #BOOT_TIMEOUT} for the boot to reach the script, then at most
     * {@code scriptTimeout} for the VM to power off; QEMU is killed in any case before returning.
     */
    public static Result run(List<String> netdev, String script, Duration scriptTimeout) {
        return run(netdev, script, BOOT_TIMEOUT, scriptTimeout);
    }

    public static Result run(List<String> netdev, String script, Duration bootTimeout, Duration scriptTimeout) {
        try (Running vm = start(netdev, script)) {
            return vm.finish(bootTimeout, scriptTimeout);
        }
    }

    /**
     * Starts the VM and returns at once, for a test that acts on the host while the script runs (a
     * request to a server in the VM through a forwarded port, say): {@link Running#awaitLine} waits
     * for a line the script prints, {@link Running#finish} for the power-off, and {@link
     * Running#close} kills QEMU (if still running) and removes the run's files.
     */
    public static Running start(List<String> netdev, String script) {
        return start(netdev, script, null);
    }

    /**
     * As {@link #start(List, String)}, with QEMU's command line run through {@code launcher} (e.g.
     * {@link TestUser#command(List)}: QEMU as an ordinary user). The run's directory, holding a copy
     * of the kernel then, is readable by everyone.
     */
    public static Running start(List<String> netdev, String script, UnaryOperator<List<String>> launcher) {
        return start(Machine.DEFAULT, netdev, script, launcher);
    }

    /** As {@link #run(List, String, Duration)}, on machine m. */
    public static Result run(Machine m, List<String> netdev, String script, Duration scriptTimeout) {
        try (Running vm = start(m, netdev, script, null)) {
            return vm.finish(BOOT_TIMEOUT, scriptTimeout);
        }
    }

    /**
     * The VM's hardware and kernel: {@code cpus} vCPUs; {@code ipv6} leaves IPv6 in the kernel (the
     * image's /init still turns it off on every interface: a script turns it on with
     * {@code echo 0 >/proc/sys/net/ipv6/conf/eth0/disable_ipv6}); {@code reboots} lets a
     * {@code reboot -f} in the script restart the VM, which then runs the script again (without it
     * QEMU exits).
     */
    public record Machine(int cpus, boolean ipv6, boolean reboots) {
        public static final Machine DEFAULT = new Machine(1, false, false);

        List<String> options(Path kernel, Path initrd) {
            List<String> o = new ArrayList<>(List.of(QEMU, "-accel", "tcg", "-m", "256", "-smp", String.valueOf(cpus), "-nographic"));
            if (!reboots) o.add("-no-reboot");
            o.addAll(List.of("-no-user-config", "-kernel", kernel.toString(), "-initrd", initrd.toString(),
                    "-append", "console=ttyS0 quiet panic=-1" + (ipv6 ? "" : " ipv6.disable=1")));
            return o;
        }
    }

    /** As {@link #start(List, String, UnaryOperator)}, on machine m. */
    public static Running start(Machine m, List<String> netdev, String script, UnaryOperator<List<String>> launcher) {
        Image img = image();
        Path dir = null;
        List<String> cmd = new ArrayList<>();
        try {
            dir = Files.createTempDirectory("jslirp-vm");
            Path initrd = dir.resolve("initrd");
            writeInitrd(img.initramfs(), script, initrd);
            Path kernel = img.kernel();
            if (launcher != null) {
                kernel = Files.copy(kernel, dir.resolve("vmlinuz"));
                for (Path p : List.of(dir, kernel, initrd)) {
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(p == dir ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            Path console = dir.resolve("console.txt");
            Path err = dir.resolve("qemu-stderr.txt");
            cmd.addAll(m.options(kernel, initrd));
            cmd.addAll(netdev);
            if (launcher != null) cmd = new ArrayList<>(launcher.apply(cmd));
            long t0 = System.nanoTime();
            Process qemu = new ProcessBuilder(cmd)
                    .redirectOutput(console.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            return new Running(List.copyOf(cmd), qemu, dir, console, err, t0);
        } catch (IOException e) {
            deleteTree(dir);
            throw new UncheckedIOException("cannot start the VM: " + cmd, e);
        }
    }

    /** A VM whose QEMU was started by {@link #start}. */
    public static final class Running implements AutoCloseable {
        private final List<String> command;
        private final Process qemu;
        private final Path dir;
        private final Path console;
        private final Path err;
        private final long t0;
        private Duration boot;

        Running(List<String> command, Process qemu, Path dir, Path console, Path err, long t0) {
            this.command = command;
            this.qemu = qemu;
            this.dir = dir;
            this.console = console;
            this.err = err;
            this.t0 = t0;
        }

        /** The console so far, without terminal control sequences and carriage returns. */
        public String console() {
            return ANSI.matcher(read(console)).replaceAll("").replace("\r", "");
        }

        public boolean alive() {
            return qemu.isAlive();
        }

        /**
         * Waits until a console line starts with {@code prefix} and returns that line; throws an
         * AssertionError (with the console) when QEMU ends or the timeout passes first.
         */
        public String awaitLine(String prefix, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                boolean alive = qemu.isAlive();
                String line = console().lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
                if (line != null) return line;
                if (!alive || System.nanoTime() > deadline) {
                    throw new AssertionError((alive ? "timed out after " + timeout : "VM ended") + " waiting for a console line \""
                            + prefix + "\"\n" + snapshot(-1, false).describe());
                }
                waitQemu(20);
            }
        }

        /**
         * Waits at most {@code bootTimeout} (from the start of QEMU) for the boot to reach the script,
         * then at most {@code scriptTimeout} for the VM to power off; kills QEMU if it did not.
         */
        public Result finish(Duration bootTimeout, Duration scriptTimeout) {
            boolean timedOut = false;
            long bootDeadline = t0 + bootTimeout.toNanos();
            while (boot == null) {
                boolean alive = qemu.isAlive();
                if (read(console).contains(SCRIPT_START)) {
                    boot = Duration.ofNanos(System.nanoTime() - t0); // within 10 ms
                    break;
                }
                if (!alive) break;
                if (System.nanoTime() > bootDeadline) {
                    timedOut = true;
                    break;
                }
                waitQemu(10);
            }
            if (!timedOut) {
                try {
                    if (!qemu.waitFor(scriptTimeout.toMillis(), TimeUnit.MILLISECONDS)) timedOut = true;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    timedOut = true;
                }
            }
            kill();
            String out = console();
            Matcher m = EXIT.matcher(out);
            int exit = -1;
            while (m.find()) exit = Integer.parseInt(m.group(1));
            return snapshot(exit, timedOut);
        }

        private Result snapshot(int exit, boolean timedOut) {
            return new Result(command, console(), read(err), exit, timedOut, boot, Duration.ofNanos(System.nanoTime() - t0));
        }

        private void waitQemu(long ms) {
            try {
                qemu.waitFor(ms, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private void kill() {
            if (!qemu.isAlive()) return;
            Cmd.killTree(qemu.toHandle());
            try {
                qemu.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Kills QEMU if it still runs and deletes the run's files. Idempotent. */
        @Override
        public void close() {
            kill();
            deleteTree(dir);
        }
    }

    /** The cached initramfs, zero-padded to a multiple of 4 bytes, followed by a newc archive with /test.sh. */
    static void writeInitrd(Path base, String script, Path to) throws IOException {
        Files.copy(base, to);
        long size = Files.size(to);
        try (OutputStream out = Files.newOutputStream(to, StandardOpenOption.APPEND)) {
            out.write(new byte[(int) ((4 - size % 4) % 4)]);
            out.write(cpio("test.sh", 0100755, script.getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** One regular file and the trailer as a newc ("070701") cpio archive, owned by root. */
    static byte[] cpio(String name, int mode, byte[] data) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        cpioEntry(b, 0x7e57, name, mode, data);
        cpioEntry(b, 0, "TRAILER!!!", 0, new byte[0]);
        return b.toByteArray();
    }

    private static void cpioEntry(ByteArrayOutputStream b, int ino, String name, int mode, byte[] data) {
        byte[] n = (name + "\0").getBytes(StandardCharsets.US_ASCII);
        long mtime = System.currentTimeMillis() / 1000;
        int[] fields = {ino, mode, 0, 0, 1, (int) mtime, data.length, 0, 0, 0, 0, n.length, 0};
        StringBuilder h = new StringBuilder("070701");
        for (int f : fields) h.append(String.format("%08X", f));
        b.writeBytes(h.toString().getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(n);
        pad4(b);
        b.writeBytes(data);
        pad4(b);
    }

    private static void pad4(ByteArrayOutputStream b) {
        while (b.size() % 4 != 0) b.write(0);
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            return "";
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null) return;
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(Cmd::deleteQuietly);
        } catch (IOException ignored) {
            // best effort
        }
    }
}
