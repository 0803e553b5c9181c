package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jslirp's entry points as an ordinary user runs them ({@link TestUser}: an unprivileged user with
 * subordinate ids and its own copy of jslirp): {@code attach} to a namespace the user made, with
 * the API socket's clients {@code status} and {@code forward add}; {@code run}; {@code qemu} with
 * QEMU as the user too; and, where the user may not open /dev/net/tun (mode 0600, as on these
 * machines), {@code run} and {@code attach} failing with one line that says so.
 */
class RootlessIT {
    private static final Duration T = Duration.ofSeconds(60);
    private static TestUser user;

    @BeforeAll
    static void createUser() {
        ItEnv.assumeJslirp("the user runs jslirp's own entry points");
        ItEnv.assumeTools("curl", "sha256sum");
        user = TestUser.create();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    @AfterEach
    void killTheUsersProcesses() {
        if (user != null) user.killProcesses();
    }

    /**
     * The user's own namespace ({@code unshare --user --map-root-user --net}) served by {@code
     * jslirp attach --configure --api-socket} started by the user: curl in the namespace gets 1 MiB
     * from the host's 127.0.0.1 through 10.0.2.2 intact; the user's {@code jslirp status} reads the
     * connection in the counters, {@code jslirp forward add} opens a forward that serves a web
     * server in the namespace to the host.
     */
    @Test
    @Timeout(120)
    void attachServesTheUsersNamespaceAndItsApiSocket() throws Exception {
        ItEnv.assumeTools("busybox");
        String api = user.runtimeDir().resolve("api.sock").toString();
        Process holder = user.start(user.work().resolve("holder.log"),
                List.of("unshare", "--user", "--map-root-user", "--net", "sleep", "infinity"));
        Namespace.awaitOwnNetns(holder);
        String netns = "/proc/" + holder.pid() + "/ns/net";
        Namespace.guardEgress(netns, false);
        List<String> inside = List.of("nsenter", "--preserve-credentials", "-U", "-n", "-t", Long.toString(holder.pid()), "--");
        try (HttpBlobServer http = new HttpBlobServer();
             Stack.Running jslirp = user.startStack(List.of(user.jslirp(), "attach", "--configure", "--api-socket", api,
                     Long.toString(holder.pid()), "tap0"))) {
            await(jslirp, "tap0 configured", () -> Cmd.run(T, "nsenter", "--net=" + netns, "ip", "-o", "-4", "addr", "show", "dev", "tap0")
                    .out().contains("inet 10.0.2.100/24"));
            ApiClient.await(Path.of(api), jslirp, T);
            assertThat(Files.getOwner(Path.of(api)).getName()).as("the API socket is the user's jslirp's").isEqualTo(user.name());

            Cmd.Result fetched = user.bash(T, shellJoin(inside) + " curl -sS --max-time 30 '" + http.guestUrl("/blob?seed=16&size=" + Blob.MIB)
                    + "' | sha256sum");
            assertThat(fetched.exit()).as("%s\n%s", fetched, jslirp.describe()).isZero();
            assertThat(fetched.out()).startsWith(Blob.sha256(16, Blob.MIB) + " ");

            Cmd.Result status = user.run(T, user.jslirp(), "status", "--api-socket", api);
            assertThat(status.exit()).as("%s", status).isZero();
            Matcher tcp = Pattern.compile("(?m)^tcp_connections\\s+(\\d+)$").matcher(status.out());
            assertThat(tcp.find()).as("%s", status).isTrue();
            assertThat(Long.parseLong(tcp.group(1))).as("the curl's connection, counted: %s", status).isGreaterThanOrEqualTo(1);

            int port = ApiSocketIT.freePort();
            Cmd.Result add = user.run(T, user.jslirp(), "forward", "add", "--api-socket", api, port + ":80");
            assertThat(add.exit()).as("%s", add).isZero();
            assertThat(add.out()).isEqualTo("{\"return\":{\"id\":1}}\n");
            Path www = Files.createDirectories(user.work().resolve("www"));
            String page = "forwarded by the user's jslirp " + System.nanoTime();
            Files.writeString(www.resolve("index.html"), page);
            Cmd.Result httpd = user.run(T, concat(inside, List.of("busybox", "httpd", "-p", "80", "-h", www.toString())));
            assertThat(httpd.exit()).as("%s", httpd).isZero();
            Cmd.Result got = fetchFromHost("http://127.0.0.1:" + port + "/", jslirp::alive);
            assertThat(got.exit()).as("%s\n%s", got, jslirp.describe()).isZero();
            assertThat(got.out()).isEqualTo(page);
        }
    }

    /** {@code jslirp run -- curl} as the user: the command's namespace reaches the host's 127.0.0.1 through 10.0.2.2. */
    @Test
    @Timeout(120)
    void runGivesTheUsersCommandANetwork() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = user.run(T, user.jslirp(), "run", "--", "curl", "-sS", "--max-time", "30", http.guestUrl("/small"));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }

    /**
     * {@code jslirp run --bypass} as the user (issue 47): curl's connection to the gateway becomes a
     * host socket of the user's in its place, 4 MiB byte-exact, counted as bypassed; the stack
     * carried none of it.
     */
    @Test
    @Timeout(120)
    void runBypassAsTheUser() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = user.run(T, user.jslirp(), "run", "--bypass", "--debug", "--", "sh", "-c",
                    "curl -sS --max-time 30 '" + http.guestUrl("/blob?seed=29&size=" + 4 * Blob.MIB) + "' | sha256sum");
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out().strip()).as("%s", r).isEqualTo(Blob.sha256(29, 4 * Blob.MIB) + "  -");
            assertThat(r.err()).as("%s", r).contains(" bypassed=1 ", " tcp_connections=0 ");
        }
    }

    /**
     * {@code jslirp run} as the user is isolated once its command runs (issue 46), as pasta's command
     * mode is: every thread of the JVM has the empty root, no_new_privs and the filter, the thread
     * that started the command in its own mount namespace (and the JDK's process reapers it
     * started) too; the command keeps the host's files and its network (4 MiB byte-exact through
     * the isolated stack, fetched after the isolation); the probe from inside finds the calls
     * refused and the host's directories gone; and a SIGTERM to jslirp still reaches the command
     * under its init, through the relay (the JVM has no /proc to find it by), whose status jslirp
     * then exits with.
     */
    @Test
    @Timeout(120)
    void runIsIsolatedOnceItsCommandRuns() throws Exception {
        Path marks = user.work().resolve("run-iso");
        user.bash(T, "mkdir -p " + marks);
        try (HttpBlobServer http = new HttpBlobServer();
             Stack.Running jslirp = user.startStack(List.of("JSLIRP_SANDBOX_PROBE=1", user.jslirp(), "run", "--", "sh", "-c", """
                     trap 'echo term > "$1/term"; exit 3' TERM
                     until [ -e "$1/go" ]; do sleep 0.1; done
                     ls / > "$1/root.tmp" && mv "$1/root.tmp" "$1/root"
                     curl -sS --max-time 30 '%s' | sha256sum | cut -d' ' -f1 > "$1/sha.tmp" && mv "$1/sha.tmp" "$1/sha"
                     sleep 60 &
                     wait
                     """.formatted(http.guestUrl("/blob?seed=23&size=" + 4 * Blob.MIB)), "sh", marks.toString()))) {
            await(jslirp, "the isolation probe", () -> jslirp.stderr().contains("isolation probe:"));
            boolean tmp = user.install().toRealPath().startsWith("/tmp/"); // the jar's path is in the root
            assertThat(jslirp.stderr()).as("%s", jslirp.describe())
                    .contains("jslirp: isolation: isolated: an empty root; capabilities kept (no other user is mapped in this user namespace);"
                            + " seccomp filter on every thread")
                    .contains("mount refused Operation not permitted (EPERM); unshare(0) refused Operation not permitted (EPERM)")
                    .contains("/home absent; /root absent; /var absent; /tmp " + (tmp ? "present" : "absent") + "; /proc absent");
            Path proc = Path.of("/proc/" + jslirp.pid());
            List<String> names = new java.util.ArrayList<>();
            try (var tasks = Files.list(proc.resolve("task"))) {
                for (Path t : tasks.toList()) {
                    String name = Files.readString(t.resolve("comm")).strip();
                    names.add(name);
                    assertThat(Files.readString(t.resolve("status"))).as("%s %s", t, name).contains("NoNewPrivs:\t1", "Seccomp:\t2");
                    try (var top = Files.list(t.resolve("root/."))) {
                        assertThat(top.map(f -> f.getFileName().toString()).toList()).as("the top of %s's root (%s)", name, t)
                                .doesNotContain("etc", "run", "var", "root", "proc", "home").contains("usr", "dev");
                        if (tmp) {
                            try (var inTmp = Files.list(t.resolve("root/tmp"))) {
                                assertThat(inTmp.map(f -> f.getFileName().toString()).toList()).as("/tmp in %s's root", name)
                                        .containsExactly(user.install().toRealPath().getName(1).toString());
                            }
                        }
                    }
                }
            }
            assertThat(names).as("the command's thread is among them").contains("netns-setup");
            Files.writeString(marks.resolve("go"), "");
            await(jslirp, "the command's download", () -> Files.exists(marks.resolve("sha")));
            assertThat(Files.readString(marks.resolve("root")).lines().toList()).as("the command's root: the host's")
                    .contains("etc", "home", "proc", "tmp");
            assertThat(Files.readString(marks.resolve("sha")).strip()).as("%s", jslirp.describe()).isEqualTo(Blob.sha256(23, 4 * Blob.MIB));
            Stack.Exit exit = jslirp.stop(); // SIGTERM to jslirp
            assertThat(exit.code()).as("the command's status after its trap: %s", exit).isEqualTo(3);
            assertThat(Files.readString(marks.resolve("term")).strip()).isEqualTo("term");
        }
    }

    /**
     * {@code jslirp qemu --socket} as the user, and QEMU (TCG) as the user too: the VM gets
     * 10.0.2.15 by DHCP and 4 MiB from the host's 127.0.0.1 intact.
     */
    @Test
    @Timeout(300) // may build the VM image
    void qemuServesAVmOfTheUsers() throws Exception {
        Vm.assumeAvailable();
        Vm.image();
        Path socket = user.runtimeDir().resolve("qemu.sock");
        try (HttpBlobServer http = new HttpBlobServer();
             Stack.Running jslirp = user.startStack(List.of(user.jslirp(), "qemu", "--socket", socket.toString()))) {
            Vm.awaitSocket(socket, T, jslirp);
            assertThat(Files.getOwner(socket).getName()).isEqualTo(user.name());
            assertDhcpAndDownload(Vm.streamNetdev(socket), http, 17, 4 * Blob.MIB, jslirp);
            assertIsolatedInItsOwnUserNamespace(jslirp.pid());
        }
    }

    /**
     * {@code jslirp qemu --dgram} as the user, QEMU as the user too, the VM booted twice: isolated
     * once the first VM's first frame waits (connected to its socket before), and the restarted
     * VM's new socket at the same path reached again from inside, through its directory kept in
     * sight. Each boot gets its address by DHCP and 1 MiB intact.
     */
    @Test
    @Timeout(300) // may build the VM image
    void qemuDgramServesARestartedVmOfTheUsersWhileIsolated() throws Exception {
        Vm.assumeAvailable();
        Vm.image();
        Path socket = user.runtimeDir().resolve("jslirp-dgram.sock");
        Path vmSocket = user.runtimeDir().resolve("vm-dgram.sock");
        try (HttpBlobServer http = new HttpBlobServer();
             Stack.Running jslirp = user.startStack(List.of(user.jslirp(), "qemu", "--dgram", socket.toString()))) {
            Vm.awaitSocket(socket, T, jslirp);
            for (int boot = 1; boot <= 2; boot++) {
                assertDhcpAndDownload(Vm.dgramNetdev(vmSocket, socket), http, 18, Blob.MIB, jslirp);
                assertIsolatedInItsOwnUserNamespace(jslirp.pid());
            }
        }
    }

    /** A VM of the user's over netdev: 10.0.2.15 by DHCP, then size bytes of seed from the host's loopback, intact. */
    private static void assertDhcpAndDownload(List<String> netdev, HttpBlobServer http, int seed, long size, Stack.Running jslirp) {
        try (Vm.Running vm = Vm.start(netdev, """
                udhcpc -i eth0 -n -q -t 5 -T 1 || exit 1
                echo "ADDR $(ip -4 -o addr show dev eth0 | awk '{print $4}')"
                wget -q -O /tmp/blob '%s' || exit 2
                echo "SHA256 $(sha256sum /tmp/blob | cut -d' ' -f1)"
                """.formatted(http.guestUrl("/blob?seed=" + seed + "&size=" + size)), user::command)) {
            Vm.Result r = vm.finish(Vm.BOOT_TIMEOUT, Duration.ofSeconds(90));
            assertThat(r.ok()).as("%s\n%s", r, jslirp.describe()).isTrue();
            assertThat(r.lines("ADDR ")).containsExactly("ADDR 10.0.2.15/24");
            assertThat(r.lines("SHA256 ")).containsExactly("SHA256 " + Blob.sha256(seed, size));
        }
    }

    /**
     * jslirp qemu as an ordinary user is isolated by default (issue 46): the launcher gave it a user
     * namespace of its own (mapping the user to 0, nothing else) with a mount namespace, and the
     * running JVM moved into an empty root: the user's home and the rest of the host's files are
     * not there, and every thread has no_new_privs and the seccomp filter. Its capabilities are
     * those of that user namespace (no other user is mapped there to become): the filter refuses
     * the calls that would use them (PastaIT's probe shows that for the same filter).
     */
    private static void assertIsolatedInItsOwnUserNamespace(long pid) throws Exception {
        Path proc = Path.of("/proc/" + pid);
        assertThat(Files.readSymbolicLink(proc.resolve("ns/user"))).as("a user namespace of its own")
                .isNotEqualTo(Files.readSymbolicLink(Path.of("/proc/self/ns/user")));
        assertThat(Files.readString(proc.resolve("uid_map")).trim().split("\\s+")).containsExactly("0", Long.toString(user.uid()), "1");
        try (var tasks = Files.list(proc.resolve("task"))) {
            for (Path t : tasks.toList()) {
                assertThat(Files.readString(t.resolve("status"))).as("%s", t).contains("NoNewPrivs:\t1", "Seccomp:\t2");
            }
        }
        Path root = proc.resolve("root/.");
        try (var top = Files.list(root)) {
            assertThat(top.map(p -> p.getFileName().toString()).toList()).as("the top of its root")
                    .doesNotContain("etc", "run", "var", "root", "proc").contains("usr", "dev");
        }
        Path home = root.resolve(user.home().toString().substring(1));
        if (Files.exists(home)) { // the path to its AOT cache, in the user's cache directory, and nothing else
            try (var inHome = Files.list(home)) {
                assertThat(inHome.map(p -> p.getFileName().toString()).toList()).as("the user's home").containsOnly(".cache");
            }
        }
        assertThat(Files.exists(root.resolve(user.work().toString().substring(1)))).as("the user's files").isFalse();
    }

    /**
     * /dev/net/tun at mode 0600 (as on these machines): {@code run -- true} and {@code attach PID
     * tap0} by the user fail at once with one line on stderr that names /dev/net/tun.
     */
    @Test
    @Timeout(120)
    void withoutAccessToDevNetTunRunAndAttachSayWhyOnOneLine() {
        Cmd.Result run = user.run(T, TestUser.Tun.ROOT_ONLY, List.of(user.jslirp(), "run", "--", "true"));
        assertOneLineAboutTun(run);

        Process holder = user.start(user.work().resolve("holder.log"),
                List.of("unshare", "--user", "--map-root-user", "--net", "sleep", "infinity"));
        Namespace.awaitOwnNetns(holder);
        Cmd.Result attach = user.run(T, TestUser.Tun.ROOT_ONLY, List.of(user.jslirp(), "attach", Long.toString(holder.pid()), "tap0"));
        assertOneLineAboutTun(attach);
        assertThat(holder.isAlive()).as("the namespace stays the user's").isTrue();
    }

    /**
     * A PID the user may not open (root's process) is not called absent: the one line says the
     * namespace cannot be opened, that permission is why and whose process it is; a PID that does
     * not exist still says so.
     */
    @Test
    @Timeout(120)
    void anotherUsersPidIsRefusedForPermissionNotAsAbsent() {
        long rootsPid = ProcessHandle.current().pid();
        Cmd.Result attach = user.run(T, List.of(user.jslirp(), "attach", Long.toString(rootsPid), "tap0"));
        assertThat(attach.exit()).as("%s", attach).isEqualTo(1);
        assertThat(attach.err().lines().toList()).as("%s", attach).containsExactly("jslirp: cannot open the network namespace of PID "
                + rootsPid + ": Permission denied (the process belongs to user root; serve a process of your own user, or run jslirp"
                + " as its user or as root)");
        Cmd.Result absent = user.run(T, List.of(user.jslirp(), "attach", "999999999", "tap0"));
        assertThat(absent.err().lines().toList()).as("%s", absent).containsExactly("jslirp: no process with PID 999999999");
    }

    private static void assertOneLineAboutTun(Cmd.Result r) {
        assertThat(r.timedOut()).as("%s", r).isFalse();
        assertThat(r.exit()).as("%s", r).isNotZero();
        assertThat(r.err().lines().toList()).as("%s", r).hasSize(1);
        assertThat(r.err()).as("%s", r).contains("/dev/net/tun");
    }

    /** GETs {@code url} on the host with curl until it answers (a server coming up behind a forward), while {@code alive}. */
    static Cmd.Result fetchFromHost(String url, BooleanSupplier alive) {
        Cmd.Result r = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        do {
            if (r != null) Namespace.sleep(200);
            r = Cmd.run(Duration.ofSeconds(10), "curl", "-sS", "--max-time", "5", url);
        } while (r.exit() != 0 && alive.getAsBoolean() && System.nanoTime() < deadline);
        return r;
    }

    private static void await(Stack.Running stack, String what, BooleanSupplier ready) {
        long deadline = System.nanoTime() + T.toNanos();
        while (!ready.getAsBoolean()) {
            if (!stack.alive()) throw new AssertionError("jslirp exited before " + what + ":\n" + stack.describe());
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what + ":\n" + stack.describe());
            Namespace.sleep(50);
        }
    }

    private static String shellJoin(List<String> words) {
        return String.join(" ", words.stream().map(w -> "'" + w.replace("'", "'\\''") + "'").toList());
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
