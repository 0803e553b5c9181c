package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * bin/pasta's splicing port options against kernel peers: -T and -U (the namespace's loopback to
 * the host's) for one port, a range and a translated port, over IPv4 and IPv6, 10 MiB each way
 * byte-exact through a splice; "-t auto" picking up a server started in the namespace after pasta
 * (polled by connecting, both from the host's loopback, spliced, and from the host's own address,
 * through the tap) and dropping it once it is gone; "-T auto" following a server on the host.
 *
 * <p>Network safety: the namespace is the test's ({@code ip netns add}), with the nft guard of
 * {@link PastaIT}'s guard (only loopback, the mapped addresses and replies leave it); clients and
 * servers are on loopback, or on the host's own address toward the forwarded port.
 */
class PastaPortsIT {
    private static final Duration T = Duration.ofSeconds(60);
    private static final int MIB10 = 10 * 1024 * 1024;

    /**
     * A client in the namespace: argv HOST PORT then "port" (prints the line the server answers),
     * "get" (prints the sha256 of all it reads), "put N" (sends N seeded bytes, prints their
     * sha256 and the server's answer), or "udp" (prints the answer to one datagram; "-" if none).
     */
    private static final String CLIENT = """
            import hashlib, random, socket, sys
            host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
            fam = socket.AF_INET6 if ":" in host else socket.AF_INET
            if mode == "udp":
                s = socket.socket(fam, socket.SOCK_DGRAM); s.settimeout(1)
                for i in range(5):
                    s.sendto(b"hello", (host, port))
                    try:
                        print(s.recv(256).decode()); sys.exit(0)
                    except socket.timeout:
                        pass
                print("-"); sys.exit(0)
            s = socket.create_connection((host, port), timeout=30)
            if mode == "port":
                s.sendall(b"port\\n"); print(s.makefile().readline().strip())
            elif mode == "get":
                s.sendall(b"get\\n"); h = hashlib.sha256()
                while True:
                    d = s.recv(65536)
                    if not d: break
                    h.update(d)
                print(h.hexdigest())
            elif mode == "put":
                n = int(sys.argv[4]); data = random.Random(7).randbytes(n)
                s.sendall(("put %d\\n" % n).encode()); s.sendall(data)
                print(hashlib.sha256(data).hexdigest(), s.makefile().readline().strip())
            """;

    private final PastaNamespaces namespaces = new PastaNamespaces("jslirp-ports-");
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void tools() {
        PastaNamespaces.assumeUsable("ip", "nft", "nsenter");
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (AutoCloseable c : closing) c.close();
        } finally {
            namespaces.close();
        }
    }

    /** -T and -U: one port, a range, a translated port, IPv4 and IPv6 loopback, and 10 MiB each way through a splice. */
    @Test
    @Timeout(240)
    void outboundPortsReachTheHostsLoopback() throws Exception {
        int base = freeBase();
        int one = base + 1, range = base + 10, xlate = base + 20, to = base + 30;
        for (int p : List.of(one, range, range + 1, range + 2, to)) {
            hostServer("127.0.0.1", p);
            hostServer("::1", p);
        }
        hostUdpEcho("127.0.0.1", one);
        String ns = netns();
        pasta(ns, "-t", "none", "-u", "none", "-T", String.valueOf(one), "-T", range + "-" + (range + 2), "-T", xlate + ":" + to,
                "-U", String.valueOf(one));
        for (String lo : List.of("127.0.0.1", "::1")) {
            assertThat(client(ns, lo, one, "port")).as("-T one port at %s", lo).isEqualTo(String.valueOf(one));
            for (int i = 0; i < 3; i++) assertThat(client(ns, lo, range + i, "port")).as("-T range at %s", lo).isEqualTo(String.valueOf(range + i));
            assertThat(client(ns, lo, xlate, "port")).as("-T translated at %s", lo).isEqualTo(String.valueOf(to));
        }
        assertThat(client(ns, "127.0.0.1", one, "udp")).as("-U").startsWith("host ");
        assertThat(client(ns, "127.0.0.1", one, "get")).as("10 MiB from the host").isEqualTo(Blob.sha256(31, MIB10));
        String[] put = client(ns, "127.0.0.1", one, "put", String.valueOf(MIB10)).split(" ");
        assertThat(put[1]).as("10 MiB to the host").isEqualTo(put[0]);
    }

    /**
     * -t auto: a server started in the namespace after pasta is reached from the host's loopback
     * (spliced) and the host's own address (through the tap), 10 MiB each way through the splice;
     * once it is gone, the host port closes.
     */
    @Test
    @Timeout(240)
    void autoFollowsTheNamespacesListeners() throws Exception {
        int port = freeBase() + 5;
        String ns = netns();
        pasta(ns, "-t", "auto", "-u", "none", "-T", "none", "-U", "none");
        assertThat(refused("127.0.0.1", port)).as("nothing listens yet").isTrue();
        Process server = nsServer(ns, port);
        awaitAnswer("127.0.0.1", port);
        assertThat(tcpPort("::1", port)).isEqualTo(port);
        String own = hostAddress();
        if (own != null) assertThat(tcpPort(own, port)).as("through the tap, at %s", own).isEqualTo(port);
        try (Socket s = PastaIT.connect("127.0.0.1", port)) {
            s.getOutputStream().write(("put " + MIB10 + "\n").getBytes(StandardCharsets.US_ASCII));
            Blob.write(s.getOutputStream(), 32, MIB10);
            assertThat(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine())
                    .as("10 MiB into the namespace through the splice").isEqualTo(Blob.sha256(32, MIB10));
        }
        Cmd.killTree(server.toHandle());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!refused("127.0.0.1", port)) {
            assertThat(System.nanoTime()).as("the host port closes after the server").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * -u: a datagram from the host's loopback is spliced into the namespace, to its own address
     * (pasta's default), keeping the client's port; one from the host's own address goes through
     * the tap.
     */
    @Test
    @Timeout(240)
    void udpLoopbackClientsAreSplicedKeepingTheirPort() throws Exception {
        int port = freeBase() + 9;
        String ns = netns();
        Process server = new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), "-c", UDP_SOURCE, String.valueOf(port))
                .redirectErrorStream(true).start();
        namespaces.started(server);
        assertThat(new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine()).isEqualTo("listening");
        pasta(ns, "-t", "none", "-u", String.valueOf(port), "-T", "none", "-U", "none");
        try (DatagramSocket c = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            String[] seen = udpAsk(c, "127.0.0.1", port).split(" ");
            assertThat(Integer.parseInt(seen[1])).as("the client's port kept").isEqualTo(c.getLocalPort());
            String own = hostAddress();
            if (own != null) assertThat(seen[0]).as("to the namespace's own address, from it").endsWith(own);
        }
        String own = hostAddress();
        if (own != null) {
            try (DatagramSocket c = new DatagramSocket(new InetSocketAddress(own, 0))) {
                assertThat(udpAsk(c, own, port)).as("through the tap").isNotEmpty();
            }
        }
    }

    /**
     * With JSLIRP_API_SOCKET, pasta mode serves slirp4netns's API, and {@code jslirp status} lists
     * its flows from the one table: a spliced TCP connection held open and a spliced UDP flow, each
     * with its client's end as the host's loopback saw it.
     */
    @Test
    @Timeout(120)
    void statusListsTheSplicedFlows() throws Exception {
        int port = freeBase() + 11;
        String ns = netns();
        nsServer(ns, port);
        Process udp = new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), "-c", UDP_SOURCE, String.valueOf(port))
                .redirectErrorStream(true).start();
        namespaces.started(udp);
        assertThat(new BufferedReader(new InputStreamReader(udp.getInputStream(), StandardCharsets.UTF_8)).readLine()).isEqualTo("listening");
        Path dir = Files.createTempDirectory("jslirp-api-");
        Path api = dir.resolve("api.sock");
        closing.add(() -> { // the socket and its lock file (pasta mode may still be ending)
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        });
        pasta(Map.of("JSLIRP_API_SOCKET", api.toString()), ns, "-t", String.valueOf(port), "-u", String.valueOf(port), "-T", "none", "-U", "none");
        try (Socket held = PastaIT.connect("127.0.0.1", port); DatagramSocket c = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            udpAsk(c, "127.0.0.1", port);
            String tcpRow = "127.0.0.1:" + held.getLocalPort(), udpRow = "127.0.0.1:" + c.getLocalPort();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (true) {
                Cmd.Result r = Cmd.run(T, ItEnv.home().resolve("jslirp").toString(), "status", "--api-socket", api.toString());
                assertThat(r.exit()).as("%s", r).isZero();
                List<String> rows = r.out().lines().toList();
                boolean tcp = rows.stream().anyMatch(l -> l.startsWith("tcp-splice ") && l.contains(" open ") && l.contains(tcpRow));
                boolean datagrams = rows.stream().anyMatch(l -> l.startsWith("udp-splice ") && l.contains(udpRow));
                if (tcp && datagrams) {
                    assertThat(rows).as("the counters read the table").anyMatch(l -> l.matches("open_spliced_connections +1"))
                            .anyMatch(l -> l.matches("open_spliced_udp_flows +1"));
                    break;
                }
                assertThat(System.nanoTime()).as("both spliced flows listed:%n%s", r.out()).isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    /** The namespace's UDP server on argv PORT: answers each datagram with the source it saw, "ADDR PORT". */
    private static final String UDP_SOURCE = """
            import socket, sys
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(("::", int(sys.argv[1])))
            print("listening", flush=True)
            while True:
                d, a = s.recvfrom(2048)
                s.sendto(("%s %d" % (a[0], a[1])).encode(), a)
            """;

    private static String udpAsk(DatagramSocket c, String host, int port) throws IOException {
        c.setSoTimeout(1000);
        byte[] q = "who".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 5; i++) {
            c.send(new DatagramPacket(q, q.length, InetAddress.getByName(host), port));
            DatagramPacket d = new DatagramPacket(new byte[256], 256);
            try {
                c.receive(d);
                return new String(d.getData(), 0, d.getLength(), StandardCharsets.US_ASCII);
            } catch (java.net.SocketTimeoutException again) {
                // once more
            }
        }
        throw new AssertionError("no answer from " + host + ":" + port);
    }

    /** -U with a range, over IPv4 and IPv6: a datagram to each port of the namespace's loopback reaches the host's of its version. */
    @Test
    @Timeout(240)
    void outboundUdpRangesOverBothVersions() throws Exception {
        int range = freeBase() + 12;
        for (int i = 0; i < 3; i++) {
            hostUdpEcho("127.0.0.1", range + i);
            hostUdpEcho("::1", range + i);
        }
        String ns = netns();
        pasta(ns, "-t", "none", "-u", "none", "-T", "none", "-U", range + "-" + (range + 2));
        for (String lo : List.of("127.0.0.1", "::1")) {
            for (int i = 0; i < 3; i++) {
                assertThat(client(ns, lo, range + i, "udp")).as("-U range at %s:%d", lo, range + i).isEqualTo("host " + lo + " " + (range + i));
            }
        }
    }

    /**
     * -u auto and -U auto: a UDP socket bound in the namespace after pasta gets the host's port, one
     * bound on the host's loopback the namespace's; each is reached once the scan has seen it.
     */
    @Test
    @Timeout(240)
    void udpAutoFollowsTheSocketsOfBothSides() throws Exception {
        int inbound = freeBase() + 14, outbound = inbound + 1;
        String ns = netns();
        pasta(ns, "-t", "none", "-u", "auto", "-T", "none", "-U", "auto");
        Process server = new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), "-c", UDP_SOURCE, String.valueOf(inbound))
                .redirectErrorStream(true).start();
        namespaces.started(server);
        assertThat(new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine()).isEqualTo("listening");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        try (DatagramSocket c = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            while (udpAsk(c, "127.0.0.1", inbound).isEmpty()) {
                assertThat(System.nanoTime()).as("-u auto picks up the namespace's socket").isLessThan(deadline);
            }
        }
        hostUdpEcho("127.0.0.1", outbound);
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!client(ns, "127.0.0.1", outbound, "udp").startsWith("host ")) {
            assertThat(System.nanoTime()).as("-U auto picks up the host's socket").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * --host-lo-to-ns-lo: a host-loopback client of -t reaches a server that listens on the
     * namespace's loopback alone; without it (pasta's default now) the client goes to the
     * namespace's own address, where that server is not.
     */
    @Test
    @Timeout(240)
    void hostLoopbackToTheNamespacesLoopbackOnlyWhenAsked() throws Exception {
        int port = freeBase() + 16;
        String asked = netns(), not = netns();
        for (String ns : List.of(asked, not)) {
            Process p = new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), "-c", LOOPBACK_SERVER, String.valueOf(port))
                    .redirectErrorStream(true).start();
            namespaces.started(p);
            assertThat(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine()).isEqualTo("listening");
        }
        pasta(asked, "-t", String.valueOf(port), "-u", "none", "-T", "none", "-U", "none", "--host-lo-to-ns-lo");
        assertThat(tcpPort("127.0.0.1", port)).as("to the namespace's 127.0.0.1").isEqualTo(port);
        stopPastaOf(asked);
        pasta(not, "-t", String.valueOf(port), "-u", "none", "-T", "none", "-U", "none");
        assertThat(refused("127.0.0.1", port)).as("to the namespace's own address: nothing there").isTrue();
    }

    /**
     * Host-loopback clients of -t beyond what the instance's descriptors can splice: 600 at once
     * under a limit of 1,024 descriptors (a splice holds five beside the client's: the target's
     * socket and two pipes), each reading 16 KiB from a server in the namespace, all connected
     * before any reads. Those for which no descriptors are left go through the tap instead of being
     * reset (before: reset), so every client gets exactly its bytes.
     */
    @Test
    @Timeout(240)
    void loopbackClientsBeyondTheDescriptorsForSplicesGoThroughTheTap() throws Exception {
        int port = freeBase() + 18, clients = 600;
        String ns = netns();
        Path dir = Files.createTempDirectory("jslirp-burst-");
        Path script = dir.resolve("forwarded_burst.py");
        try (InputStream in = getClass().getResourceAsStream("/it/forwarded_burst.py")) {
            Files.copy(in, script);
        }
        closing.add(() -> {
            Files.deleteIfExists(script);
            Files.deleteIfExists(dir);
        });
        Process server = namespaces.started(new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), script.toString(), "serve",
                String.valueOf(clients), "16384", String.valueOf(port)).redirectErrorStream(true).start());
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("listening");
        pasta(Map.of(), List.of("prlimit", "--nofile=1024:1024"), ns, "-t", String.valueOf(port), "-u", "none", "-T", "none", "-U", "none");
        Cmd.Result r = Cmd.run(Duration.ofSeconds(120), "bash", "-c", "ulimit -n 8192 && " + ItEnv.python() + " " + script + " fetch "
                + clients + " 16384 127.0.0.1 " + port);
        assertThat(r.out().strip()).as("%s", r).isEqualTo("ok " + clients);
        assertThat(out.readLine()).isEqualTo("served " + clients);
    }

    /** -T auto: a server started on the host's loopback after pasta is reached from the namespace's, and dropped after. */
    @Test
    @Timeout(240)
    void outboundAutoFollowsTheHostsListeners() throws Exception {
        int port = freeBase() + 7;
        String ns = netns();
        pasta(ns, "-t", "none", "-u", "none", "-T", "auto", "-U", "none");
        assertThat(client(ns, "127.0.0.1", port, "port")).as("nothing yet").isEqualTo("refused");
        ServerSocket server = hostServer("127.0.0.1", port);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!client(ns, "127.0.0.1", port, "port").equals(String.valueOf(port))) {
            assertThat(System.nanoTime()).as("-T auto picks up the host's listener").isLessThan(deadline);
            Thread.sleep(100);
        }
        server.close();
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!client(ns, "127.0.0.1", port, "port").equals("refused")) {
            assertThat(System.nanoTime()).as("-T auto drops it after").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    // ---- helpers ----

    /** The namespace's TCP server on its 127.0.0.1 alone: "port" answers the port. */
    private static final String LOOPBACK_SERVER = """
            import socket, sys
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
            print("listening", flush=True)
            while True:
                c, _ = s.accept()
                c.recv(64); c.sendall(b"%d\\n" % int(sys.argv[1])); c.close()
            """;

    /** A UDP socket on the host at address:port answering each datagram with "host ADDRESS PORT". */
    private void hostUdpEcho(String address, int port) throws IOException {
        DatagramSocket echo = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(address), port));
        closing.add(echo);
        byte[] a = ("host " + address + " " + port).getBytes(StandardCharsets.US_ASCII);
        Thread.ofPlatform().daemon(true).start(() -> {
            byte[] b = new byte[256];
            try {
                while (true) {
                    DatagramPacket d = new DatagramPacket(b, b.length);
                    echo.receive(d);
                    echo.send(new DatagramPacket(a, a.length, d.getSocketAddress()));
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
    }

    /** Ends the jslirp pasta serving ns (its forwards close with it). */
    private static void stopPastaOf(String ns) throws Exception {
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            String cmdline = h.info().commandLine().orElse("");
            if (cmdline.contains("jslirp.jar pasta") && cmdline.contains("/run/netns/" + ns + " ")) {
                h.destroy();
                h.onExit().get(20, TimeUnit.SECONDS);
            }
        }
    }

    private String netns() {
        return namespaces.create();
    }

    /** Podman's list around the port options given. */
    private void pasta(String ns, String... ports) throws Exception {
        pasta(Map.of(), ns, ports);
    }

    /** Podman's list around the port options given, with env added to bin/pasta's environment. */
    private void pasta(Map<String, String> env, String ns, String... ports) throws Exception {
        pasta(env, List.of(), ns, ports);
    }

    /** As above, bin/pasta started by the command prefix (e.g. prlimit's). */
    private void pasta(Map<String, String> env, List<String> prefix, String ns, String... ports) throws Exception {
        List<String> c = new ArrayList<>(prefix);
        c.addAll(List.of(ItEnv.home().resolve("bin/pasta").toString(), "--config-net"));
        c.addAll(List.of(ports));
        c.addAll(List.of("--dns-forward", "169.254.1.1", "--no-map-gw", "--quiet", "--netns", "/run/netns/" + ns, "--map-guest-addr",
                "169.254.1.2"));
        ProcessBuilder b = new ProcessBuilder(c).redirectErrorStream(true);
        b.environment().putAll(env);
        Process p = b.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("bin/pasta: %s", out).isZero();
    }

    /** A base below the ephemeral ports with 40 free ports above it on the host's loopback. */
    private static int freeBase() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(12, 30) * 1000 + ThreadLocalRandom.current().nextInt(0, 9) * 100;
            boolean free = true;
            for (int p = base; p < base + 40 && free; p++) {
                try (ServerSocket s = new ServerSocket()) {
                    s.bind(new InetSocketAddress("0.0.0.0", p));
                } catch (IOException taken) {
                    free = false;
                }
            }
            if (free) return base;
        }
        throw new AssertionError("no free ports");
    }

    /** A server on the host at address:port: "port" answers its port, "get" 10 MiB of seed 31, "put N" the sha256. */
    private ServerSocket hostServer(String address, int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(address), port));
        closing.add(s);
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                while (true) {
                    Socket c = s.accept();
                    Thread.ofPlatform().daemon(true).start(() -> serve(c, port));
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return s;
    }

    private static void serve(Socket c, int port) {
        try (c) {
            DataInputStream in = new DataInputStream(c.getInputStream());
            String[] line = readLine(in).split(" ");
            switch (line[0]) {
                case "port" -> c.getOutputStream().write((port + "\n").getBytes(StandardCharsets.US_ASCII));
                case "get" -> Blob.write(c.getOutputStream(), 31, MIB10);
                case "put" -> {
                    long n = Long.parseLong(line[1]);
                    MessageDigest d = Blob.sha256();
                    byte[] buf = new byte[65536];
                    while (n > 0) {
                        int r = in.read(buf, 0, (int) Math.min(buf.length, n));
                        if (r < 0) break;
                        d.update(buf, 0, r);
                        n -= r;
                    }
                    c.getOutputStream().write((HexFormat.of().formatHex(d.digest()) + "\n").getBytes(StandardCharsets.US_ASCII));
                }
                default -> { }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int ch; (ch = in.read()) >= 0 && ch != '\n'; ) b.append((char) ch);
        return b.toString();
    }

    /** The namespace's client (CLIENT); "refused" when the connection is refused or reset. */
    private static String client(String ns, String host, int port, String... args) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns, ItEnv.python(), "-c", CLIENT, host, String.valueOf(port)));
        c.addAll(List.of(args));
        Cmd.Result r = Cmd.run(T, c);
        if (r.exit() != 0 && (r.out() + r.err()).matches("(?s).*(ConnectionRefused|ConnectionReset|Connection refused|reset).*")) return "refused";
        assertThat(r.exit()).as("%s", r).isZero();
        return r.out().trim();
    }

    /** {@link PastaIT#SERVER} in the namespace on port (IPv4 and IPv6), no file to get, no UDP: "port" answers the port, "put N" the sha256. */
    private Process nsServer(String ns, int port) throws IOException {
        Process p = new ProcessBuilder("ip", "netns", "exec", ns, ItEnv.python(), "-c", PastaIT.SERVER, "/dev/null", String.valueOf(port), "")
                .redirectErrorStream(true).start();
        namespaces.started(p);
        assertThat(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine()).isEqualTo("listening");
        return p;
    }

    /** Polls host:port until the namespace's server answers (auto rescans; pasta's once a second). */
    private static void awaitAnswer(String host, int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                if (tcpPort(host, port) == port) return;
            } catch (IOException | NumberFormatException notYet) {
                // refused, or reset by a splice whose target is not there yet
            }
            assertThat(System.nanoTime()).as("-t auto picks up the namespace's listener on %d", port).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** The host's own IPv4 address of its default route's interface (what the namespace got), or null. */
    private static String hostAddress() {
        Cmd.Result r = Cmd.run(T, "ip", "-4", "-o", "route", "get", "192.0.2.1");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" src (\\S+)").matcher(r.out());
        return r.exit() == 0 && m.find() ? m.group(1) : null;
    }

    private static int tcpPort(String host, int port) throws IOException {
        try (Socket s = PastaIT.connect(host, port)) {
            s.getOutputStream().write("port\n".getBytes(StandardCharsets.US_ASCII));
            String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            if (line == null) throw new IOException("closed");
            return Integer.parseInt(line.trim());
        }
    }

    private static boolean refused(String host, int port) {
        try {
            tcpPort(host, port);
            return false;
        } catch (IOException | NumberFormatException e) {
            return true;
        }
    }
}
