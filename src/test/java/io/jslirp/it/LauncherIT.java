package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the launcher does for {@code jslirp attach} before the JVM starts, as slirp4netns does it
 * for its callers (rootlesskit runs it outside the child's user namespace with the child's PID;
 * slirp4netns's test scripts run {@code ip link set tap0 up} right after starting it): it joins the
 * target's user namespace and makes the tap device, which then goes with jslirp as slirp4netns's
 * goes with slirp4netns. The JVM is a stand-in here where the order matters: a "JDK" whose java
 * records where it started and waits, so the test sees what the launcher did before it.
 */
class LauncherIT {
    private static final Duration T = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void theTapExistsAndTheUserNamespaceIsJoinedBeforeTheJvmStarts() throws Exception {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeJslirp("the launcher is jslirp's");
        Path started = tmp.resolve("started");
        Path install = install(fakeJdk(started));
        try (Namespace ns = Namespace.createInOwnUserNamespace()) {
            Stack.Running launcher = Stack.start(List.of(install.resolve("bin/slirp4netns").toString(), "-r", "3", Long.toString(ns.pid()), "tap7"));
            try {
                awaitFile(started, launcher);
                assertThat(ns.exec(T, "ip", "-d", "link", "show", "tap7").out()).as("made before the JVM started")
                        .contains("tun type tap").contains("vnet_hdr on multi_queue").contains("persist on");
                assertThat(Files.readString(started).strip())
                        .as("the JVM starts in the target's user namespace")
                        .isEqualTo(Files.readSymbolicLink(Path.of(ns.userNamespacePath())).toString());
            } finally {
                launcher.stop();
            }
        }
    }

    /**
     * With --configure or an API socket the device appears when jslirp has configured it, or serves
     * the socket: a caller that waits for the device then takes it as configured, or talks to the
     * socket at once (slirp4netns's scripts do both).
     */
    @Test
    @Timeout(120)
    void withConfigureOrAnApiSocketTheDeviceComesWithTheJvm() throws Exception {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeJslirp("the launcher is jslirp's");
        Path started = tmp.resolve("started");
        Path install = install(fakeJdk(started));
        try (Namespace ns = Namespace.createInOwnUserNamespace()) {
            for (List<String> options : List.of(List.of("-c"), List.of("--api-socket", tmp.resolve("api.sock").toString()))) {
                Files.deleteIfExists(started);
                List<String> cmd = new ArrayList<>(List.of(install.resolve("bin/slirp4netns").toString()));
                cmd.addAll(options);
                cmd.addAll(List.of(Long.toString(ns.pid()), "tap8"));
                Stack.Running launcher = Stack.start(cmd);
                try {
                    awaitFile(started, launcher);
                    assertThat(ns.exec(T, "ip", "link", "show", "tap8").exit()).as("no device before the JVM, with %s", options).isNotZero();
                } finally {
                    launcher.stop();
                }
            }
        }
    }

    @Test
    @Timeout(120)
    void theLaunchersTapGoesWithJslirpAndACallersTapStays() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the launcher is jslirp's");
        try (Namespace ns = Namespace.createInOwnUserNamespace()) {
            // As slirp4netns's dhcp script: no --configure, the caller brings the device up itself.
            try (Stack.Running stack = Stack.attach(ns, Stack.Options.unconfigured())) {
                // The launcher's device, persistent until the JVM has it open and lets it go with itself.
                for (int i = 0; i < 300 && !ns.exec(T, "ip", "-d", "link", "show", "tap0").out().contains("persist off"); i++) {
                    assertThat(stack.alive()).as(stack.describe()).isTrue();
                    Namespace.sleep(100);
                }
                assertThat(ns.exec(T, "ip", "-d", "link", "show", "tap0").out()).contains("persist off");
                for (String step : List.of("ip addr add 10.0.2.100/24 dev tap0", "ip link set tap0 up", "ip route add default via 10.0.2.2")) {
                    assertThat(ns.exec(T, step.split(" ")).exit()).as(step).isZero();
                }
                assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY).exit()).as(stack.describe()).isZero();
            }
            assertThat(ns.exec(T, "ip", "link", "show", "tap0").exit()).as("the device went with jslirp").isNotZero();

            // A caller's device (rootlesskit makes its own) is the caller's: it stays.
            assertThat(ns.exec(T, "ip", "tuntap", "add", "name", "tap0", "mode", "tap").exit()).isZero();
            try (Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
                assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY).exit()).as(stack.describe()).isZero();
            }
            assertThat(ns.exec(T, "ip", "link", "show", "tap0").exit()).as("the caller's device stays").isZero();
        }
    }

    @Test
    @Timeout(120)
    void refusedArgumentsLeaveNoDeviceBehindAndUseSlirp4netnsWords() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the launcher is jslirp's");
        try (Namespace ns = Namespace.createInOwnUserNamespace()) {
            String pid = Long.toString(ns.pid());
            for (List<String> bad : List.of(
                    List.of("--cidr", "24", "invalid CIDR: 24"),
                    List.of("--cidr", "foo", "invalid CIDR: foo"),
                    List.of("--cidr", "10.0.2.100/24", "CIDR needs to be a network address like 10.0.2.0/24, not like 10.0.2.100/24"),
                    List.of("--cidr", "10.0.2.100/26", "prefix length needs to be 1-25"))) {
                // Without --configure, so that the launcher makes the device and jslirp has to remove it.
                List<String> cmd = new ArrayList<>(List.of(ItEnv.home().resolve("bin/slirp4netns").toString()));
                cmd.addAll(bad.subList(0, 2));
                cmd.addAll(List.of(pid, "tap11"));
                Cmd.Result r = Cmd.run(Duration.ofSeconds(60), cmd);
                assertThat(r.exit()).as("%s", r).isNotZero();
                assertThat(r.err().lines().filter(l -> !l.isBlank()).toList()).as("%s", r).hasSize(1);
                assertThat(r.err()).as("%s", r).contains(bad.get(2));
                assertThat(ns.exec(T, "ip", "link", "show", "tap11").exit()).as("no tap11 left after %s", r).isNotZero();
            }
        }
    }

    /**
     * The commands that serve a namespace run C2 alone (issue 19: one compiler's arenas at a time,
     * no profiled code), and {@code qemu} keeps C1's tiers, which compile a VM's per-frame code long
     * before C2's threshold: the JVM's compiler threads say which it got.
     */
    @Test
    @Timeout(120)
    void theServingCommandsRunC2AloneAndQemuKeepsC1() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the launcher is jslirp's");
        try (Namespace ns = Namespace.createInOwnUserNamespace();
             Stack.Running attach = Stack.attach(ns, Stack.Options.configured())) {
            assertThat(threadNames(attach.pid())).as(attach.describe())
                    .anyMatch(n -> n.startsWith("C2 CompilerThre")).noneMatch(n -> n.startsWith("C1 CompilerThre"));
        }
        Path socket = tmp.resolve("vm.sock");
        try (Stack.Running qemu = Stack.start(List.of(ItEnv.home().resolve("jslirp").toString(), "qemu", "--socket", socket.toString()))) {
            awaitFile(socket, qemu);
            assertThat(threadNames(qemu.pid())).as(qemu.describe())
                    .anyMatch(n -> n.startsWith("C2 CompilerThre")).anyMatch(n -> n.startsWith("C1 CompilerThre"));
        }
    }

    /** The names of a process's threads (/proc/PID/task/TID/comm). */
    private static List<String> threadNames(long pid) throws Exception {
        List<String> names = new ArrayList<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    names.add(Files.readString(task.resolve("comm")).strip());
                } catch (java.io.IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return names;
    }

    /** A copy of the launcher, bin/ and scripts/ with the jar, and a JAVA_HOME, in tmp. */
    private Path install(Path javaHome) throws Exception {
        Path home = ItEnv.home(), install = Files.createDirectories(tmp.resolve("install"));
        Files.copy(home.resolve("jslirp"), install.resolve("jslirp"));
        for (String dir : List.of("bin", "scripts")) {
            Files.createDirectories(install.resolve(dir));
            try (var files = Files.list(home.resolve(dir))) {
                for (Path f : files.toList()) Files.copy(f, install.resolve(dir).resolve(f.getFileName()));
            }
        }
        Files.createDirectories(install.resolve("target"));
        Files.copy(home.resolve("target/jslirp.jar"), install.resolve("target/jslirp.jar"));
        // No AOT training by the stand-in: an AOT cache file that is already there and newer than the jar.
        Files.writeString(install.resolve("target/jslirp-25.aot"), "");
        Files.writeString(install.resolve("jslirp"), Files.readString(install.resolve("jslirp"))
                .replace("source \"$here/scripts/java-home.sh\"", "source \"$here/scripts/java-home.sh\"\nJAVA_HOME=" + javaHome
                        + "; jdk_version=25"));
        return install;
    }

    /** A "JDK 25" whose java writes its user namespace to started and sleeps. */
    private Path fakeJdk(Path started) throws Exception {
        Path jdk = Files.createDirectories(tmp.resolve("jdk/bin"));
        Path java = jdk.resolve("java");
        Files.writeString(java, "#!/bin/sh\nreadlink /proc/self/ns/user > " + started + ".part && mv " + started + ".part " + started
                + "\nexec sleep 60\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(jdk.getParent().resolve("release"), "JAVA_VERSION=\"25\"\n");
        return jdk.getParent();
    }

    private static void awaitFile(Path f, Stack.Running process) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(f)) {
            if (!process.alive()) throw new AssertionError("the launcher ended: " + process.describe());
            if (System.nanoTime() > deadline) throw new AssertionError("the stand-in JVM did not start: " + process.describe());
            Thread.sleep(20);
        }
    }
}
