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
 * The outbound policy, over IPv4 and IPv6: {@code --disable-host-loopback} closes every path to
 * the host's loopback (the gateway 10.0.2.2 or fd00::2 for TCP and UDP, and a crafted frame
 * addressed to 127.0.0.1 or ::1), with libslirp's answer, ICMP net unreachable (ICMPv6 no route),
 * so the guest's connect fails with ENETUNREACH; the gateway still answers ping itself and the DNS
 * address still relays to a resolver on loopback, as libslirp does. {@code --allow} and {@code
 * --deny} choose the destinations of both versions with one list of networks; their refusals are
 * ICMP administratively prohibited, which the guest's kernel reports as EHOSTUNREACH over IPv4 and
 * EACCES over IPv6. The stack's host side runs in a namespace made here, with the servers it is
 * meant to reach or not.
 */
class PolicyIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final boolean JSLIRP = Stack.Kind.selected() == Stack.Kind.JSLIRP;

    /**
     * TCP to argv[1] and UDP to argv[2] on each address of argv[3..] (IPv4 or IPv6): one line per
     * attempt. The UDP socket asks for every ICMP error (IP_RECVERR): without it Linux reports no
     * "soft" error (net unreachable, no route) on a UDP socket, only "hard" ones (prohibited).
     */
    static final String PROBE = """
            import errno, socket, sys
            def name(e):
                return errno.errorcode.get(e.errno, str(e.errno))
            tcp_port, udp_port = int(sys.argv[1]), int(sys.argv[2])
            for a in sys.argv[3:]:
                v6 = ":" in a
                family = socket.AF_INET6 if v6 else socket.AF_INET
                s = socket.socket(family)
                s.settimeout(5)
                try:
                    s.connect((a, tcp_port))
                    print("tcp", a, "connected", s.recv(100).decode())
                except socket.timeout:
                    print("tcp", a, "timeout")
                except OSError as e:
                    print("tcp", a, name(e))
                s.close()
                u = socket.socket(family, socket.SOCK_DGRAM)
                if v6:
                    u.setsockopt(socket.IPPROTO_IPV6, getattr(socket, "IPV6_RECVERR", 25), 1)
                else:
                    u.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_RECVERR", 11), 1)
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
     * Sends a TCP SYN (argv[3] "syn") or an echo request ("echo") to argv[2] (port argv[1]) as a
     * raw frame on tap0, IPv4 or IPv6 (what the guest's own routing would never send, e.g. to
     * 127.0.0.1 or ::1) and reports what comes back within 3 s.
     */
    static final String CRAFTED = """
            import socket, struct, sys, time
            port, dst_text, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
            v6 = ":" in dst_text
            family = socket.AF_INET6 if v6 else socket.AF_INET
            dst = socket.inet_pton(family, dst_text)
            if v6:
                own = socket.socket(family, socket.SOCK_DGRAM)
                own.connect(("fd00::2", 9))  # sends nothing: the guest's own (SLAAC) address
                src = socket.inet_pton(family, own.getsockname()[0])
            else:
                src = socket.inet_aton("10.0.2.100")
            def csum(b):
                if len(b) % 2:
                    b += b"\\0"
                s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
                while s >> 16:
                    s = (s & 0xffff) + (s >> 16)
                return ~s & 0xffff
            if kind == "syn":
                proto, l4 = 6, struct.pack("!HHIIBBHHH", 40000, port, 12345, 0, 5 << 4, 0x02, 64240, 0, 0)
                at = 16
            else:
                proto, l4 = (58, struct.pack("!BBHHH", 128, 0, 0, 0x4242, 1)) if v6 else (1, struct.pack("!BBHHH", 8, 0, 0, 0x4242, 1))
                l4 += b"crafted echo"
                at = 2
            pseudo = (src + dst + struct.pack("!IxxxB", len(l4), proto)) if v6 else (src + dst + struct.pack("!BBH", 0, proto, len(l4)))
            l4 = l4[:at] + struct.pack("!H", csum((pseudo if proto != 1 else b"") + l4)) + l4[at + 2:]
            if v6:
                ip = struct.pack("!IHBB16s16s", 6 << 28, len(l4), proto, 64, src, dst)
            else:
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, 0, 64, proto, 0, src, dst)
                ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            ethertype = 0x86dd if v6 else 0x0800
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ethertype))
            s.bind(("tap0", 0))
            mac = s.getsockname()[4]
            s.send(bytes.fromhex("52550a000202") + mac + struct.pack("!H", ethertype) + ip + l4)
            s.settimeout(0.2)
            deadline = time.time() + 3
            while time.time() < deadline:
                try:
                    f, addr = s.recvfrom(65536)
                except socket.timeout:
                    continue
                if addr[2] == socket.PACKET_OUTGOING:
                    continue
                h = f[14:]
                if v6:
                    p, l4, source = h[6], h[40:], h[8:24]
                else:
                    p, l4, source = h[9], h[(h[0] & 15) * 4:], h[12:16]
                if (p, l4[0]) in ((1, 3), (58, 1)):
                    print("icmp unreachable code", l4[1])
                    sys.exit(0)
                if kind == "syn" and p == 6 and source == dst and struct.unpack("!H", l4[2:4])[0] == 40000 and l4[13] & 0x12 == 0x12:
                    print("syn-ack")
                    sys.exit(0)
                if kind == "echo" and (p, l4[0]) in ((1, 0), (58, 129)) and source == dst:
                    print("echo reply")
                    sys.exit(0)
            print("nothing")
            """;

    /** Host-side servers: TCP and UDP on port 8080 of each address given (IPv4 or IPv6), answering with that address and logging the client. */
    static final String SERVERS = """
            import selectors, socket, sys
            sel = selectors.DefaultSelector()
            for a in sys.argv[1:]:
                family = socket.AF_INET6 if ":" in a else socket.AF_INET
                t = socket.socket(family)
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                t.bind((a, 8080))
                t.listen(16)
                sel.register(t, selectors.EVENT_READ, ("tcp", a))
                u = socket.socket(family, socket.SOCK_DGRAM)
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
    private record LoopbackRun(int tcpAccepted, int udpReceived, String probe, String craftedSyn, String craftedEcho, int ping,
                               String exitLine) {}

    @Test
    @Timeout(180)
    void disableHostLoopbackClosesEveryPathToHostLoopback() throws Exception {
        checkLoopbackClosed(false, Namespace.GATEWAY, "127.0.0.1");
    }

    @Test
    @Timeout(180)
    void disableHostLoopbackClosesEveryPathToHostLoopbackOverIpv6() throws Exception {
        checkLoopbackClosed(true, Namespace.GATEWAY6, "::1");
    }

    /** The same for both versions: without the flag the gateway leads to loopback; with it, nothing does. */
    private void checkLoopbackClosed(boolean ipv6, String gateway, String loopback) throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python(), "ping");

        LoopbackRun open = loopbackRun(false, ipv6, loopback);
        // the control: without the flag every path leads to the host's loopback servers
        assertThat(open.probe()).contains("tcp " + gateway + " connected " + loopback).contains("udp " + gateway + " answered " + loopback);
        assertThat(open.craftedSyn()).as("a frame to %s reaches host loopback without the flag", loopback).isEqualTo("syn-ack");
        assertThat(open.tcpAccepted()).isEqualTo(2);
        assertThat(open.udpReceived()).isGreaterThanOrEqualTo(1);

        LoopbackRun closed = loopbackRun(true, ipv6, loopback);
        // libslirp's answer, which slirp4netns's test-slirp4netns-disable-host-loopback.sh greps for ("Network is unreachable")
        assertThat(closed.probe()).contains("tcp " + gateway + " ENETUNREACH").contains("udp " + gateway + " ENETUNREACH");
        assertThat(closed.udpReceived()).as("no datagram may reach host loopback").isZero();
        assertThat(closed.ping()).as("the gateway answers ping itself, as libslirp's does").isZero();
        if (!JSLIRP) return; // libslirp connects a crafted frame's loopback destination
        assertThat(closed.craftedSyn()).as("ICMP(v6) destination unreachable, net unreachable (no route)").isEqualTo("icmp unreachable code 0");
        assertThat(closed.craftedEcho()).as("and so for ping").isEqualTo("icmp unreachable code 0");
        assertThat(closed.tcpAccepted()).as("no connection may reach host loopback").isZero();
        assertThat(closed.exitLine()).as("TCP, UDP, the crafted SYN and echo").contains("policy_refused=4");
    }

    /**
     * One run against servers on loopback of a host-side namespace made here (so that only this
     * stack can reach them and every connection they log is the guest's).
     */
    private LoopbackRun loopbackRun(boolean disable, boolean ipv6, String loopback) throws Exception {
        Path servers = tmp.resolve("servers.py");
        Files.writeString(servers, SERVERS);
        Path log = tmp.resolve("loopback-" + disable + "-" + ipv6 + ".log");
        try (Namespace hostSide = ipv6 ? Namespace.createWithIpv6() : Namespace.create();
             Namespace ns = ipv6 ? Namespace.createWithIpv6() : Namespace.create()) {
            Process p = startServers(hostSide, servers, log, loopback);
            Stack.Options options = Stack.Options.configured();
            if (disable) options.disableHostLoopback();
            if (ipv6) options.enableIpv6();
            Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))));
            Stack.Exit exit;
            Cmd.Result probe, syn, echo, ping;
            String gateway = ipv6 ? Namespace.GATEWAY6 : Namespace.GATEWAY;
            try {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                if (ipv6) Ipv6IT.awaitSlaac(ns, stack);
                probe = ns.exec(T, ItEnv.python(), "-c", PROBE, "8080", "8080", gateway);
                syn = ns.exec(T, ItEnv.python(), "-c", CRAFTED, "8080", loopback, "syn");
                echo = ns.exec(T, ItEnv.python(), "-c", CRAFTED, "0", loopback, "echo");
                ping = ns.exec(T, "ping", ipv6 ? "-6" : "-4", "-c", "1", "-W", "5", gateway);
                for (Cmd.Result r : List.of(probe, syn, echo)) assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                Namespace.sleep(300); // a connection or datagram still on its way would be logged
            } finally {
                exit = stack.stop();
                p.destroy();
            }
            List<String> seen = Files.readAllLines(log);
            int accepted = (int) seen.stream().filter(l -> l.startsWith("tcp ")).count();
            int received = (int) seen.stream().filter(l -> l.startsWith("udp ")).count();
            System.out.printf("[loopback%s %s] %s | crafted: %s, %s | ping %d | server: tcp %d udp %d%n", ipv6 ? "6" : "",
                    disable ? "disabled" : "open", probe.out().strip().replace('\n', ','), syn.out().strip(), echo.out().strip(),
                    ping.exit(), accepted, received);
            return new LoopbackRun(accepted, received, probe.out(), syn.out().strip(), echo.out().strip(), ping.exit(), exit.stderr());
        }
    }

    @Test
    @Timeout(120)
    void dnsStillReachesALoopbackResolverWithoutHostLoopback() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns would relay 10.0.2.3 to the machine's resolver");
        ItEnv.assumeTools("dnsmasq", "busybox");
        try (TestResolver dnsmasq = TestResolver.start(tmp)) {
            Path resolvConf = dnsmasq.resolvConf();
            try (Namespace ns = Namespace.createWithIpv6();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().disableHostLoopback().enableIpv6()
                         .extra("--resolv-conf", resolvConf.toString()))) {
                Ipv6IT.awaitSlaac(ns, stack);
                for (String dns : List.of(Namespace.DNS, Namespace.DNS6)) {
                    Cmd.Result r = ns.exec(T, "busybox", "nslookup", "-type=a", "jslirp.test", dns);
                    assertThat(r.exit()).as("%s\n%s\ndnsmasq: %s", r, stack.describe(), dnsmasq.logged()).isZero();
                    assertThat(r.out()).as(dns).containsPattern("Address:\\s+192\\.0\\.2\\.7");
                }
            }
        }
    }

    /**
     * One list of networks for both versions: --allow 192.0.2.0/24 --allow 198.51.100.0/24 --deny
     * 198.51.100.1, and the same over IPv6 with 2001:db8:1::/48, 2001:db8:2::/48 and 2001:db8:2::1.
     * The first of each is reached (TCP, UDP, ping),
     * the second (denied though allowed) and third (not allowed) are refused, and so is the
     * gateway, which counts as 127.0.0.1 or ::1. The stack's host side and the servers run in a
     * namespace made here, with the addresses on its loopback interface.
     */
    @Test
    @Timeout(120)
    void allowAndDenyChooseTheDestinationsOfBothVersions() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("--allow and --deny are jslirp's");
        ItEnv.assumeTools(ItEnv.python(), "ping");
        String allowed = "192.0.2.1", denied = "198.51.100.1", notAllowed = "203.0.113.1";
        String allowed6 = "2001:db8:1::1", denied6 = "2001:db8:2::1", notAllowed6 = "2001:db8:3::1";
        List<String> v4 = List.of(allowed, denied, notAllowed), v6 = List.of(allowed6, denied6, notAllowed6);
        Path servers = tmp.resolve("servers.py");
        Files.writeString(servers, SERVERS);
        Path serverLog = tmp.resolve("servers.log");
        try (Namespace hostSide = Namespace.createWithIpv6(); Namespace ns = Namespace.createWithIpv6()) {
            for (String a : v4) require(hostSide.exec(T, "ip", "addr", "add", a + "/32", "dev", "lo"));
            for (String a : v6) require(hostSide.exec(T, "ip", "addr", "add", a + "/128", "dev", "lo", "nodad"));
            require(hostSide.exec(T, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=0 2147483647")); // jslirp's ping sockets
            for (String a : v4) ns.allowEgress(a);
            for (String a : v6) ns.allowEgress6(a);
            List<String> listen = new ArrayList<>(List.of("127.0.0.1", "::1"));
            listen.addAll(v4);
            listen.addAll(v6);
            Process p = startServers(hostSide, servers, serverLog, listen.toArray(String[]::new));
            Stack.Options options = Stack.Options.configured().enableIpv6()
                    .extra("--allow", "192.0.2.0/24", "--allow", "198.51.100.0/24", "--deny", denied,
                            "--allow", "2001:db8:1::/48", "--allow", "2001:db8:2::/48", "--deny", denied6);
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                Ipv6IT.awaitSlaac(ns, stack);
                List<String> probe = new ArrayList<>(List.of(ItEnv.python(), "-c", PROBE, "8080", "8080"));
                probe.addAll(v4);
                probe.add(Namespace.GATEWAY);
                probe.addAll(v6);
                probe.add(Namespace.GATEWAY6);
                Cmd.Result r = ns.exec(T, probe.toArray(String[]::new));
                System.out.printf("[allow/deny] %s%n", r.out().strip().replace('\n', ','));
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                for (String a : List.of(allowed, allowed6)) {
                    assertThat(r.out()).as("%s\n%s", r, stack.describe()).contains("tcp " + a + " connected " + a).contains("udp " + a + " answered " + a);
                }
                // ICMP(v6) administratively prohibited, as the guest's kernel reports it: EHOSTUNREACH over IPv4, EACCES over IPv6
                for (String refused : List.of(denied, notAllowed, Namespace.GATEWAY)) {
                    assertThat(r.out()).contains("tcp " + refused + " EHOSTUNREACH").contains("udp " + refused + " EHOSTUNREACH");
                }
                for (String refused : List.of(denied6, notAllowed6, Namespace.GATEWAY6)) {
                    assertThat(r.out()).contains("tcp " + refused + " EACCES").contains("udp " + refused + " EACCES");
                }
                assertThat(r.took()).as("refusals come at once").isLessThan(Duration.ofSeconds(8));
                Cmd.Result pingAllowed = ns.exec(T, "ping", "-c", "1", "-W", "5", allowed);
                assertThat(pingAllowed.exit()).as("%s\n%s", pingAllowed, stack.describe()).isZero();
                Cmd.Result pingAllowed6 = ns.exec(T, "ping", "-6", "-c", "1", "-W", "5", allowed6);
                assertThat(pingAllowed6.exit()).as("%s\n%s", pingAllowed6, stack.describe()).isZero();
                Cmd.Result pingDenied = ns.exec(T, "ping", "-c", "1", "-W", "5", denied);
                assertThat(pingDenied.exit()).as("%s", pingDenied).isNotZero();
                assertThat(pingDenied.out()).as("ICMP 13, as iputils' ping names it").contains("Packet filtered");
                Cmd.Result pingDenied6 = ns.exec(T, "ping", "-6", "-c", "1", "-W", "5", denied6);
                assertThat(pingDenied6.exit()).as("%s", pingDenied6).isNotZero();
                assertThat(pingDenied6.out()).as("ICMPv6 code 1, as iputils' ping names it").contains("Administratively prohibited");
                List<String> seen = Files.readAllLines(serverLog);
                for (String a : List.of(allowed, allowed6)) {
                    assertThat(seen).as("%s reached", a).anyMatch(l -> l.startsWith("tcp " + a + " ")).anyMatch(l -> l.startsWith("udp " + a + " "));
                }
                for (String never : List.of(denied, notAllowed, "127.0.0.1", denied6, notAllowed6, "::1")) {
                    assertThat(seen).as("nothing reached " + never).noneMatch(l -> l.matches("(tcp|udp) " + never + " .*"));
                }
                assertThat(stack.stop().stderr()).as("3 TCP, 3 UDP and a ping refused per version").contains("policy_refused=14");
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
