package io.jslirp.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The user-mode stack under test, driven through its command line. jslirp's {@code attach} takes
 * exactly slirp4netns 1.2's options, so the same tests run against either (system property
 * {@code jslirp.it.stack}): {@code <home>/jslirp attach [OPTIONS] PID IFNAME} or
 * {@code /usr/bin/slirp4netns [OPTIONS] PID IFNAME}.
 */
public final class Stack {
    private Stack() {}

    public enum Kind {
        JSLIRP, SLIRP4NETNS;

        /** From {@code -Djslirp.it.stack=jslirp|slirp4netns}; default jslirp. */
        public static Kind selected() {
            String s = System.getProperty("jslirp.it.stack", "jslirp").strip().toLowerCase(Locale.ROOT);
            return switch (s) {
                case "", "jslirp" -> JSLIRP;
                case "slirp4netns" -> SLIRP4NETNS;
                default -> throw new IllegalArgumentException("jslirp.it.stack must be jslirp or slirp4netns, not " + s);
            };
        }

        public String executable() {
            return this == JSLIRP ? ItEnv.home().resolve("jslirp").toString() : "/usr/bin/slirp4netns";
        }

        public boolean installed() {
            return Files.isExecutable(Path.of(executable()));
        }
    }

    /** Options of {@code attach} (the slirp4netns 1.2 subset the tests use, plus free-form extras). */
    public static final class Options {
        boolean configure = true;
        Integer mtu;
        String cidr;
        boolean disableHostLoopback;
        boolean enableIpv6;
        String ifname = "tap0";
        final List<String> extra = new ArrayList<>();

        public static Options configured() {
            return new Options();
        }

        /** Tap created but not configured (DHCP tests). */
        public static Options unconfigured() {
            Options o = new Options();
            o.configure = false;
            return o;
        }

        public Options mtu(int m) {
            mtu = m;
            return this;
        }

        public Options cidr(String c) {
            cidr = c;
            return this;
        }

        public Options disableHostLoopback() {
            disableHostLoopback = true;
            return this;
        }

        /** {@code --enable-ipv6} (slirp4netns has it too). */
        public Options enableIpv6() {
            enableIpv6 = true;
            return this;
        }

        /** Extra arguments placed before {@code PID IFNAME} (e.g. jslirp's {@code --resolv-conf FILE}). */
        public Options extra(String... args) {
            extra.addAll(List.of(args));
            return this;
        }
    }

    /** The attach command line for the selected stack. */
    public static List<String> attachCommand(Options o, String target) {
        return attachCommand(Kind.selected(), o, target);
    }

    public static List<String> attachCommand(Kind kind, Options o, String target) {
        List<String> c = new ArrayList<>();
        c.add(kind.executable());
        if (kind == Kind.JSLIRP) c.add("attach");
        if (o.configure) c.add("--configure");
        if (o.mtu != null) c.addAll(List.of("--mtu", o.mtu.toString()));
        if (o.cidr != null) c.addAll(List.of("--cidr", o.cidr));
        if (o.disableHostLoopback) c.add("--disable-host-loopback");
        if (o.enableIpv6) c.add("--enable-ipv6");
        c.addAll(o.extra);
        if (kind == Kind.JSLIRP && SANDBOXED && !o.extra.contains("--enable-sandbox")) c.add("--enable-sandbox");
        c.add(target);
        c.add(o.ifname);
        return c;
    }

    /**
     * -Djslirp.it.sandbox=true: every attach of the tests with --enable-sandbox, to show the
     * suite passes with the sandbox on; not CI's default,
     * which runs the sandbox in SandboxIT and AttachFlagsIT.
     */
    static final boolean SANDBOXED = Boolean.getBoolean("jslirp.it.sandbox");

    /**
     * The command that runs {@code command} in a new namespace behind the stack: {@code <home>/jslirp
     * run [runOptions] -- command...}. For slirp4netns (validation of the tests) a test-only shell
     * shim does the same with unshare + slirp4netns; {@code runOptions} may then only be --mtu N.
     */
    public static List<String> runCommand(List<String> runOptions, List<String> command) {
        List<String> c = new ArrayList<>();
        if (Kind.selected() == Kind.JSLIRP) {
            c.add(Kind.JSLIRP.executable());
            c.add("run");
        } else {
            c.add(slirp4netnsRunShim().toString());
        }
        c.addAll(runOptions);
        c.add("--");
        c.addAll(command);
        return c;
    }

    private static Path shim;

    /** A world-readable script emulating {@code jslirp run} with slirp4netns (also usable by an ordinary user). */
    static synchronized Path slirp4netnsRunShim() {
        if (shim != null) return shim;
        String script = """
                #!/bin/bash
                # Test-only emulation of `jslirp run [--mtu N] -- COMMAND...` with slirp4netns.
                set -u
                mtu=1500
                while [ $# -gt 0 ]; do
                  case "$1" in
                    --mtu) mtu=$2; shift 2 ;;
                    --) shift; break ;;
                    *) echo "run-shim: unsupported option $1" >&2; exit 2 ;;
                  esac
                done
                dir=$(mktemp -d)
                # the command waits until slirp4netns reports ready (it writes to the ready fd after configuring)
                unshare --user --map-root-user --net -- sh -c 'i=0; while [ ! -s "$0/ready" ]; do i=$((i+1)); [ $i -gt 600 ] && exit 125; sleep 0.05; done; exec "$@"' "$dir" "$@" &
                child=$!
                self=$(readlink /proc/self/ns/net)
                i=0
                while [ "$(readlink /proc/$child/ns/net 2>/dev/null)" = "$self" ]; do
                  i=$((i+1)); if [ $i -gt 400 ]; then kill $child; exit 125; fi; sleep 0.05
                done
                slirp4netns -c --mtu "$mtu" --ready-fd=3 "$child" tap0 3>"$dir/ready" >/dev/null 2>"$dir/slirp.err" &
                s=$!
                wait $child; rc=$?
                kill $s 2>/dev/null; wait $s 2>/dev/null
                rm -rf "$dir"
                exit $rc
                """;
        try {
            Path dir = Files.createTempDirectory("jslirp-it-shim", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            Path f = dir.resolve("run-slirp4netns.sh");
            Files.writeString(f, script);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
            dir.toFile().deleteOnExit();
            f.toFile().deleteOnExit();
            shim = f;
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the selected stack on the namespace and waits until the tap is there (configured, if asked). */
    public static Running attach(Namespace ns, Options o) {
        return attach(ns, o, Long.toString(ns.pid()));
    }

    /** As {@link #attach(Namespace, Options)}, naming the namespace by target (a PID, or a path with --netns-type=path). */
    public static Running attach(Namespace ns, Options o, String target) {
        Running r = start(attachCommand(o, target));
        try {
            if (o.configure) r.awaitConfigured(ns, o.ifname, Duration.ofSeconds(90));
            else r.awaitLink(ns, o.ifname, Duration.ofSeconds(90));
            if (r.command.contains("--enable-sandbox")) r.awaitSandboxed(Duration.ofSeconds(90));
            return r;
        } catch (RuntimeException | Error e) {
            r.close();
            throw e;
        }
    }

    /** Starts a stack command; stdout and stderr are captured to files. */
    public static Running start(List<String> command) {
        try {
            Path out = Files.createTempFile("jslirp-it-stack-out", ".txt");
            Path err = Files.createTempFile("jslirp-it-stack-err", ".txt");
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            return new Running(command, p, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** How a stack ended. */
    public record Exit(int code, String stdout, String stderr) {
        private static final Pattern COUNTERS = Pattern.compile("(?m)^jslirp: counters:(.*)$");
        private static final Pattern PAIR = Pattern.compile("([A-Za-z0-9_.-]+)=(-?\\d+)");

        /** The {@code jslirp: counters: name=value ...} line, parsed; empty when there is none. */
        public Map<String, Long> counters() {
            Map<String, Long> m = new LinkedHashMap<>();
            Matcher line = COUNTERS.matcher(stderr);
            String last = null;
            while (line.find()) last = line.group(1);
            if (last == null) return m;
            Matcher kv = PAIR.matcher(last);
            while (kv.find()) m.put(kv.group(1), Long.parseLong(kv.group(2)));
            return m;
        }
    }

    /** A running stack process. */
    public static final class Running implements AutoCloseable {
        private final List<String> command;
        private final Process process;
        private final Path out;
        private final Path err;
        private Exit exit;

        Running(List<String> command, Process process, Path out, Path err) {
            this.command = command;
            this.process = process;
            this.out = out;
            this.err = err;
        }

        public long pid() {
            return process.pid();
        }

        public boolean alive() {
            return process.isAlive();
        }

        public String stderr() {
            Exit e = exit;
            return e != null ? e.stderr() : read(err);
        }

        public String stdout() {
            Exit e = exit;
            return e != null ? e.stdout() : read(out);
        }

        private static String read(Path p) {
            try {
                return Files.exists(p) ? Files.readString(p, StandardCharsets.ISO_8859_1) : "";
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        }

        public String describe() {
            return "stack " + String.join(" ", command) + (process.isAlive() ? " (running)" : " (exited " + process.exitValue() + ")")
                    + "\n  stack stdout: " + Cmd.clip(stdout()) + "\n  stack stderr: " + Cmd.clip(stderr());
        }

        /** Waits until IFNAME has 10.0.2.100 and the default route goes via 10.0.2.2. */
        public void awaitConfigured(Namespace ns, String ifname, Duration timeout) {
            await(ns, timeout, "configured " + ifname, () -> {
                Cmd.Result a = ns.exec(Duration.ofSeconds(10), "ip", "-o", "-4", "addr", "show", "dev", ifname);
                if (a.exit() != 0 || !a.out().contains("10.0.2.100/")) return false;
                Cmd.Result r = ns.exec(Duration.ofSeconds(10), "ip", "-4", "route", "show", "default");
                return r.exit() == 0 && r.out().contains("via 10.0.2.2");
            });
        }

        /** Waits until IFNAME exists in the namespace. */
        public void awaitLink(Namespace ns, String ifname, Duration timeout) {
            await(ns, timeout, "link " + ifname, () -> ns.exec(Duration.ofSeconds(10), "ip", "link", "show", "dev", ifname).exit() == 0);
        }

        /**
         * Waits until the sandboxed program runs (the JVM exec'd from the new root), then a second
         * for it to start serving: it says so only on a ready fd, which these tests do not pass.
         */
        void awaitSandboxed(Duration timeout) {
            Path cmdline = Path.of("/proc/" + pid() + "/cmdline");
            await(null, timeout, "the sandbox", () -> {
                try {
                    return Files.readString(cmdline).contains("/jslirp/jslirp.jar");
                } catch (IOException e) {
                    return false;
                }
            });
            Namespace.sleep(1000);
        }

        private void await(Namespace ns, Duration timeout, String what, java.util.function.BooleanSupplier ready) {
            long deadline = System.nanoTime() + timeout.toNanos();
            long pause = 20;
            while (true) {
                if (ready.getAsBoolean()) return;
                if (!process.isAlive()) {
                    throw new AssertionError("stack exited before " + what + ":\n" + describe() + "\n  namespace: " + (ns == null ? "" : ns.describe()));
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("timed out waiting for " + what + ":\n" + describe() + "\n  namespace: " + (ns == null ? "" : ns.describe()));
                }
                Namespace.sleep(pause);
                pause = Math.min(200, pause * 2);
            }
        }

        /** SIGTERM, wait (then SIGKILL after 20 s), and return how it ended. Idempotent. */
        public synchronized Exit stop() {
            if (exit != null) return exit;
            try {
                if (process.isAlive()) {
                    process.destroy(); // SIGTERM
                    if (!process.waitFor(20, TimeUnit.SECONDS)) {
                        Cmd.killTree(process.toHandle());
                        process.waitFor(10, TimeUnit.SECONDS);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exit = new Exit(process.isAlive() ? -1 : process.exitValue(), read(out), read(err));
            Cmd.deleteQuietly(out);
            Cmd.deleteQuietly(err);
            return exit;
        }

        @Override
        public void close() {
            stop();
        }
    }
}
