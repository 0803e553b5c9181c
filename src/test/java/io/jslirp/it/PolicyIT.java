package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbound policy: {@code --disable-host-loopback} closes every path to the host's loopback
 * (the gateway for TCP and UDP, and a crafted frame addressed to 127.0.0.1), while the gateway
 * still answers ping itself and the DNS address still relays to a resolver on loopback, as
 * libslirp does; {@code --allow} and {@code --deny} choose the destinations. Refusals come as ICMP administratively prohibited,
 * so the guest's connect and its UDP socket fail at once with EHOSTUNREACH. The stack's host side
 * runs in a namespace made here, with the servers it is meant to reach or not.
 */
class PolicyIT {
    private static final Duration T = Duration.ofSeconds(30);

    /** TCP to argv[1] and UDP to argv[2] on each address of argv[3..]: one line per attempt. */
    static final String PROBE = """
            import errno, socket, sys
            def name(e):
                return errno.errorcode.get(e.errno, str(e.errno))
            tcp_port, udp_port = int(sys.argv[1]), int(sys.argv[2])
            for a in sys.argv[3:]:
                s = socket.socket()
                s.settimeout(5)
                try:
                    s.connect((a, tcp_port))
                    print("tcp", a, "connected", s.recv(100).decode())
                except socket.timeout:
                    print("tcp", a, "timeout")
                except OSError as e:
                    print("tcp", a, name(e))
                s.close()
                u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                u.settimeout(1)
                u.connect((a, udp_port))
                result = "timeout"
                for i in range(3):
                    try:
                        u.send(b"x")
                        result = "answered " + u.recv(100).decode()
                        break
                    except socket.timeout:
                        pass
                    except OSError as e:
                        result = name(e)
                        break
                print("udp", a, result)
            """;

    /**
     * Sends a TCP SYN to argv[2]:argv[1] as a raw frame on tap0 (what the guest's own routing
     * would never send, e.g. to 127.0.0.1) and reports what comes back within 3 s.
     */
    static final String CRAFTED_SYN = """
            import socket, struct, sys, time
            port, dst = int(sys.argv[1]), socket.inet_aton(sys.argv[2])
            src = socket.inet_aton("10.0.2.100")
            def csum(b):
                if len(b) % 2:
                    b += b"\\0"
                s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
                while s >> 16:
                    s = (s & 0xffff) + (s >> 16)
                return ~s & 0xffff
            tcp = struct.pack("!HHIIBBHHH", 40000, port, 12345, 0, 5 << 4, 0x02, 64240, 0, 0)
            tcp = tcp[:16] + struct.pack("!H", csum(src + dst + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)) + tcp[18:]
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, src, dst)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
            s.bind(("tap0", 0))
            mac = s.getsockname()[4]
            s.send(bytes.fromhex("52550a000202") + mac + b"\\x08\\x00" + ip + tcp)
            s.settimeout(0.2)
            deadline = time.time() + 3
            while time.time() < deadline:
                try:
                    f = s.recv(65536)
                except socket.timeout:
                    continue
                h = f[14:]
                l4 = h[(h[0] & 15) * 4:]
                if h[9] == 1 and l4[0] == 3:
                    print("icmp unreachable code", l4[1])
                    sys.exit(0)
                if h[9] == 6 and h[12:16] == dst and struct.unpack("!H", l4[2:4])[0] == 40000 and l4[13] & 0x12 == 0x12:
                    print("syn-ack")
                    sys.exit(0)
            print("nothing")
            """;

    /** Host-side servers: TCP and UDP on port 8080 of each address given, answering with that address and logging the client. */
    static final String SERVERS = """
            import selectors, socket, sys
            sel = selectors.DefaultSelector()
            for a in sys.argv[1:]:
                t = socket.socket()
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                t.bind((a, 8080))
                t.listen(16)
                sel.register(t, selectors.EVENT_READ, ("tcp", a))
                u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                u.bind((a, 8080))
                sel.register(u, selectors.EVENT_READ, ("udp", a))
            print("ready", flush=True)
            while True:
                for key, _ in sel.select():
                    kind, a = key.data
                    if kind == "tcp":
                        c, peer = key.fileobj.accept()
                        c.sendall(a.encode())
                        c.close()
                    else:
                        data, peer = key.fileobj.recvfrom(100)
                        key.fileobj.sendto(a.encode(), peer)
                    print(kind, a, "from", peer[0], flush=True)
            """;

    @TempDir
    Path tmp;

    /** What the host's loopback servers saw and what the guest saw, with or without --disable-host-loopback. */
    private record LoopbackRun(int tcpAccepted, int udpReceived, String probe, String crafted, int ping, String exitLine) {}

    @Test
    @Timeout(180)
    void disableHostLoopbackClosesEveryPathToHostLoopback() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns answers with network unreachable and connects a crafted frame's 127.0.0.1");
        ItEnv.assumeTools(ItEnv.python(), "ping");

        LoopbackRun open = loopbackRun(false);
        // the control: without the flag every path leads to the host's loopback servers
        assertThat(open.probe()).contains("tcp 10.0.2.2 connected 127.0.0.1").contains("udp 10.0.2.2 answered 127.0.0.1");
        assertThat(open.crafted()).as("a frame to 127.0.0.1 reaches host loopback without the flag").isEqualTo("syn-ack");
        assertThat(open.tcpAccepted()).isEqualTo(2);
        assertThat(open.udpReceived()).isGreaterThanOrEqualTo(1);

        LoopbackRun closed = loopbackRun(true);
        assertThat(closed.probe()).contains("tcp 10.0.2.2 EHOSTUNREACH").contains("udp 10.0.2.2 EHOSTUNREACH");
        assertThat(closed.crafted()).as("ICMP 13: communication administratively prohibited").isEqualTo("icmp unreachable code 13");
        assertThat(closed.tcpAccepted()).as("no connection may reach host loopback").isZero();
        assertThat(closed.udpReceived()).as("no datagram may reach host loopback").isZero();
        assertThat(closed.ping()).as("the gateway answers ping itself, as libslirp's does").isZero();
        assertThat(closed.exitLine()).contains("policy_refused=3");
    }

    /**
     * One run against servers on 127.0.0.1 of a host-side namespace made here (so that only this
     * stack can reach them and every connection they log is the guest's).
     */
    private LoopbackRun loopbackRun(boolean disable) throws Exception {
        Path servers = tmp.resolve("servers.py");
        Files.writeString(servers, SERVERS);
        Path log = tmp.resolve("loopback-" + disable + ".log");
        try (Namespace hostSide = Namespace.create(); Namespace ns = Namespace.create()) {
            Process p = startServers(hostSide, servers, log, "127.0.0.1");
            Stack.Options options = Stack.Options.configured();
            if (disable) options.disableHostLoopback();
            Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))));
            Stack.Exit exit;
            Cmd.Result probe, crafted, ping;
            try {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                probe = ns.exec(T, ItEnv.python(), "-c", PROBE, "8080", "8080", Namespace.GATEWAY);
                crafted = ns.exec(T, ItEnv.python(), "-c", CRAFTED_SYN, "8080", "127.0.0.1");
                ping = ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY);
                assertThat(probe.exit()).as("%s\n%s", probe, stack.describe()).isZero();
                assertThat(crafted.exit()).as("%s\n%s", crafted, stack.describe()).isZero();
                Namespace.sleep(300); // a connection or datagram still on its way would be logged
            } finally {
                exit = stack.stop();
                p.destroy();
            }
            List<String> seen = Files.readAllLines(log);
            int accepted = (int) seen.stream().filter(l -> l.startsWith("tcp ")).count();
            int received = (int) seen.stream().filter(l -> l.startsWith("udp ")).count();
            System.out.printf("[loopback %s] %s | crafted: %s | server: tcp %d udp %d%n", disable ? "disabled" : "open",
                    probe.out().strip().replace('\n', ','), crafted.out().strip(), accepted, received);
            return new LoopbackRun(accepted, received, probe.out(), crafted.out().strip(), ping.exit(), exit.stderr());
        }
    }

    @Test
    @Timeout(120)
    void dnsStillReachesALoopbackResolverWithoutHostLoopback() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns would relay 10.0.2.3 to the machine's resolver");
        ItEnv.assumeTools("dnsmasq", "busybox");
        String resolver = DnsIT.loopbackAddresses(1).getFirst();
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = DnsIT.startDnsmasq(List.of(), resolver, log);
        try {
            DnsIT.awaitResolver(resolver, dnsmasq, log);
            Path resolvConf = tmp.resolve("resolv.conf");
            Files.writeString(resolvConf, "nameserver " + resolver + "\n");
            try (Namespace ns = Namespace.create();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().disableHostLoopback()
                         .extra("--resolv-conf", resolvConf.toString()))) {
                Cmd.Result r = ns.exec(T, "busybox", "nslookup", "-type=a", "jslirp.test", Namespace.DNS);
                assertThat(r.exit()).as("%s\n%s\ndnsmasq: %s", r, stack.describe(), Files.readString(log)).isZero();
                assertThat(r.out()).containsPattern("Address:\\s+192\\.0\\.2\\.7");
            }
        } finally {
            DnsIT.stop(dnsmasq);
        }
    }

    /**
     * --allow 192.0.2.0/24 --allow 198.51.100.0/24 --deny 198.51.100.1: 192.0.2.1 is reached (TCP,
     * UDP, ping), 198.51.100.1 (denied though allowed) and 203.0.113.1 (not allowed) are refused,
     * and so is the gateway, which counts as 127.0.0.1. The stack's host side and the servers run in a namespace
     * made here, with the addresses on its loopback interface.
     */
    @Test
    @Timeout(120)
    void allowAndDenyChooseTheDestinations() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("--allow and --deny are jslirp's");
        ItEnv.assumeTools(ItEnv.python(), "ping");
        String allowed = "192.0.2.1", denied = "198.51.100.1", notAllowed = "203.0.113.1";
        Path servers = tmp.resolve("servers.py");
        Files.writeString(servers, SERVERS);
        Path serverLog = tmp.resolve("servers.log");
        try (Namespace hostSide = Namespace.create(); Namespace ns = Namespace.create()) {
            for (String a : List.of(allowed, denied, notAllowed)) require(hostSide.exec(T, "ip", "addr", "add", a + "/32", "dev", "lo"));
            require(hostSide.exec(T, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=0 2147483647")); // jslirp's ping sockets
            for (String a : List.of(allowed, denied, notAllowed)) ns.allowEgress(a);
            Process p = startServers(hostSide, servers, serverLog, "127.0.0.1", allowed, denied, notAllowed);
            Stack.Options options = Stack.Options.configured()
                    .extra("--allow", "192.0.2.0/24", "--allow", "198.51.100.0/24", "--deny", denied);
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                Cmd.Result r = ns.exec(T, ItEnv.python(), "-c", PROBE, "8080", "8080", allowed, denied, notAllowed, Namespace.GATEWAY);
                System.out.printf("[allow/deny] %s%n", r.out().strip().replace('\n', ','));
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                assertThat(r.out()).as("%s\n%s", r, stack.describe())
                        .contains("tcp " + allowed + " connected " + allowed).contains("udp " + allowed + " answered " + allowed);
                for (String refused : List.of(denied, notAllowed, Namespace.GATEWAY)) {
                    assertThat(r.out()).contains("tcp " + refused + " EHOSTUNREACH").contains("udp " + refused + " EHOSTUNREACH");
                }
                assertThat(r.took()).as("refusals come at once").isLessThan(Duration.ofSeconds(8));
                Cmd.Result pingAllowed = ns.exec(T, "ping", "-c", "1", "-W", "5", allowed);
                assertThat(pingAllowed.exit()).as("%s\n%s", pingAllowed, stack.describe()).isZero();
                Cmd.Result pingDenied = ns.exec(T, "ping", "-c", "1", "-W", "5", denied);
                assertThat(pingDenied.exit()).as("%s", pingDenied).isNotZero();
                assertThat(pingDenied.out()).as("ICMP 13, as iputils' ping names it").contains("Packet filtered");
                String seen = Files.readString(serverLog);
                assertThat(seen).contains("tcp " + allowed).contains("udp " + allowed)
                        .doesNotContain(denied).doesNotContain(notAllowed).doesNotContain("127.0.0.1");
            } finally {
                p.destroy();
            }
        }
    }

    /** Starts SERVERS in ns on the addresses and waits until it listens. */
    static Process startServers(Namespace ns, Path script, Path log, String... addresses) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ItEnv.python(), script.toString()));
        cmd.addAll(List.of(addresses));
        Process p = new ProcessBuilder(ns.inside(cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        for (int i = 0; i < 100 && !Files.readString(log).contains("ready"); i++) {
            if (!p.isAlive()) throw new AssertionError("servers exited: " + Files.readString(log));
            Namespace.sleep(50);
        }
        return p;
    }

    private static void require(Cmd.Result r) {
        assertThat(r.exit()).as("%s", r).isZero();
    }
}
