package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract item 5 (jslirp only): DNS sent to 10.0.2.3, over UDP and TCP, is forwarded to the
 * nameservers of the file given with {@code --resolv-conf}, in turn when one fails: here dnsmasqs
 * the test starts on loopback addresses (or on ::1 inside a namespace of its own), answering only
 * {@code jslirp.test → 192.0.2.7}. Never run against slirp4netns: it relays to the machine's own
 * resolver, which is not on loopback.
 */
class DnsIT {
    static final byte[] ANSWER = {(byte) 192, 0, 2, 7};
    private static final Duration T = Duration.ofSeconds(30);
    /**
     * A DNS client for the guest: one A query for argv[3] to argv[1] over UDP or TCP (argv[2]);
     * prints whether the answer carries the query's ID, its rcode, answer count and last 4 bytes
     * (the address), or the errno name when the server cannot be reached.
     */
    static final String CLIENT = """
            import errno, random, socket, struct, sys
            server, proto, name = sys.argv[1:4]
            qid = random.randrange(65536)
            q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
            q += b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\\0" + struct.pack(">HH", 1, 1)
            try:
                if proto == "tcp":
                    s = socket.create_connection((server, 53), timeout=10)
                    s.sendall(struct.pack(">H", len(q)) + q)
                    def recvn(n):
                        b = b""
                        while len(b) < n:
                            c = s.recv(n - len(b))
                            if not c:
                                sys.exit("connection closed after %d bytes" % len(b))
                            b += c
                        return b
                    r = recvn(struct.unpack(">H", recvn(2))[0])
                else:
                    s = socket.socket(socket.AF_INET6 if ":" in server else socket.AF_INET, socket.SOCK_DGRAM)
                    s.settimeout(10)
                    s.connect((server, 53))
                    s.send(q)
                    r = s.recv(4096)
            except socket.timeout:
                print("timeout")
                sys.exit(1)
            except OSError as e:
                print(errno.errorcode.get(e.errno, e.errno))
                sys.exit(1)
            rid, flags, qd, an = struct.unpack(">HHHH", r[:8])
            print("id", "ok" if rid == qid else "mismatch", "rcode", flags & 15, "answers", an, "address", ".".join(map(str, r[-4:])))
            """;
    static final String ANSWERED = "id ok rcode 0 answers 1 address 192.0.2.7";

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void queryToTenZeroTwoThreeReachesTheResolverFromResolvConf() throws Exception {
        assumeDnsTools();
        try (TestResolver dnsmasq = TestResolver.start(tmp)) {
            Path resolvConf = dnsmasq.resolvConf();
            try (Namespace ns = Namespace.create();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--resolv-conf", resolvConf.toString()))) {
                Cmd.Result r = nslookup(ns);
                assertThat(r.exit()).as("%s\n%s\ndnsmasq: %s", r, stack.describe(), dnsmasq.logged()).isZero();
                assertThat(r.out()).containsPattern("Name:\\s+jslirp\\.test\\s+Address:\\s+192\\.0\\.2\\.7");
                assertThat(dnsmasq.logged()).as("the query went to the test's resolver").contains("query[A] jslirp.test");
            }
        }
    }

    /**
     * The guest's TCP connection to 10.0.2.3:53 reaches the nameserver over TCP; with
     * --disable-host-loopback too, since a loopback nameserver is the host's, not the guest's.
     */
    @Test
    @Timeout(120)
    void queryOverTcpReachesTheResolverAlsoWithoutHostLoopback() throws Exception {
        assumeDnsTools();
        try (TestResolver dnsmasq = TestResolver.start(tmp)) {
            Stack.Options options = Stack.Options.configured().disableHostLoopback().extra("--resolv-conf", dnsmasq.resolvConf().toString());
            try (Namespace ns = Namespace.create(); Stack.Running stack = Stack.attach(ns, options)) {
                Cmd.Result tcp = query(ns, "tcp");
                assertThat(tcp.out()).as("%s\n%s\ndnsmasq: %s", tcp, stack.describe(), dnsmasq.logged()).contains(ANSWERED);
                Cmd.Result udp = query(ns, "udp");
                assertThat(udp.out()).as("%s\n%s", udp, stack.describe()).contains(ANSWERED);
                assertThat(dnsmasq.logged()).as("both queries went to the test's resolver").containsSubsequence("query[A] jslirp.test", "query[A] jslirp.test");
            }
        }
    }

    /**
     * resolv.conf names first a nameserver whose port is closed (ICMP port unreachable, TCP
     * reset), then one that takes UDP queries and never answers (a timeout), then one whose TCP
     * listener's queue is full (SYNs go unanswered: a timeout), then the real one: queries over
     * UDP and TCP still get their answer, and once it has answered, the real one is asked first.
     */
    @Test
    @Timeout(180)
    void failingNameserversAreSkipped() throws Exception {
        assumeDnsTools();
        List<String> addresses = loopbackAddresses(4);
        String closed = addresses.get(0), silent = addresses.get(1), full = addresses.get(2), resolver = addresses.get(3);
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = startDnsmasq(List.of(), resolver, log);
        List<Socket> queue = new ArrayList<>();
        try (DatagramSocket silentServer = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(silent), 53));
             ServerSocket fullServer = new ServerSocket(53, 1, InetAddress.getByName(full))) {
            fillAcceptQueue(fullServer, queue);
            awaitResolver(resolver, dnsmasq, log);
            Stack.Options options = Stack.Options.configured().extra("--resolv-conf", resolvConf(closed, silent, full, resolver).toString());
            try (Namespace ns = Namespace.create(); Stack.Running stack = Stack.attach(ns, options)) {
                Cmd.Result first = nslookup(ns);
                assertThat(first.exit()).as("%s\n%s\ndnsmasq: %s", first, stack.describe(), Files.readString(log)).isZero();
                assertThat(first.out()).containsPattern("Address:\\s+192\\.0\\.2\\.7");
                assertThat(drain(silentServer)).as("the silent nameserver was asked before the real one").isPositive();

                Cmd.Result second = nslookup(ns);
                assertThat(second.exit()).as("%s\n%s", second, stack.describe()).isZero();
                assertThat(second.took()).as("the nameserver that answered is asked first").isLessThan(Duration.ofMillis(1500));
                assertThat(drain(silentServer)).as("the silent nameserver is not asked again").isZero();
                System.out.printf("[dns] failover: first query %d ms, then %d ms%n", first.took().toMillis(), second.took().toMillis());
                Map<String, Long> counters = stack.stop().counters();
                assertThat(counters.get("dns_retries")).as("%s", counters).isGreaterThanOrEqualTo(2L);
                assertThat(counters.get("dns_unanswered")).as("%s", counters).isZero();
            }
            // TCP, on a fresh stack (which prefers the first nameserver again): the closed and the
            // silent address refuse the connect, the full one never answers it, the real one answers
            try (Namespace ns = Namespace.create(); Stack.Running stack = Stack.attach(ns, options)) {
                Cmd.Result tcp = query(ns, "tcp");
                assertThat(tcp.out()).as("%s\n%s", tcp, stack.describe()).contains(ANSWERED);
                System.out.printf("[dns] tcp failover: %d ms%n", tcp.took().toMillis());
            }
        } finally {
            for (Socket c : queue) c.close();
            stop(dnsmasq);
        }
    }

    /**
     * An IPv6 nameserver (::1): jslirp's host side and the dnsmasq run in a network namespace the
     * test makes, with IPv6 on, so port 53 of ::1 is surely theirs.
     */
    @Test
    @Timeout(120)
    void ipv6NameserverIsReachedOverIpv6() throws Exception {
        assumeDnsTools();
        try (Namespace hostSide = Namespace.create(); Namespace ns = Namespace.create()) {
            Cmd.Result v6 = hostSide.bash(T, "sysctl -q -w net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.lo.disable_ipv6=0"
                    + " && (ip -6 addr show dev lo | grep -q '::1/128' || ip -6 addr add ::1/128 dev lo nodad)");
            assumeTrue(v6.exit() == 0, () -> "no IPv6 in a test namespace: " + v6);
            Path log = tmp.resolve("dnsmasq.log");
            Process dnsmasq = startDnsmasq(hostSide.inside(List.of()), "::1", log);
            try {
                awaitListening(hostSide, dnsmasq, log);
                Stack.Options options = Stack.Options.configured().extra("--resolv-conf", resolvConf("::1").toString());
                try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                    stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                    Cmd.Result udp = nslookup(ns);
                    assertThat(udp.exit()).as("%s\n%s\ndnsmasq: %s", udp, stack.describe(), Files.readString(log)).isZero();
                    assertThat(udp.out()).containsPattern("Address:\\s+192\\.0\\.2\\.7");
                    Cmd.Result tcp = query(ns, "tcp");
                    assertThat(tcp.out()).as("%s\n%s", tcp, stack.describe()).contains(ANSWERED);
                    assertThat(Files.readString(log)).containsSubsequence("query[A] jslirp.test from ::1", "query[A] jslirp.test from ::1");
                }
            } finally {
                stop(dnsmasq);
            }
        }
    }

    /** --disable-dns (slirp4netns's flag): 10.0.2.3 answers neither UDP nor TCP on port 53. */
    @Test
    @Timeout(120)
    void disableDnsLeavesTheDnsAddressSilent() throws Exception {
        assumeDnsTools();
        try (TestResolver dnsmasq = TestResolver.start(tmp)) {
            int logged = dnsmasq.logged().length(); // the check's own query
            Stack.Options options = Stack.Options.configured().extra("--disable-dns", "--resolv-conf", dnsmasq.resolvConf().toString());
            try (Namespace ns = Namespace.create(); Stack.Running stack = Stack.attach(ns, options)) {
                Cmd.Result udp = query(ns, "udp");
                assertThat(udp.out()).as("%s", udp).contains("timeout");
                Cmd.Result tcp = query(ns, "tcp");
                assertThat(tcp.exit()).as("%s", tcp).isNotZero();
                assertThat(tcp.out()).as("refused like any unassigned address").contains("ECONNREFUSED");
                assertThat(stack.alive()).as(stack.describe()).isTrue();
                assertThat(dnsmasq.logged().substring(logged)).as("nothing reached the resolver").doesNotContain("jslirp.test");
            }
        }
    }

    private static void assumeDnsTools() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns would relay 10.0.2.3 to the machine's resolver");
        ItEnv.assumeTools("dnsmasq", "busybox");
    }

    private static Cmd.Result nslookup(Namespace ns) {
        return ns.exec(T, "busybox", "nslookup", "-type=a", "jslirp.test", Namespace.DNS);
    }

    private static Cmd.Result query(Namespace ns, String proto) {
        return ns.exec(T, ItEnv.python(), "-c", CLIENT, Namespace.DNS, proto, "jslirp.test");
    }

    /** n distinct random addresses in 127.53.0.0/16 (all on loopback). */
    static List<String> loopbackAddresses(int n) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Set<String> picked = new HashSet<>();
        List<String> out = new ArrayList<>();
        while (out.size() < n) {
            String a = "127.53." + rnd.nextInt(1, 255) + "." + rnd.nextInt(1, 255);
            if (picked.add(a)) out.add(a);
        }
        return out;
    }

    private Path resolvConf(String... nameservers) throws Exception {
        StringBuilder b = new StringBuilder("# written by DnsIT\n");
        for (String n : nameservers) b.append("nameserver ").append(n).append('\n');
        Path f = Files.createTempFile(tmp, "resolv", ".conf");
        Files.writeString(f, b);
        return f;
    }

    /** A dnsmasq answering only jslirp.test on address port 53, run by the command prefix (e.g. nsenter) if any. */
    static Process startDnsmasq(List<String> prefix, String address, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
                "--listen-address=" + address, "--bind-interfaces", "--port=53", "--address=/jslirp.test/192.0.2.7",
                "--pid-file=", "--user=root", "--log-queries"));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly();
    }

    /** Connects to the never-accepting server until its accept queue is full: further SYNs are dropped. */
    private static void fillAcceptQueue(ServerSocket server, List<Socket> clients) throws Exception {
        for (int i = 0; i < 16; i++) {
            Socket c = new Socket();
            try {
                c.connect(server.getLocalSocketAddress(), 300);
                clients.add(c);
            } catch (SocketTimeoutException full) {
                c.close();
                return;
            }
        }
        throw new AssertionError("the accept queue of " + server + " does not fill");
    }

    /** Datagrams the socket has received (read until it stays quiet for 300 ms). */
    private static int drain(DatagramSocket s) throws Exception {
        s.setSoTimeout(300);
        int n = 0;
        byte[] buf = new byte[512];
        while (true) {
            try {
                s.receive(new DatagramPacket(buf, buf.length));
                n++;
            } catch (SocketTimeoutException quiet) {
                return n;
            }
        }
    }

    /** Waits until the namespace has a UDP socket on port 53 (the dnsmasq started inside). */
    static void awaitListening(Namespace ns, Process dnsmasq, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline) {
            if (!dnsmasq.isAlive()) throw new AssertionError("dnsmasq exited: " + Files.readString(log));
            if (ns.exec(T, "ss", "-Hlun", "sport = :53").out().contains(":53")) return;
            Thread.sleep(100);
        }
        throw new AssertionError("dnsmasq did not listen: " + Files.readString(log));
    }

    /** Polls the resolver from the host (loopback only) until it answers jslirp.test. */
    static void awaitResolver(String resolver, Process dnsmasq, Path log) throws Exception {
        byte[] q = query(0x4a53, "jslirp.test");
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(300);
            while (System.nanoTime() < deadline) {
                if (!dnsmasq.isAlive()) throw new AssertionError("dnsmasq exited: " + Files.readString(log));
                s.send(new DatagramPacket(q, q.length, InetAddress.getByName(resolver), 53));
                byte[] buf = new byte[512];
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    s.receive(p);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                byte[] resp = Arrays.copyOf(buf, p.getLength());
                if ((resp[3] & 0x0f) == 0 && resp[7] >= 1 && Arrays.equals(Arrays.copyOfRange(resp, resp.length - 4, resp.length), ANSWER)) return;
            }
        }
        throw new AssertionError("resolver on " + resolver + " did not answer: " + Files.readString(log));
    }

    static byte[] query(int id, String name) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) (id >> 8), (byte) id, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0});
        for (String label : name.split("\\.")) {
            b.write(label.length());
            b.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
        }
        b.writeBytes(new byte[] {0, 0, 1, 0, 1});
        return b.toByteArray();
    }
}
