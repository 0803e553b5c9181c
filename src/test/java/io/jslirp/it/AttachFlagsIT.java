package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** slirp4netns's remaining attach flags, each seen working against the kernel (valid for both stacks). */
class AttachFlagsIT {
    private static final Duration T = Duration.ofSeconds(20);

    @Test
    @Timeout(120)
    void readyFdIsWrittenAndExitFdStopsTheStack() throws Exception {
        ItEnv.assumeStack();
        Path ready = Files.createTempFile("jslirp-it-ready", ".txt");
        try (Namespace ns = Namespace.create()) {
            List<String> attach = Stack.attachCommand(Stack.Options.configured().extra("--ready-fd", "3", "--exit-fd", "4"),
                    Long.toString(ns.pid()));
            // fd 3: a file for the ready signal; fd 4: a pipe that reaches EOF when `sleep` ends.
            String script = "exec \"$@\" 3>'" + ready + "' 4< <(sleep 8)";
            List<String> cmd = new java.util.ArrayList<>(List.of("bash", "-c", script, "bash"));
            cmd.addAll(attach);
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90), cmd);
            assertThat(r.timedOut()).as("the exit fd must stop the stack: %s", r).isFalse();
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(Files.readString(ready)).as("ready fd").isEqualTo("1");
        } finally {
            Files.deleteIfExists(ready);
        }
    }

    @Test
    @Timeout(120)
    void netnsTypePathAndMacAddress() {
        ItEnv.assumeStack();
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.start(Stack.attachCommand(
                     Stack.Options.configured().extra("--netns-type=path", "--macaddress=02:00:5e:10:20:30"), ns.netnsPath()))) {
            stack.awaitConfigured(ns, "tap0", Duration.ofSeconds(90));
            assertThat(ns.exec(T, "ip", "link", "show", "tap0").out()).contains("02:00:5e:10:20:30");
            assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY).exit()).as(stack.describe()).isZero();
        }
    }

    @Test
    @Timeout(120)
    void disableHostLoopbackClosesTheGatewayToHostLoopback() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().disableHostLoopback())) {
            Cmd.Result r = ns.exec(T, "curl", "-sS", "--connect-timeout", "5",
                    "http://" + Namespace.GATEWAY + ":" + listening.getLocalPort() + "/");
            assertThat(r.exit()).as("a listening host port must not be reachable: %s", r).isIn(7, 28);
        }
    }

    /**
     * --enable-seccomp: every thread of jslirp's process runs under the filter (the kernel's
     * Seccomp: 2 in each thread's status) and the network still serves ping, TCP and UDP.
     */
    @Test
    @Timeout(120)
    void enableSeccompFiltersEveryThreadAndKeepsServing() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the thread check reads the JVM's tasks");
        ItEnv.assumeTools("curl", ItEnv.python());
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             java.net.DatagramSocket echo = new java.net.DatagramSocket(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--enable-seccomp"))) {
            Thread.ofPlatform().daemon().start(() -> {
                while (!listening.isClosed()) {
                    try (java.net.Socket c = listening.accept()) {
                        // read the whole request first: closing with unread bytes would reset the connection
                        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(c.getInputStream()));
                        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                            // request line and headers
                        }
                        c.getOutputStream().write("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes());
                    } catch (Exception closed) {
                        return;
                    }
                }
            });
            Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[100];
                while (!echo.isClosed()) {
                    try {
                        java.net.DatagramPacket p = new java.net.DatagramPacket(buf, buf.length);
                        echo.receive(p);
                        echo.send(p);
                    } catch (Exception closed) {
                        return;
                    }
                }
            });
            assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY).exit()).as(stack.describe()).isZero();
            Cmd.Result http = ns.exec(T, "curl", "-sS", "--max-time", "10", "http://" + Namespace.GATEWAY + ":" + listening.getLocalPort() + "/");
            assertThat(http.out()).as("%s\n%s", http, stack.describe()).isEqualTo("ok");
            Cmd.Result udp = ns.exec(T, ItEnv.python(), "-c", UdpEchoIT.CLIENT, Integer.toString(echo.getLocalPort()), "100");
            assertThat(udp.exit()).as("%s\n%s", udp, stack.describe()).isZero();
            List<String> unfiltered = new java.util.ArrayList<>();
            try (var tasks = Files.list(Path.of("/proc/" + stack.pid() + "/task"))) {
                for (Path task : tasks.toList()) {
                    String status = Files.readString(task.resolve("status"));
                    if (!status.contains("Seccomp:\t2")) unfiltered.add(task.getFileName() + " " + Files.readString(task.resolve("comm")).strip());
                }
            }
            assertThat(unfiltered).as("threads without the filter").isEmpty();
            assertThat(stack.alive()).as(stack.describe()).isTrue();
        }
    }

    /**
     * --enable-sandbox as root: the capabilities down to CAP_NET_BIND_SERVICE, the host's files
     * gone from its root, the network still served, and its --pcap file (bound alone, writable)
     * written; JSLIRP_SANDBOXED outside the sandbox refused in one line; and --help does not offer it, so that rootlesskit's auto mode does
     * not turn it on for every start (SandboxIT checks it as slirp4netns's tests do, rootless).
     */
    @Test
    @Timeout(120)
    void enableSandboxConfinesAsRootAndKeepsServing() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns's --enable-sandbox");
        ItEnv.assumeTools("curl");
        Path capture = Files.createTempFile("jslirp-sandbox-it", ".pcap");
        try (HttpBlobServer http = new HttpBlobServer();
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--enable-sandbox", "--pcap", capture.toString()))) {
            Path proc = Path.of("/proc/" + stack.pid()); // Stack.attach waited for the sandboxed program
            Cmd.Result r = ns.exec(T, "curl", "-sS", "--max-time", "20", http.guestUrl("/small"));
            assertThat(r.out()).as("%s\n%s", r, stack.describe()).isEqualTo(HttpBlobServer.SMALL_BODY);
            String status = Files.readString(proc.resolve("status"));
            assertThat(status).contains("CapEff:\t0000000000000400", "CapBnd:\t0000000000000400", "NoNewPrivs:\t1");
            assertThat(proc.resolve("root/etc")).exists();
            assertThat(proc.resolve("root/root")).doesNotExist();
            assertThat(proc.resolve("root/home")).doesNotExist();
            stack.stop();
            // the capture file, the one thing the sandbox may write: its 24-byte header and the curl's frames
            assertThat(Files.size(capture)).as("%s", stack.describe()).isGreaterThan(24 + 10 * 54);
        } finally {
            Files.deleteIfExists(capture);
        }
        try (Namespace ns = Namespace.create()) {
            List<String> forged = new java.util.ArrayList<>(List.of("env", "JSLIRP_SANDBOXED=tap=0"));
            forged.addAll(Stack.attachCommand(Stack.Options.configured().extra("--enable-sandbox"), Long.toString(ns.pid())));
            Cmd.Result r = Cmd.run(T, forged);
            assertThat(r.exit()).as("%s", r).isEqualTo(1);
            assertThat(r.err().strip()).as("the handoff's variable outside the sandbox").isEqualTo(
                    "jslirp: JSLIRP_SANDBOXED is set, but this process is not in jslirp's sandbox (the variable is jslirp's own, for the program it starts there)");
        }
        Cmd.Result help = Cmd.run(T, ItEnv.home().resolve("bin/slirp4netns").toString(), "--help");
        assertThat(help.out()).as("rootlesskit's auto mode must not see it").contains("--enable-seccomp").doesNotContain("--enable-sandbox");
    }

    @Test
    @Timeout(120)
    void userNamespacePathForARootlessNamespace() {
        ItEnv.assumeStack();
        // A rootless-style holder: its own user namespace owns its network namespace.
        try (Namespace ns = Namespace.createInOwnUserNamespace();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--netns-type=path",
                     "--userns-path=" + ns.userNamespacePath()), ns.netnsPath())) {
            Cmd.Result ping = ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY);
            assertThat(ping.exit()).as("%s\n%s", ping, stack.describe()).isZero();
        }
    }

    /** --cidr moves every virtual host: slirp4netns's offsets .2 (gateway), .3 (DNS), .100 (--configure). */
    @Test
    @Timeout(120)
    void cidrMovesTheVirtualHosts() {
        ItEnv.assumeStack();
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.start(Stack.attachCommand(Stack.Options.configured().cidr("10.0.135.128/25"),
                     Long.toString(ns.pid())))) {
            ns.allowEgress("10.0.135.130");
            ns.allowEgress("10.0.135.131");
            for (int i = 0; i < 450 && !ns.exec(T, "ip", "-o", "-4", "addr", "show", "tap0").out().contains("10.0.135.228/25"); i++) {
                assertThat(stack.alive()).as(stack.describe()).isTrue();
                Namespace.sleep(200);
            }
            assertThat(ns.exec(T, "ip", "-o", "-4", "addr", "show", "tap0").out()).as(stack.describe()).contains("inet 10.0.135.228/25");
            assertThat(ns.exec(T, "ip", "-4", "route", "show", "default").out()).contains("via 10.0.135.130");
            for (String host : List.of("10.0.135.130", "10.0.135.131")) {
                assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", host).exit()).as("%s\n%s", host, stack.describe()).isZero();
            }
        }
    }

    /** Feature probes (slirp4netns's own test scripts among them) read SLIRP_CONFIG_VERSION_MAX from -v. */
    @Test
    @Timeout(60)
    void versionNamesTheConfigVersionOfTheFeatures() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's bin/slirp4netns");
        Cmd.Result v = Cmd.run(T, ItEnv.home().resolve("bin/slirp4netns").toString(), "-v");
        assertThat(v.exit()).as("%s", v).isZero();
        assertThat(v.out()).startsWith("slirp4netns version ").containsPattern("(?m)^SLIRP_CONFIG_VERSION_MAX: 3$");
        Cmd.Result help = Cmd.run(T, ItEnv.home().resolve("bin/slirp4netns").toString(), "--help");
        assertThat(help.out()).as("what version 3 stands for").contains("--outbound-addr").contains("--outbound-addr6").contains("--disable-dns");
    }
}
