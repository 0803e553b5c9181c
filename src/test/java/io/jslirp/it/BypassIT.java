package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jslirp run --bypass} (issue 47): the command's TCP connects to host addresses become host
 * sockets in its place. One Python client makes every kind of connect and says what each got; it
 * runs with the bypass and without, and the two must agree on everything but where a connection's
 * local end is (the host's 127.0.0.1 when bypassed, the namespace's 10.0.2.100 through the stack)
 * and the counters. Addresses: the gateway (the host's loopback) and the namespace's own loopback.
 */
class BypassIT {
    private static final Duration T = Duration.ofSeconds(90);
    private static final int MIB10 = 10 << 20;

    /**
     * Each line a word and what it found. argv: the HTTP port, a port where nothing listens, the
     * UDP echo's port. Connects: blocking (TCP_NODELAY, SO_KEEPALIVE, SO_RCVBUF set before, read
     * back after; 10 MiB whose sha256 is printed), non-blocking (EINPROGRESS, then SO_ERROR), from a
     * second thread, from a forked child, to the closed port (refused), with an address the kernel
     * cannot read (EFAULT), to the namespace's own loopback, 1,000 in a row, 400 from 8 threads at
     * once; and a UDP echo.
     */
    static final String CLIENT = """
            import ctypes, hashlib, os, select, socket, sys, threading
            http, closed, udp = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
            GW = "10.0.2.2"
            def get(s, path):
                s.sendall(("GET %s HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n" % path).encode())
                data = b""
                while True:
                    b = s.recv(1 << 16)
                    if not b: break
                    data += b
                return data.split(b"\\r\\n\\r\\n", 1)[1]
            s = socket.socket()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
            s.connect((GW, http))
            print("blocking", s.getsockname()[0], s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0,
                  s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0, s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
                  hashlib.sha256(get(s, "/blob?seed=41&size=%d" % (10 << 20))).hexdigest(), flush=True)
            t = socket.socket(); t.setblocking(False)
            e = t.connect_ex((GW, http))
            select.select([], [t], [], 10)
            t.setblocking(True)
            print("nonblocking", e, t.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR), t.getsockname()[0], len(get(t, "/small")), flush=True)
            def in_thread():
                u = socket.create_connection((GW, http)); print("thread", u.getsockname()[0], len(get(u, "/small")), flush=True)
            th = threading.Thread(target=in_thread); th.start(); th.join()
            pid = os.fork()
            if pid == 0:
                u = socket.create_connection((GW, http)); print("child", u.getsockname()[0], len(get(u, "/small")), flush=True); os._exit(0)
            os.waitpid(pid, 0)
            r = socket.socket(); print("closed", r.connect_ex((GW, closed)), flush=True)
            libc = ctypes.CDLL(None, use_errno=True); f = socket.socket()
            print("unreadable", libc.connect(f.fileno(), ctypes.c_void_p(1), 16), ctypes.get_errno(), flush=True)
            l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
            c = socket.create_connection(("127.0.0.1", l.getsockname()[1])); a, _ = l.accept(); c.sendall(b"x")
            print("loopback", c.getsockname()[0], a.recv(1), flush=True)
            ok = 0
            for i in range(1000):
                u = socket.create_connection((GW, http)); ok += u.getsockname()[0] != ""; u.close()
            print("many", ok, flush=True)
            done = []
            def burst():
                n = 0
                for i in range(50):
                    u = socket.create_connection((GW, http)); n += 1; u.close()
                done.append(n)
            ts = [threading.Thread(target=burst) for i in range(8)]
            for t in ts: t.start()
            for t in ts: t.join()
            print("flood", sum(done), flush=True)
            d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); d.settimeout(10); d.sendto(b"ping", (GW, udp))
            print("udp", d.recvfrom(100)[0], flush=True)
            """;

    @BeforeAll
    static void tools() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("--bypass is jslirp's");
    }

    /** Every kind of connect, with the bypass and without: the same answers, byte-exact, and only the bypassed ones' local end differs. */
    @Test
    @Timeout(240)
    void theCommandsConnectsGetTheSameAnswersAtTheHostsOwnSpeed() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer(); UdpEchoServer udp = new UdpEchoServer(InetAddress.getLoopbackAddress());
             ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int closedPort = closed.getLocalPort();
            closed.close(); // nothing listens there now
            List<String> args = List.of(ItEnv.python(), "-c", CLIENT, Integer.toString(http.port()), Integer.toString(closedPort),
                    Integer.toString(udp.port()));
            Map<String, String> bypassed = lines(Cmd.run(T, Stack.runCommand(List.of("--bypass", "--debug"), args)), true);
            Map<String, String> stack = lines(Cmd.run(T, Stack.runCommand(List.of("--debug"), args)), false);
            String sha = Blob.sha256(41, MIB10);
            assertThat(bypassed.get("blocking")).isEqualTo("127.0.0.1 True True 65536 " + sha);
            assertThat(stack.get("blocking")).isEqualTo("10.0.2.100 True True 65536 " + sha);
            assertThat(bypassed.get("nonblocking")).isEqualTo("115 0 127.0.0.1 " + HttpBlobServer.SMALL_BODY.length());
            assertThat(stack.get("nonblocking")).isEqualTo("115 0 10.0.2.100 " + HttpBlobServer.SMALL_BODY.length());
            // a thread other than a process's first is found by pidfd_open(PIDFD_THREAD), Linux 6.9; before, its connects go through the stack
            boolean threads = ItEnv.kernelAtLeast(6, 9);
            assertThat(bypassed.get("thread")).isEqualTo((threads ? "127.0.0.1 " : "10.0.2.100 ") + HttpBlobServer.SMALL_BODY.length());
            assertThat(bypassed.get("child")).isEqualTo("127.0.0.1 " + HttpBlobServer.SMALL_BODY.length());
            for (String k : List.of("thread", "child")) assertThat(stack.get(k)).as(k).isEqualTo("10.0.2.100 " + HttpBlobServer.SMALL_BODY.length());
            for (String k : List.of("closed", "unreadable", "loopback", "many", "flood", "udp")) {
                assertThat(bypassed.get(k)).as("%s alike with and without the bypass", k).isEqualTo(stack.get(k)).isNotNull();
            }
            assertThat(bypassed.get("closed")).isEqualTo("111"); // ECONNREFUSED
            assertThat(bypassed.get("unreadable")).isEqualTo("-1 14"); // EFAULT
            assertThat(bypassed.get("loopback")).isEqualTo("127.0.0.1 b'x'");
            assertThat(bypassed.get("many")).isEqualTo("1000");
            assertThat(bypassed.get("flood")).isEqualTo("400");
            assertThat(bypassed.get("udp")).isEqualTo("b'ping'");
            // blocking, nonblocking, thread, child, 1,000 (past the 1,024 at which the list for the status report is swept), the
            // flood's 400: bypassed; the refused one answered with the host's
            // error; the unreadable address and the namespace's loopback passed to the namespace (and the threads' before 6.9)
            assertThat(bypassed.get("counters")).contains(" bypassed=" + (threads ? 1404 : 1003) + " ", " bypass_failed=1 ",
                    " bypass_passed=" + (threads ? 2 : 403) + " ", " udp_flows=1 ");
            assertThat(stack.get("counters")).contains(" bypassed=0 ", " udp_flows=1 ");
        }
    }

    /**
     * iperf3 through the bypass, both directions at once (--bidir): its control connection and
     * both data connections are host sockets (bypassed=3), nothing crosses the stack
     * (tcp_connections=0), and bytes flow both ways.
     */
    @Test
    @Timeout(120)
    void iperf3ThroughTheBypassBothWays() throws Exception {
        ItEnv.assumeTools("iperf3");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Cmd.Result r = null;
            for (int i = 0; i < 50 && (r == null || r.exit() != 0 && r.out().contains("Connection refused")); i++) {
                if (r != null) Namespace.sleep(100); // the server still starting
                r = Cmd.run(T, Stack.runCommand(List.of("--bypass", "--debug"),
                        List.of("iperf3", "-c", "10.0.2.2", "-p", Integer.toString(port), "-t", "2", "--bidir", "-J")));
            }
            assertThat(r.exit()).as("%s", r).isZero();
            com.fasterxml.jackson.databind.JsonNode end = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).path("end");
            assertThat(end.path("sum_received").path("bytes").asLong()).as("%s", r.out()).isPositive();
            assertThat(end.path("sum_received_bidir_reverse").path("bytes").asLong()).as("%s", r.out()).isPositive();
            assertThat(r.err()).as("%s", r).contains(" bypassed=3 ", " tcp_connections=0 ");
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    /**
     * {@code get_status} (what {@code jslirp status} shows) lists a bypassed connection while it is
     * open, as kind tcp-bypass: its local end the host's, the address the command dialled, where it
     * goes; once the command has closed it, no longer.
     */
    @Test
    @Timeout(120)
    void statusListsABypassedConnectionWhileItIsOpen() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("jslirp-bypass-status");
        java.nio.file.Path api = dir.resolve("api.sock"), closeIt = dir.resolve("close"), closed = dir.resolve("closed");
        try (HttpBlobServer http = new HttpBlobServer();
             Stack.Running run = Stack.start(Stack.runCommand(List.of("--bypass", "--api-socket", api.toString()), List.of(ItEnv.python(), "-c", """
                     import os, socket, sys, time
                     s = socket.create_connection(("10.0.2.2", int(sys.argv[1])))
                     print("open", s.getsockname()[1], flush=True)
                     while not os.path.exists(sys.argv[2]): time.sleep(0.05)
                     s.close()
                     open(sys.argv[3], "w").close()
                     while True: time.sleep(1)
                     """, Integer.toString(http.port()), closeIt.toString(), closed.toString())))) {
            ApiClient.await(api, run, T);
            long deadline = System.nanoTime() + T.toNanos();
            while (!run.stdout().contains("open ") && run.alive() && System.nanoTime() < deadline) Namespace.sleep(50);
            String port = run.stdout().lines().filter(l -> l.startsWith("open ")).findFirst().orElseThrow(() -> new AssertionError(run.describe()))
                    .substring(5);
            String status = ApiClient.request(api, "{\"execute\": \"get_status\"}");
            assertThat(status).as(run.describe()).contains("\"kind\":\"tcp-bypass\"", "\"state\":\"ESTABLISHED\"",
                    "\"guest_addr\":\"127.0.0.1\",\"guest_port\":" + port, "\"remote_addr\":\"10.0.2.2\",\"remote_port\":" + http.port(),
                    "\"host_addr\":\"127.0.0.1\",\"host_port\":" + http.port());
            java.nio.file.Files.writeString(closeIt, "");
            while (!java.nio.file.Files.exists(closed) && System.nanoTime() < deadline) Namespace.sleep(50);
            assertThat(ApiClient.request(api, "{\"execute\": \"get_status\"}")).as("after the close").doesNotContain("tcp-bypass")
                    .contains("\"bypassed\":1");
        } finally {
            try (var files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) java.nio.file.Files.deleteIfExists(f);
            }
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    /** IPv6: a connect to fd00::2 (the host's ::1) is bypassed too, its local end the host's ::1; the bytes intact. */
    @Test
    @Timeout(120)
    void anIpv6ConnectToTheGatewayIsBypassed() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName("::1"))) {
            String script = "for i in $(seq 100); do ip -6 -o addr show dev tap0 | grep -q 'inet6 fd00::.*dynamic' "
                    + "&& ! ip -6 -o addr show dev tap0 | grep -q tentative && break; sleep 0.1; done; " + ItEnv.python() + " -c '"
                    + "import hashlib, socket, sys\n"
                    + "s = socket.create_connection((\"fd00::2\", " + http.port() + "))\n"
                    + "s.sendall(b\"GET /blob?seed=43&size=1048576 HTTP/1.0\\r\\n\\r\\n\")\n"
                    + "data = b\"\"\n"
                    + "while True:\n"
                    + "    b = s.recv(65536)\n"
                    + "    if not b: break\n"
                    + "    data += b\n"
                    + "print(s.getsockname()[0], hashlib.sha256(data.split(b\"\\r\\n\\r\\n\", 1)[1]).hexdigest())'";
            Cmd.Result r = Cmd.run(T, Stack.runCommand(List.of("--bypass", "--enable-ipv6", "--debug"), List.of("sh", "-c", script)));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out().strip()).as("%s", r).isEqualTo("::1 " + Blob.sha256(43, 1 << 20));
            assertThat(r.err()).as("%s", r).contains(" bypassed=1 ");
        }
    }

    /**
     * A caller killed while its blocking connect waits (the host's listener has a full accept queue,
     * so the host socket's SYN goes unanswered): its host socket goes at once, it is not left to
     * retry its SYN for two minutes, and it counts as failed.
     */
    @Test
    @Timeout(120)
    void aCallerKilledWhileItsConnectWaitsLeavesNoHostSocket() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("jslirp-bypass-killed");
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             java.net.Socket a = new java.net.Socket(InetAddress.getLoopbackAddress(), full.getLocalPort());
             java.net.Socket b = new java.net.Socket(InetAddress.getLoopbackAddress(), full.getLocalPort());
             Stack.Running run = Stack.start(Stack.runCommand(List.of("--bypass", "--debug"), List.of(ItEnv.python(), "-c", """
                     import os, signal, socket, sys, time
                     pid = os.fork()
                     if pid == 0:
                         socket.create_connection(("10.0.2.2", int(sys.argv[1])))
                         os._exit(0)
                     print("waiting", flush=True)
                     while not os.path.exists(sys.argv[2]): time.sleep(0.05)
                     os.kill(pid, signal.SIGKILL)
                     os.waitpid(pid, 0)
                     print("killed", flush=True)
                     while not os.path.exists(sys.argv[3]): time.sleep(0.05)
                     """, Integer.toString(full.getLocalPort()), dir.resolve("kill").toString(), dir.resolve("done").toString())))) {
            String port = Integer.toString(full.getLocalPort());
            await(run, "its SYN", () -> synSent(port) == 1);
            java.nio.file.Files.writeString(dir.resolve("kill"), "");
            await(run, "the caller's end", () -> run.stdout().contains("killed"));
            await(run, "the host socket's end", () -> synSent(port) == 0);
            java.nio.file.Files.writeString(dir.resolve("done"), "");
            Stack.Exit exit = run.stop();
            assertThat(exit.stderr()).as("%s", exit).contains(" bypassed=0 ", " bypass_failed=1 ");
        } finally {
            try (var files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) java.nio.file.Files.deleteIfExists(f);
            }
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    /**
     * jslirp killed (SIGKILL) while a process of its command waits in a held connect (jslirp
     * stopped first, so the notification stays pending), a daemon that left the command's session
     * at that: it is gone within seconds with the command's PID namespace, so no process is left
     * whose connects have no one to answer them (where the command has no PID namespace of its
     * own, such a process's connects fail with ENOSYS: docs/usage.md), and no host socket is left
     * toward the port it dialled.
     */
    @Test
    @Timeout(120)
    void aProcessWaitingInAConnectEndsWithJslirp() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("jslirp-bypass-gone");
        long daemon = -1;
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             Stack.Running run = Stack.start(Stack.runCommand(List.of("--bypass"), List.of(ItEnv.python(), "-c", """
                     import os, socket, sys, time
                     port, d = int(sys.argv[1]), sys.argv[2]
                     if os.fork() == 0:
                         os.setsid()
                         with open(os.path.join(d, "pid.tmp"), "w") as f: f.write(str(os.getpid()))
                         os.rename(os.path.join(d, "pid.tmp"), os.path.join(d, "pid"))
                         while not os.path.exists(os.path.join(d, "go")): time.sleep(0.05)
                         socket.create_connection(("10.0.2.2", port), timeout=60)
                         time.sleep(600)
                     time.sleep(600)
                     """, Integer.toString(server.getLocalPort()), dir.toString())))) {
            await(run, "the daemon", () -> java.nio.file.Files.exists(dir.resolve("pid")));
            String inNamespace = java.nio.file.Files.readString(dir.resolve("pid")).trim();
            daemon = hostPid(inNamespace, dir.toString());
            long jslirp = run.pid();
            assertThat(Cmd.run(T, "kill", "-STOP", Long.toString(jslirp)).exit()).isZero();
            java.nio.file.Files.writeString(dir.resolve("go"), "");
            java.nio.file.Path syscall = java.nio.file.Path.of("/proc/" + daemon + "/syscall");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!java.nio.file.Files.readString(syscall).startsWith("42 ")) { // held in connect, jslirp stopped
                assertThat(System.nanoTime()).as("the daemon's connect held").isLessThan(deadline);
                Namespace.sleep(50);
            }
            ProcessHandle held = ProcessHandle.of(daemon).orElseThrow();
            assertThat(Cmd.run(T, "kill", "-KILL", Long.toString(jslirp)).exit()).isZero();
            held.onExit().get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(Cmd.run(T, "ss", "-Htn", "dst", "127.0.0.1:" + server.getLocalPort()).out()).as("no host socket left").isBlank();
            daemon = -1;
        } finally {
            if (daemon > 0) ProcessHandle.of(daemon).ifPresent(ProcessHandle::destroyForcibly);
            try (var files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) java.nio.file.Files.deleteIfExists(f);
            }
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    /** The host's PID of the process whose PID in its own namespace is inNamespace and whose command line names marker. */
    private static long hostPid(String inNamespace, String marker) throws Exception {
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            try {
                java.nio.file.Path proc = java.nio.file.Path.of("/proc/" + h.pid());
                if (!java.nio.file.Files.readString(proc.resolve("cmdline")).contains(marker)) continue;
                String nspid = java.nio.file.Files.readString(proc.resolve("status")).lines().filter(l -> l.startsWith("NSpid:")).findFirst()
                        .orElse("");
                String[] ids = nspid.split("\\s+");
                if (ids.length > 2 && ids[ids.length - 1].equals(inNamespace)) return h.pid();
            } catch (java.io.IOException gone) {
                // not ours
            }
        }
        throw new AssertionError("no process " + inNamespace + " naming " + marker);
    }

    /** The host's TCP sockets in SYN-SENT toward 127.0.0.1:port. */
    private static int synSent(String port) {
        Cmd.Result r = Cmd.run(Duration.ofSeconds(10), "ss", "-Htn", "state", "syn-sent", "dst", "127.0.0.1:" + port);
        assertThat(r.exit()).as("%s", r).isZero();
        return (int) r.out().lines().filter(l -> !l.isBlank()).count();
    }

    private static void await(Stack.Running run, String what, java.util.function.BooleanSupplier ready) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!ready.getAsBoolean()) {
            if (!run.alive()) throw new AssertionError("jslirp exited before " + what + ":\n" + run.describe());
            if (System.nanoTime() > deadline) throw new AssertionError("no " + what + " within 20 s:\n" + run.describe());
            Namespace.sleep(50);
        }
    }

    /** The client's lines as word → the rest, and the counters line as "counters". */
    private static Map<String, String> lines(Cmd.Result r, boolean bypass) {
        assertThat(r.exit()).as("%s", r).isZero();
        java.util.LinkedHashMap<String, String> m = new java.util.LinkedHashMap<>();
        for (String line : r.out().lines().toList()) {
            int sp = line.indexOf(' ');
            if (sp > 0) m.put(line.substring(0, sp), line.substring(sp + 1));
        }
        r.err().lines().filter(l -> l.startsWith("jslirp: counters: ")).findFirst().ifPresent(l -> m.put("counters", " " + l.substring(18) + " "));
        assertThat(m).as("bypass=%s: %s", bypass, r).containsKeys("blocking", "nonblocking", "thread", "child", "closed", "unreadable",
                "loopback", "many", "flood", "udp", "counters");
        return m;
    }
}
