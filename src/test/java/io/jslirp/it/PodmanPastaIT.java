package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rootless Podman of an ordinary user with jslirp as its pasta, found as Podman finds pasta
 * ({@code CONTAINERS_HELPER_BINARY_DIR=<the user's copy>/bin}) and started with Podman's own
 * argument list ({@code --network pasta}: Podman 5.4 on Debian 13; Debian 12's Podman 4.3 has no
 * pasta network, and there {@link Debian13IT} runs this class in a Debian 13 root). Each container's pasta must be jslirp's: the tests see its process while the container
 * runs. A rootless bridge network's shared pasta is jslirp's too. Podman's {@code pasta_options} part ({@code --network pasta:--dns-host,ADDR}) points DNS at
 * the test's resolver on loopback; the container addresses only 169.254.1.1 (DNS), 169.254.1.2
 * (host.containers.internal: the host's own address) and its own published ports.
 */
class PodmanPastaIT {
    private static final Duration T = Duration.ofSeconds(120);
    private static final String DNS = "169.254.1.1", HOST = "169.254.1.2";
    private static final long MIB100 = 100L << 20, MIB10 = 10L << 20;
    private static TestUser user;

    @TempDir
    Path tmp;

    @BeforeAll
    static void createUserAndImage() throws Exception {
        ItEnv.assumeJslirp("Podman runs jslirp's bin/pasta");
        ItEnv.assumeTools("podman");
        // Debian 12's Podman 4.3 has no pasta network ("unable to find network with name or ID
        // pasta"); there Debian13IT runs this class in a Debian 13 root, where it may not skip.
        int major = PodmanFixture.majorVersion();
        org.junit.jupiter.api.Assumptions.assumeTrue(major >= 5, () -> "Podman " + major + " has no --network pasta; Debian13IT runs this with Podman 5.4");
        user = PodmanFixture.create();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    @AfterEach
    void noneLeft() {
        if (user != null) user.run(T, podman("rm", "-a", "-f", "-t", "0"));
    }

    /** podman with jslirp's bin/ as its helper directory. */
    private static List<String> podman(String... args) {
        List<String> c = new ArrayList<>(List.of("env", "CONTAINERS_HELPER_BINARY_DIR=" + user.install().resolve("bin")));
        c.addAll(PodmanFixture.podman(user, args));
        return c;
    }

    /** The host's own address: the template interface's (the one with the default route), which the container gets too. */
    private static String hostAddress() {
        Cmd.Result r = Cmd.run(T, "sh", "-c", "ip -4 -o addr show dev \"$(ip -4 route show default | awk '{print $5; exit}')\" | awk '{print $4; exit}'");
        assertThat(r.exit()).as("%s", r).isZero();
        return r.out().trim().replaceAll("/.*", "");
    }

    /** The template interface's global IPv6 address, or null where it has none. */
    private static String hostAddress6() {
        Cmd.Result r = Cmd.run(T, "sh", "-c", "ip -6 -o addr show scope global dev \"$(ip -4 route show default | awk '{print $5; exit}')\" | awk '{print $4; exit}'");
        String a = r.out().trim().replaceAll("/.*", "");
        return a.isEmpty() ? null : a;
    }

    /** Waits up to 10 s for the user's jslirp pasta processes to end. */
    private static void awaitNoJslirp(String when) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!jslirpPastas().isEmpty() && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(jslirpPastas().stream().map(TestUser::commandLine)).as("jslirp processes left %s", when).isEmpty();
    }

    /** The user's jslirp pasta processes. */
    private static List<ProcessHandle> jslirpPastas() {
        return user.processes().stream().filter(p -> TestUser.commandLine(p).contains("jslirp.jar pasta")).toList();
    }

    /**
     * The container: the host's address copied, 169.254.1.1 its nameserver (answered by the test's
     * resolver, through jslirp's --dns-forward), host.containers.internal reached (a 100 MiB download
     * whose sha256 is checked), served by a jslirp pasta process of the user's.
     */
    /**
     * Isolated as pasta is (issue 46), where Podman itself started it: every thread user nobody of
     * Podman's user namespace without capabilities, no_new_privs and the seccomp filter; no /etc,
     * /home or /proc in its root.
     */
    private static void assertIsolated(ProcessHandle pasta) throws Exception {
        Path proc = Path.of("/proc/" + pasta.pid());
        try (var tasks = java.nio.file.Files.list(proc.resolve("task"))) {
            for (Path t : tasks.toList()) {
                String status = java.nio.file.Files.readString(t.resolve("status"));
                assertThat(status).as("%s of %s", t, TestUser.commandLine(pasta)).contains("CapEff:\t0000000000000000",
                        "CapPrm:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2");
            }
        }
        assertThat(java.nio.file.Files.readString(proc.resolve("status"))).containsPattern("(?m)^Uid:\\s+(\\d+)\\s+\\1\\s+\\1\\s+\\1$")
                .doesNotContainPattern("(?m)^Uid:\\s+" + user.uid() + "\\s");
        try (var top = java.nio.file.Files.list(proc.resolve("root/."))) {
            assertThat(top.map(p -> p.getFileName().toString()).toList()).doesNotContain("etc", "home", "proc", "var", "root", "run")
                    .contains("usr", "dev");
        }
    }

    @Test
    @Timeout(300)
    void aContainerReachesTheHostAndDnsThroughJslirp() throws Exception {
        String host = hostAddress();
        try (TestResolver dns = TestResolver.start(tmp); HttpBlobServer http = new HttpBlobServer(InetAddress.getByName(host))) {
            String url = "http://host.containers.internal:" + http.port();
            Cmd.Result started = user.run(T, podman("run", "-d", "--name", "c1", "--pull=never", "--network", "pasta:--dns-host," + dns.address,
                    PodmanFixture.IMAGE, "sleep", "600"));
            assertThat(started.exit()).as("%s", started).isZero();
            assertThat(jslirpPastas()).as("the container's pasta is jslirp's").hasSize(1);
            assertIsolated(jslirpPastas().getFirst());
            Cmd.Result r = user.run(T, podman("exec", "c1", "sh", "-c", """
                    ip -4 -o addr show scope global | awk '{print "ADDR " $4}'
                    ip -6 -o addr show scope global | awk '{print "ADDR6 " $4}'
                    grep '^nameserver' /etc/resolv.conf | head -1
                    grep host.containers.internal /etc/hosts | awk '{print "HOSTS " $1}'
                    nslookup jslirp.test %s | grep -A1 'Name:' | tail -1
                    wget -q -O- '%s/blob?seed=31&size=%d' | sha256sum
                    """.formatted(DNS, url, MIB100)));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s\nresolver: %s", r, dns.logged()).contains("ADDR " + host + "/").contains("nameserver " + DNS)
                    .contains("HOSTS " + HOST).contains("Address: 192.0.2.7").contains(Blob.sha256(31, MIB100) + "  -");
            assertThat(dns.logged()).contains("query[A] jslirp.test");
            String host6 = hostAddress6();
            if (host6 != null) assertThat(r.out()).as("IPv6: the host's address copied too").contains("ADDR6 " + host6 + "/");
        }
    }

    /**
     * The socket bypass for a container (issue 47): the profile {@code jslirp seccomp-profile}
     * prints (Podman's default with connect sent to jslirp's agent) and {@code --network
     * pasta:--jslirp-seccomp-agent,PATH}. runc hands the filter of the container's first process to
     * jslirp's pasta as it starts, and that of each {@code podman exec}; the exec's connect to
     * host.containers.internal then gets a host socket in its place (10 MiB byte-exact), while a
     * connect to the container's own loopback goes on to its kernel (refused there). pasta's
     * counters (--debug, in its --log-file) count both. That pasta is isolated but stays the
     * user's (user 0 of Podman's user namespace, whose processes' descriptors it takes).
     */
    @Test
    @Timeout(300)
    void aContainersConnectsToTheHostBypassTheStack() throws Exception {
        String host = hostAddress();
        Path agent = user.runtimeDir().resolve("jslirp-agent.sock");
        Path profile = user.work().resolve("bypass-profile.json");
        Path log = user.work().resolve("bypass-pasta.log");
        Cmd.Result made = user.run(T, List.of("sh", "-c", user.jslirp() + " seccomp-profile --listener " + agent + " > " + profile));
        assertThat(made.exit()).as("%s", made).isZero();
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName(host))) {
            Cmd.Result started = user.run(T, podman("run", "-d", "--name", "bp", "--pull=never", "--security-opt", "seccomp=" + profile,
                    "--network", "pasta:--jslirp-seccomp-agent," + agent + ",--log-file," + log + ",--debug", PodmanFixture.IMAGE, "sleep", "600"));
            assertThat(started.exit()).as("%s", started).isZero();
            ProcessHandle pasta = jslirpPastas().getFirst();
            Path proc = Path.of("/proc/" + pasta.pid());
            assertThat(java.nio.file.Files.readString(proc.resolve("status"))).contains("NoNewPrivs:\t1", "Seccomp:\t2")
                    .containsPattern("(?m)^Uid:\\s+" + user.uid() + "\\s");
            try (var top = java.nio.file.Files.list(proc.resolve("root/."))) {
                assertThat(top.map(p -> p.getFileName().toString()).toList()).doesNotContain("etc", "home", "proc", "var");
            }
            Cmd.Result r = user.run(T, podman("exec", "bp", "sh", "-c", """
                    wget -q -O- 'http://host.containers.internal:%d/blob?seed=33&size=%d' | sha256sum
                    wget -q -T 5 -O- http://127.0.0.1:1/ 2>&1; echo "LOOPBACK $?"
                    """.formatted(http.port(), MIB10)));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).contains(Blob.sha256(33, MIB10) + "  -").containsPattern("LOOPBACK [1-9]");
        } finally {
            user.run(T, podman("rm", "-f", "-t", "0", "bp"));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!(java.nio.file.Files.exists(log) && java.nio.file.Files.readString(log).contains("counters:"))) {
            assertThat(System.nanoTime()).as("pasta's counters in %s", log).isLessThan(deadline);
            Thread.sleep(100);
        }
        String counters = java.nio.file.Files.readString(log).lines().filter(l -> l.contains("counters:")).findFirst().orElseThrow();
        System.out.println("[bypass] " + counters);
        assertThat(counters).containsPattern(" bypassed=[1-9]").contains(" bypass_failed=0 ").containsPattern(" bypass_passed=[1-9]");
        assertThat(java.nio.file.Files.readString(log)).as("both processes' filters served")
                .containsPattern("(?s)seccomp agent: serving the connects of process \\d+.*seccomp agent: serving the connects of process \\d+");
    }

    /** -p 127.0.0.1:P:80 and -p Q:80 (every address): busybox httpd in the container answers on each. */
    @Test
    @Timeout(300)
    void publishedPortsOnLoopbackAndEveryAddress() throws Exception {
        int local = ApiSocketIT.freePort(), every = ApiSocketIT.freePort();
        String page = "published through the pasta of jslirp " + System.nanoTime();
        Cmd.Result started = user.run(T, podman("run", "-d", "--name", "web", "--pull=never", "-p", "127.0.0.1:" + local + ":80", "-p",
                every + ":80", "--network", "pasta", PodmanFixture.IMAGE, "sh", "-c",
                "echo '" + page + "' >/www/index.html && exec httpd -f -p 80 -h /www"));
        assertThat(started.exit()).as("%s", started).isZero();
        assertThat(jslirpPastas()).hasSize(1);
        String seen = jslirpPastas().stream().map(TestUser::commandLine).toList().toString();
        for (String url : List.of("http://127.0.0.1:" + local + "/", "http://127.0.0.1:" + every + "/", "http://" + hostAddress() + ":" + every + "/")) {
            Cmd.Result r = RootlessIT.fetchFromHost(url, () -> true);
            assertThat(r.exit()).as("%s %s\n%s", url, r, seen).isZero();
            assertThat(r.out()).as(url).isEqualTo(page + "\n");
        }
        Cmd.Result listener = Cmd.run(T, "ss", "-Hltnp", "sport = :" + local);
        assertThat(listener.out()).as("%s", listener).contains("127.0.0.1:" + local).contains("\"java\"");
    }

    /** Containers started and removed one after another: each gets its own jslirp, and none is left once it is gone. */
    @Test
    @Timeout(900)
    void fiftyContainersInALoopLeaveNoJslirpBehind() throws Exception {
        int n = 50;
        for (int i = 0; i < n; i++) {
            String word = "run" + i + "-" + ThreadLocalRandom.current().nextInt(1000);
            Cmd.Result r = user.run(T, podman("run", "--rm", "--pull=never", "--network", "pasta", PodmanFixture.IMAGE, "echo", word));
            assertThat(r.exit()).as("container %d: %s", i, r).isZero();
            assertThat(r.out().trim()).isEqualTo(word);
            awaitNoJslirp("after container " + i);
        }
    }

    /**
     * A rootless bridge network: Podman runs one pasta for all its containers (the rootless-netns,
     * started with --pid), jslirp's; a container on it reaches host.containers.internal; it writes
     * its PID there and ends on SIGTERM, Podman's way to stop it.
     */
    @Test
    @Timeout(300)
    void aRootlessBridgeNetworkGoesOutThroughJslirp() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName(hostAddress()))) {
            Cmd.Result net = user.run(T, podman("network", "create", "jslirp-it"));
            assertThat(net.exit()).as("%s", net).isZero();
            try {
                Cmd.Result started = user.run(T, podman("run", "-d", "--name", "b1", "--pull=never", "--network", "jslirp-it", PodmanFixture.IMAGE,
                        "sleep", "600"));
                assertThat(started.exit()).as("%s", started).isZero();
                List<String> pastas = jslirpPastas().stream().map(TestUser::commandLine).toList();
                assertThat(pastas).as("the rootless network's pasta").singleElement().asString().contains(" --pid ");
                Cmd.Result r = user.run(T, podman("exec", "b1", "wget", "-q", "-O-", "http://host.containers.internal:" + http.port() + "/small"));
                assertThat(r.exit()).as("%s\n%s", r, pastas).isZero();
                assertThat(r.out()).isEqualTo(HttpBlobServer.SMALL_BODY);
            } finally {
                user.run(T, podman("rm", "-f", "-t", "0", "b1"));
                user.run(T, podman("network", "rm", "-f", "jslirp-it"));
            }
            // Podman 5.4 leaves the network's pasta running once its last container is gone (its own
            // pasta too, here); when it tears the rootless network down it sends SIGTERM to the PID
            // in the --pid file, as done here.
            List<ProcessHandle> left = jslirpPastas();
            assertThat(left).hasSize(1);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(" --pid (\\S+) ").matcher(TestUser.commandLine(left.getFirst()));
            assertThat(m.find()).isTrue();
            long pid = Long.parseLong(java.nio.file.Files.readString(Path.of(m.group(1))).trim());
            assertThat(pid).as("the --pid file names the serving process").isEqualTo(left.getFirst().pid());
            Cmd.run(T, "kill", "-TERM", Long.toString(pid));
            awaitNoJslirp("after SIGTERM to the --pid file's process");
        }
    }
}
