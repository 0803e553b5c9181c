package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * IPv6 with {@code --enable-ipv6}: the namespace's kernel takes its address from the Router
 * Advertisement (SLAAC; {@code --configure} sets no IPv6 address, as with slirp4netns 1.2), learns
 * the DNS server from it and from stateless DHCPv6, pings fd00::2, and reaches servers on the
 * host's ::1 through fd00::2 over TCP and UDP, and DNS through fd00::3. The namespace's guard
 * lets IPv6 out only to fd00::2, fd00::3 and the link's own Neighbor/Router Discovery and DHCPv6.
 */
class Ipv6IT {
    static final long SIZE = 8 * Blob.MIB;
    static final InetAddress LOOPBACK6 = ip("::1");

    /** An Information-Request from the link-local address to ff02::1:2; prints what the Reply carries. */
    static final String DHCPV6_CLIENT = """
            import socket, struct, sys
            ifindex = socket.if_nametoindex('tap0')
            duid = bytes.fromhex('00030001020000000001')
            msg = bytes([11, 0x4a, 0x53, 0x01]) + struct.pack('!HH', 1, len(duid)) + duid + struct.pack('!HHH', 6, 2, 23)
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.bind(('::', 546))
            s.settimeout(1.0)
            for attempt in range(5):
                s.sendto(msg, ('ff02::1:2', 547, 0, ifindex))
                try:
                    data, addr = s.recvfrom(2048)
                except socket.timeout:
                    continue
                opts, i = {}, 4
                while i + 4 <= len(data):
                    code, n = struct.unpack('!HH', data[i:i + 4])
                    opts[code] = data[i + 4:i + 4 + n]
                    i += 4 + n
                dns = socket.inet_ntop(socket.AF_INET6, opts[23][:16]) if 23 in opts else None
                print('type', data[0], 'xid', data[1:4] == msg[1:4], 'client_id', opts.get(1) == duid,
                      'server_id', 2 in opts, 'dns', dns, 'from', addr[0].split('%')[0], addr[1])
                sys.exit(0)
            print('no reply')
            sys.exit(1)
            """;

    @TempDir
    Path tmp;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ip", "ping", "nft");
    }

    static InetAddress ip(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until tap0 has an fd00::/64 address past duplicate address detection, and a default route via fe80::2. */
    static String awaitSlaac(Namespace ns, Stack.Running stack) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            String addrs = ns.exec(Duration.ofSeconds(10), "ip", "-6", "-o", "addr", "show", "dev", "tap0").out();
            String route = ns.exec(Duration.ofSeconds(10), "ip", "-6", "route", "show", "default").out();
            if (addrs.contains("inet6 fd00::") && !addrs.contains("tentative") && route.contains("via fe80::2")) {
                return addrs;
            }
            Namespace.sleep(100);
        }
        throw new AssertionError("no SLAAC address on tap0:\n" + ns.describe() + "\n" + stack.describe());
    }

    @Test
    @Timeout(120)
    void slaacAddressRouterAdvertisementAndPing() {
        ItEnv.assumeTools("rdisc6");
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6())) {
            String addrs = awaitSlaac(ns, stack);
            assertThat(addrs).containsPattern("inet6 fd00::[0-9a-f:]+/64 scope global dynamic");

            Cmd.Result ra = ns.exec(Duration.ofSeconds(20), "rdisc6", "-1", "-w", "2000", "tap0");
            assertThat(ra.exit()).as("%s\n%s", ra, stack.describe()).isZero();
            assertThat(ra.out())
                    .containsPattern("Prefix\\s*:\\s*fd00::/64")
                    .containsPattern("Autonomous address conf\\.\\s*:\\s*Yes")
                    .containsPattern("from fe80::2");
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) { // slirp4netns 1.2 (libslirp 4.7) sends neither MTU nor RDNSS
                assertThat(ra.out())
                        .containsPattern("Stateful other conf\\.\\s*:\\s*Yes")
                        .containsPattern("MTU\\s*:\\s*1500 bytes")
                        .containsPattern("Recursive DNS server\\s*:\\s*fd00::3");
            }

            Cmd.Result ping = ns.exec(Duration.ofSeconds(20), "ping", "-6", "-c", "3", "-i", "0.2", "-W", "2", Namespace.GATEWAY6);
            assertThat(ping.exit()).as("%s\n%s", ping, stack.describe()).isZero();
            assertThat(ping.out()).contains("3 received");
        }
    }

    @Test
    @Timeout(120)
    void statelessDhcpv6GivesTheDnsServer() {
        ItEnv.assumeJslirp("slirp4netns's DHCPv6 is tested elsewhere");
        ItEnv.assumeTools(ItEnv.python());
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6())) {
            awaitSlaac(ns, stack);
            Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", DHCPV6_CLIENT);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out().strip()).isEqualTo("type 7 xid True client_id True server_id True dns fd00::3 from fe80::2 547");
        }
    }

    @ParameterizedTest(name = "mtu {0}")
    @ValueSource(ints = {1500, 65520})
    @Timeout(180)
    void tcpDownloadAndUploadThroughTheGatewayToHostLoopback(int mtu) throws Exception {
        ItEnv.assumeTools("curl", "sha256sum", "bash");
        long seedDown = 0x6666_0000L + mtu, seedUp = 0x6666_1000L + mtu;
        Path upload = tmp.resolve("upload.bin");
        Blob.writeFile(upload, seedUp, SIZE);
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().mtu(mtu).enableIpv6());
             HttpBlobServer http = new HttpBlobServer(LOOPBACK6)) {
            awaitSlaac(ns, stack);
            String base = "http://[" + Namespace.GATEWAY6 + "]:" + http.port();
            Cmd.Result down = ns.bash(Duration.ofSeconds(120),
                    "curl -6 -sS --fail --max-time 100 '" + base + "/blob?seed=" + seedDown + "&size=" + SIZE + "' | sha256sum");
            assertThat(down.exit()).as("download\n%s\n%s", down, stack.describe()).isZero();
            assertThat(down.out().split("\\s+")[0]).as("sha256 of the download").isEqualTo(Blob.sha256(seedDown, SIZE));

            Cmd.Result up = ns.exec(Duration.ofSeconds(120), "curl", "-6", "-sS", "--fail", "--max-time", "100",
                    "-H", "Expect:", "-T", upload.toString(), base + "/upload");
            String expectUp = Blob.sha256(seedUp, SIZE);
            assertThat(up.exit()).as("upload\n%s\n%s", up, stack.describe()).isZero();
            assertThat(up.out().strip()).as("what the server got").isEqualTo(expectUp + " " + SIZE);

            Map<String, Long> counters = stack.stop().counters();
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) assertThat(counters.get("malformed")).isZero();
        }
    }

    @Test
    @Timeout(120)
    void udpEchoThroughTheGatewayToHostLoopback() throws Exception {
        ItEnv.assumeTools(ItEnv.python());
        try (UdpEchoServer echo = new UdpEchoServer(LOOPBACK6);
             Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6())) {
            awaitSlaac(ns, stack);
            int port = echo.port();
            for (int size : new int[] {1, 512, 1452}) { // 1452: a full MTU-1500 datagram (40 + 8 bytes of headers)
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", UdpEchoIT.CLIENT,
                        Integer.toString(port), Integer.toString(size), "fd00::2");
                assertThat(r.exit()).as("size %d\n%s\n%s", size, r, stack.describe()).isZero();
                assertThat(r.out()).as("size %d", size).startsWith("reply " + size + " True fd00::2 " + port + " ");
            }
            assertThat(echo.received.get()).isGreaterThanOrEqualTo(3);
            echo.close();

            // Now the port is closed: the host's error comes back as ICMPv6 port unreachable.
            Cmd.Result refused = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", GuestProbes.UDP_CLOSED_PORT_CLIENT, Integer.toString(port));
            assertThat(refused.exit()).as("%s\n%s", refused, stack.describe()).isZero();
            assertThat(refused.out()).startsWith("refused");
        }
    }

    @Test
    @Timeout(120)
    void dnsToFd00Colon3OverUdpAndTcpReachesTheResolverFromResolvConf() throws Exception {
        ItEnv.assumeJslirp("slirp4netns would relay fd00::3 to the machine's resolver");
        ItEnv.assumeTools("dnsmasq", "busybox", ItEnv.python());
        try (TestResolver dnsmasq = TestResolver.start(tmp)) {
            Path resolvConf = dnsmasq.resolvConf();
            try (Namespace ns = Namespace.createWithIpv6();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6()
                         .extra("--resolv-conf", resolvConf.toString()))) {
                awaitSlaac(ns, stack);
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), "busybox", "nslookup", "-type=a", "jslirp.test", Namespace.DNS6);
                assertThat(r.exit()).as("%s\n%s\ndnsmasq: %s", r, stack.describe(), dnsmasq.logged()).isZero();
                assertThat(r.out()).containsPattern("Server:\\s+fd00::3");
                assertThat(r.out()).containsPattern("Name:\\s+jslirp\\.test\\s+Address:\\s+192\\.0\\.2\\.7");
                assertThat(dnsmasq.logged()).as("the query went to the test's resolver").contains("query[A] jslirp.test");

                Cmd.Result tcp = ns.exec(Duration.ofSeconds(30), ItEnv.python(), "-c", DnsIT.CLIENT, Namespace.DNS6, "tcp", "jslirp.test");
                assertThat(tcp.out()).as("over TCP\n%s\n%s\ndnsmasq: %s", tcp, stack.describe(), dnsmasq.logged())
                        .contains(DnsIT.ANSWERED);
                assertThat(dnsmasq.logged().split("query\\[A\\] jslirp\\.test", -1)).as("the TCP query reached dnsmasq too")
                        .hasSizeGreaterThanOrEqualTo(3);
            }
        }
    }

    /** Without --enable-ipv6 the stack answers no IPv6 at all: no Router Advertisement, no neighbor, counted as unsupported. */
    @Test
    @Timeout(120)
    void withoutEnableIpv6NothingIsAnswered() {
        ItEnv.assumeJslirp("reads jslirp's counters");
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            assertThat(ns.exec(Duration.ofSeconds(10), "ip", "-6", "addr", "add", "fd00::100/64", "dev", "tap0", "nodad").exit()).isZero();
            Cmd.Result ping = ns.exec(Duration.ofSeconds(20), "ping", "-6", "-c", "2", "-W", "1", Namespace.GATEWAY6);
            assertThat(ping.exit()).as("%s", ping).isNotZero();
            String addrs = ns.exec(Duration.ofSeconds(10), "ip", "-6", "-o", "addr", "show", "dev", "tap0").out();
            assertThat(addrs).as("only the address the test set: no SLAAC").doesNotContainPattern("inet6 fd00::(?!100/)");
            Map<String, Long> counters = stack.stop().counters();
            assertThat(counters.get("unsupported")).as("IPv6 frames dropped as unsupported").isPositive();
            assertThat(counters.get("frames_out")).isZero();
        }
    }

    /**
     * Addresses beyond the gateway go through host IPv6 sockets, and failures come back as
     * ICMPv6 destination unreachable, for TCP connects and for UDP to a closed port (port
     * unreachable). The stack's host side runs in a second namespace made here:
     * 2001:db8::1 is on its loopback with a server, 2001:db8:1::/48 has an "unreachable" route,
     * 2001:db8:2::/48 a "prohibit" route, and there is no default route, so nothing leaves it.
     */
    @Test
    @Timeout(120)
    void otherAddressesThroughHostIpv6SocketsAndTheirErrorsByIcmpv6() throws Exception {
        ItEnv.assumeJslirp("runs the stack's host side in a namespace of its own");
        ItEnv.assumeTools(ItEnv.python());
        String remote = "2001:db8::1", unreachable = "2001:db8:1::1", prohibited = "2001:db8:2::1", noRoute = "2001:db8:3::1";
        String server = """
                import socket
                s = socket.socket(socket.AF_INET6)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(('2001:db8::1', 8080))
                s.listen()
                print('ready', flush=True)
                c, peer = s.accept()
                c.sendall(b'pong ' + c.recv(100))
                c.close()
                """;
        String client = """
                import errno, socket, sys
                s = socket.create_connection(('2001:db8::1', 8080), timeout=10)
                s.sendall(b'ping')
                print(s.recv(100).decode())
                for a in sys.argv[1:]:
                    s = socket.socket(socket.AF_INET6)
                    s.settimeout(10)
                    try:
                        s.connect((a, 80))
                        print(a, 'connected')
                    except socket.timeout:
                        print(a, 'timeout')
                    except OSError as e:
                        print(a, errno.errorcode.get(e.errno, e.errno))
                """;
        Duration t = Duration.ofSeconds(30);
        try (Namespace hostSide = Namespace.createWithIpv6(); Namespace ns = Namespace.createWithIpv6()) {
            assertThat(hostSide.exec(t, "ip", "-6", "addr", "add", remote + "/128", "dev", "lo").exit()).isZero();
            assertThat(hostSide.exec(t, "ip", "-6", "route", "add", "unreachable", "2001:db8:1::/48").exit()).isZero();
            assertThat(hostSide.exec(t, "ip", "-6", "route", "add", "prohibit", "2001:db8:2::/48").exit()).isZero();
            for (String a : List.of(remote, unreachable, prohibited, noRoute)) ns.allowEgress6(a);
            Process serverProcess = new ProcessBuilder(hostSide.inside(List.of(ItEnv.python(), "-c", server)))
                    .redirectErrorStream(true).start();
            try (java.io.BufferedReader out = serverProcess.inputReader()) {
                assertThat(out.readLine()).isEqualTo("ready");
                Stack.Options options = Stack.Options.configured().enableIpv6();
                try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                    stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                    awaitSlaac(ns, stack);
                    Cmd.Result r = ns.exec(t, ItEnv.python(), "-c", client, unreachable, prohibited, noRoute);
                    assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                    assertThat(r.out()).as("%s\n%s", r, stack.describe())
                            .contains("pong ping")
                            .contains(unreachable + " EHOSTUNREACH")  // ICMPv6 address unreachable
                            .contains(prohibited + " EACCES")         // ICMPv6 administratively prohibited
                            .contains(noRoute + " ENETUNREACH");      // ICMPv6 no route to destination
                    assertThat(r.took()).as("the errors must come at once").isLessThan(Duration.ofSeconds(8));
                    // UDP to a closed port beyond the router: the host's ICMPv6 error comes back as port unreachable
                    Cmd.Result refused = ns.exec(t, ItEnv.python(), "-c", GuestProbes.UDP_CLOSED_PORT_CLIENT, "9999", remote);
                    assertThat(refused.exit()).as("%s\n%s", refused, stack.describe()).isZero();
                    assertThat(refused.out()).startsWith("refused");
                }
            } finally {
                serverProcess.destroy();
                serverProcess.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
