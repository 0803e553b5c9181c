package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.pasta.ControlProtocol;
import io.jslirp.pasta.ForwardRule;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/pasta} started with the argument lists of Podman 5.3–6.0 (default, {@code -p}, the
 * rootless bridge's {@code --pid}) and RootlessKit 3, exactly as the callers' source passes
 * them, on a namespace of {@code ip netns add} (root) and on one an ordinary user made in a user
 * namespace of its own, bind-mounted to a file as rootless Podman does; checked as Podman's pasta
 * tests check: the host's addresses (192.0.2.2/24, fd00::2/64) and routes (via 192.0.2.1, fd00::1)
 * copied, MTU 65520, lo up, -a/-n/-g/-m/-4/-6; DNS through 169.254.1.1 to a resolver of the test's
 * on loopback ({@code --dns-host}, as containers.conf's pasta_options give it); the host through
 * 169.254.1.2; published TCP and UDP ports over IPv4 and IPv6 (one, a range, translated,
 * address-bound) reached at the host's addresses and at loopback; 10 MiB each way byte-exact; the
 * caller's pipes at end of file when the command returns; the process gone within 5 s of the
 * namespace file's unmount and removal, and on SIGTERM with status 0; the PID file; a bad option.
 *
 * <p>Network safety: in pasta's model the namespace holds the host's real addresses and gateway.
 * Each namespace gets an nft guard that drops everything it would send but to the mapped addresses
 * (169.254.1.1, .2), on loopback, neighbour discovery and replies to the forwarded connections;
 * the tests send only to those and to forwarded ports, never to 192.0.2.1, fd00::1 or the machine's
 * resolver.
 */
class PastaIT {
    private static final Duration T = Duration.ofSeconds(60);
    private static final String DNS = "169.254.1.1", HOST = "169.254.1.2";
    private static final int MIB10 = 10 * 1024 * 1024;

    /** The guard: see the class comment. */
    static final String GUARD = """
            table inet jslirp_pasta_guard {
              chain out {
                type filter hook output priority 0; policy drop;
                oif "lo" accept
                ct state established,related accept
                ip daddr { 169.254.1.1, 169.254.1.2 } accept
                icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, mld-listener-report, mld2-listener-report } accept
              }
            }
            """;

    /**
     * The namespace's server: on each TCP port (IPv4 and IPv6) a line "get" gets the file argv[1],
     * "put N" N bytes read and their sha256 in hex, "port" the port it came to, "peer" the client's
     * address as the namespace sees it; each UDP port
     * answers a datagram with "PORT " and the datagram.
     */
    static final String SERVER = """
            import hashlib, socket, sys, threading
            blob = sys.argv[1]
            tcp = [int(p) for p in sys.argv[2].split(",") if p]
            udp = [int(p) for p in sys.argv[3].split(",") if p]
            def serve(c, port):
                with c:
                    f = c.makefile("rb")
                    line = f.readline().decode().split()
                    if line[0] == "get":
                        with open(blob, "rb") as b:
                            c.sendall(b.read())
                    elif line[0] == "put":
                        n, h = int(line[1]), hashlib.sha256()
                        while n > 0:
                            d = f.read(min(n, 65536))
                            if not d: break
                            h.update(d); n -= len(d)
                        c.sendall((h.hexdigest() + "\\n").encode())
                    elif line[0] == "port":
                        c.sendall(("%d\\n" % port).encode())
                    elif line[0] == "peer":
                        c.sendall((c.getpeername()[0] + "\\n").encode())
            def accept(s, port):
                while True:
                    c, _ = s.accept()
                    threading.Thread(target=serve, args=(c, port), daemon=True).start()
            def echo(s, port):
                while True:
                    d, a = s.recvfrom(65536)
                    s.sendto(("%d " % port).encode() + d, a)
            for port in tcp:
                s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("::", port)); s.listen(16)
                threading.Thread(target=accept, args=(s, port), daemon=True).start()
            for port in udp:
                s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.bind(("::", port))
                threading.Thread(target=echo, args=(s, port), daemon=True).start()
            print("listening", flush=True)
            threading.Event().wait()
            """;

    private static TestUser user;

    @TempDir
    Path tmp;

    private final PastaNamespaces namespaces = new PastaNamespaces("jslirp-pasta-");
    private final List<Long> pastas = new ArrayList<>();

    @BeforeAll
    static void tools() {
        PastaNamespaces.assumeUsable("ip", "nft", "dnsmasq", "busybox", "curl", "sha256sum", "nsenter", "unshare");
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (long pid : pastas) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        namespaces.close();
        if (user != null) user.killProcesses();
    }

    // ---- Podman, root ----

    /**
     * -c, pasta's control socket, as passt's pesto uses it: the tables listed (the -t rule of the
     * command line in HOST); TCP rules (both versions, one translated and bound to 127.0.0.1) and a
     * UDP rule added at run time reach the namespace through the same forwards as the start-up rule
     * (the host's own address seen as --map-guest-addr's); bytes that are no update, and an update with a conflicting rule, change nothing and
     * stop nothing; pesto's own recorded "-C HOST" clears the table, the start-up rule's port with it.
     */
    @Test
    @Timeout(180)
    void controlSocketChangesTheForwardsAtRunTime() throws Exception {
        String ns = netns();
        int base = ThreadLocalRandom.current().nextInt(10, 32) * 1000 + ThreadLocalRandom.current().nextInt(0, 9) * 100 + 50;
        int keep = base, added = base + 1, xlate = base + 2, udp = base + 3;
        Path blob = tmp.resolve("blob.bin");
        Blob.writeFile(blob, 23, 1024);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        startServer(List.of("ip", "netns", "exec", ns), blob, List.of(keep, added, 84), List.of(udp));
        Path control = tmp.resolve("control.sock");
        Started pasta = startPasta(List.of("--config-net", "-t", keep + "-" + keep + ":" + keep + "-" + keep, "-u", "none", "-T", "none",
                "-U", "none", "--quiet", "-c", control.toString(), "--netns", "/run/netns/" + ns, "--map-guest-addr", HOST));
        assertThat(pasta.exit).as("%s", pasta).isZero();
        long pid = serverOf("/run/netns/" + ns);

        List<ControlProtocol.Table> tables = PestoClient.list(control);
        assertThat(tables).extracting(ControlProtocol.Table::name).containsExactly("HOST", "SPLICE");
        assertThat(tables.getFirst().rules()).extracting(ForwardRule::toString).containsExactly("TCP [*]:" + keep + "  =>  " + keep + " ");
        assertThat(tables.getFirst().caps() & (ControlProtocol.CAP_TCP | ControlProtocol.CAP_UDP | ControlProtocol.CAP_IPV4 | ControlProtocol.CAP_IPV6))
                .isEqualTo(ControlProtocol.CAP_TCP | ControlProtocol.CAP_UDP | ControlProtocol.CAP_IPV4 | ControlProtocol.CAP_IPV6);
        assertThat(tables.get(1).rules()).isEmpty();

        List<ForwardRule> next = new ArrayList<>(tables.getFirst().rules());
        next.add(ForwardRule.of(ForwardRule.TCP, null, "", added, added, added, 0));
        next.add(ForwardRule.of(ForwardRule.TCP, InetAddress.getByName("127.0.0.1"), "", xlate, xlate, 84, 0));
        next.add(ForwardRule.of(ForwardRule.UDP, null, "", udp, udp, udp, 0));
        PestoClient.replaceHost(control, next);
        awaitTrue(() -> !refused("127.0.0.1", xlate), "the rules added are served");
        assertThat(PestoClient.list(control).getFirst().rules()).isEqualTo(next);
        for (String host : List.of("127.0.0.1", "192.0.2.2", "::1", "fd00::2")) {
            assertThat(tcpPort(host, added)).as("TCP %s:%d", host, added).isEqualTo(added);
            assertThat(tcpPort(host, keep)).as("the start-up rule, kept: %s", host).isEqualTo(keep);
            assertThat(udpPort(host, udp)).as("UDP %s:%d", host, udp).isEqualTo(udp);
        }
        assertThat(peer("192.0.2.2", added)).as("the host itself, seen from --map-guest-addr as with the start-up rule")
                .isEqualTo(peer("192.0.2.2", keep)).isEqualTo("::ffff:" + HOST);
        assertThat(tcpPort("127.0.0.1", xlate)).as("translated").isEqualTo(84);
        assertThat(refused("192.0.2.2", xlate)).as("bound to 127.0.0.1 only").isTrue();

        PestoClient.raw(control, new byte[] {9, 0, 0, 0, 0, 0});
        List<ForwardRule> conflicting = new ArrayList<>(next);
        conflicting.add(ForwardRule.of(ForwardRule.TCP, InetAddress.getByName("127.0.0.1"), "", added, added, 84, 0));
        PestoClient.replaceHost(control, conflicting);
        assertThat(PestoClient.list(control).getFirst().rules()).as("after bytes that are no update, and a conflict").isEqualTo(next);
        assertThat(tcpPort("127.0.0.1", added)).isEqualTo(added);

        String pesto = System.getenv("JSLIRP_PESTO"); // passt's own client, where one was built (passt 2026_07_16 or later)
        if (pesto != null) {
            Cmd.Result listing = Cmd.run(T, pesto, control.toString());
            assertThat(listing.exit()).as("%s", listing).isZero();
            assertThat(listing.out()).contains("    TCP [*]:" + added + "  =>  " + added + " \n", "    TCP [127.0.0.1]:" + xlate + "  =>  84 \n",
                    "    UDP [*]:" + udp + "  =>  " + udp + " \n");
            int more = base + 4;
            assertThat(Cmd.run(T, pesto, "-A", "-t", "::1/" + more + ":" + added, control.toString()).exit()).isZero();
            awaitTrue(() -> !refused("::1", more), "pesto -A");
            assertThat(tcpPort("::1", more)).isEqualTo(added);
            assertThat(Cmd.run(T, pesto, "-D", "-t", "::1/" + more + ":" + added, control.toString()).exit()).isZero();
            awaitTrue(() -> refused("::1", more), "pesto -D");
            assertThat(PestoClient.list(control).getFirst().rules()).isEqualTo(next);
        }

        byte[] clear;
        try (InputStream in = PastaIT.class.getResourceAsStream("/pesto/clear.hex")) {
            String c = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines().filter(l -> l.startsWith("c ")).findFirst().orElseThrow();
            clear = HexFormat.of().parseHex(c.substring(2));
        }
        PestoClient.raw(control, clear);
        awaitTrue(() -> refused("127.0.0.1", keep) && refused("127.0.0.1", added), "pesto -C HOST closes every rule's port");
        assertThat(PestoClient.list(control).getFirst().rules()).isEmpty();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
    }

    private static String peer(String host, int port) throws IOException {
        try (Socket s = connect(host, port)) {
            s.getOutputStream().write("peer\n".getBytes(StandardCharsets.US_ASCII));
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine().trim();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("within 10 s: " + what);
            Thread.sleep(50);
        }
    }

    /**
     * Podman's default list (with --dns-host from pasta_options): returns at once with its pipes
     * closed; the namespace has the host's addresses, routes, MTU 65520 and lo up; DNS through
     * 169.254.1.1 (UDP and TCP) reaches the test's resolver; 10 MiB each way to the host through
     * 169.254.1.2; and the server exits 0 within 5 s of the netns file's unmount and removal.
     */
    @Test
    @Timeout(240)
    void podmanDefaultCopiesTheHostsNetworkAndEndsWithTheNamespaceFile() throws Exception {
        String ns = netns();
        String resolver = DnsIT.loopbackAddresses(1).getFirst();
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = DnsIT.startDnsmasq(List.of(), resolver, log);
        namespaces.started(dnsmasq);
        DnsIT.awaitResolver(resolver, dnsmasq, log);
        Path nsFile = Path.of("/run/netns", ns);

        Started pasta = startPasta(List.of("--config-net", "--dns-host", resolver, "--dns-forward", DNS, "-t", "none", "-u", "none",
                "-T", "none", "-U", "none", "--no-map-gw", "--quiet", "--netns", nsFile.toString(), "--map-guest-addr", HOST));
        assertThat(pasta.exit).as("%s", pasta).isZero();
        assertThat(pasta.out + pasta.err).as("nothing on stdout or stderr with --quiet").isEmpty();
        long server = serverOf("/run/netns/" + ns);

        String addr = inNs(ns, "ip", "-j", "addr", "show");
        assertThat(addr).contains("\"ifname\":\"eth0\"").contains("\"mtu\":65520")
                .contains("\"local\":\"192.0.2.2\",\"prefixlen\":24").contains("\"local\":\"fd00::2\",\"prefixlen\":64");
        assertThat(inNs(ns, "ip", "-j", "link", "show", "lo")).contains("\"operstate\":\"UNKNOWN\"").contains("UP");
        assertThat(inNs(ns, "ip", "-j", "-4", "route", "show", "default")).contains("\"gateway\":\"192.0.2.1\"").contains("\"dev\":\"eth0\"");
        assertThat(inNs(ns, "ip", "-j", "-6", "route", "show", "default")).contains("\"gateway\":\"fd00::1\"");

        // DNS through 169.254.1.1, UDP and TCP, to the test's resolver
        for (String proto : List.of("udp", "tcp")) {
            Cmd.Result q = Cmd.run(T, "ip", "netns", "exec", ns, ItEnv.python(), "-c", DnsIT.CLIENT, DNS, proto, "jslirp.test");
            assertThat(q.out().trim()).as("%s over %s\n%s", q, proto, Files.readString(log)).isEqualTo(DnsIT.ANSWERED);
        }

        // the host through 169.254.1.2: a server on the host's own address, 10 MiB each way
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName("192.0.2.2"))) {
            String url = "http://" + HOST + ":" + http.port();
            Cmd.Result down = Cmd.run(T, "ip", "netns", "exec", ns, "sh", "-c",
                    "curl -sS --max-time 60 '" + url + "/blob?seed=18&size=" + MIB10 + "' | sha256sum");
            assertThat(down.out()).as("%s", down).startsWith(Blob.sha256(18, MIB10) + " ");
            Path up = tmp.resolve("up.bin");
            Blob.writeFile(up, 19, MIB10);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Cmd.Result put = Cmd.run(T, "ip", "netns", "exec", ns, "curl", "-sS", "--max-time", "60", "--data-binary", "@" + up, url + "/upload");
            assertThat(put.exit()).as("%s", put).isZero();
            assertThat(http.lastUpload().sha256()).isEqualTo(Blob.sha256(19, MIB10));
            assertThat(http.lastUpload().bytes()).isEqualTo(MIB10);
        }

        // Podman's stop: unmount and delete the file; no signal
        long removed = System.nanoTime();
        assertThat(Cmd.run(T, "umount", nsFile.toString()).exit()).isZero();
        Files.delete(nsFile);
        namespaces.removed(ns);
        assertThat(awaitGone(server, Duration.ofSeconds(5))).as("the server exits within 5 s of the namespace file's removal").isTrue();
        long ms = (System.nanoTime() - removed) / 1_000_000;
        System.out.println("PastaIT: server exited " + ms + " ms after the namespace file's removal");
    }

    /**
     * Podman's -p list with several publications (one port, a 3-port range, translated, a translated
     * range, bound to 127.0.0.1 and to ::1): TCP and UDP answered from the right namespace port at
     * the host's addresses and at loopback, IPv4 and IPv6; 10 MiB each way through a forwarded port.
     */
    @Test
    @Timeout(240)
    void podmanPublishedPortsReachTheNamespace() throws Exception {
        String ns = netns();
        int base = ThreadLocalRandom.current().nextInt(10, 32) * 1000 + ThreadLocalRandom.current().nextInt(0, 9) * 100; // below the ephemeral ports
        int one = base + 1, range = base + 10, xlate = base + 20, xrange = base + 30, bound = base + 40, bound6 = base + 41, lo = base + 42,
                eth = base + 43;
        Path blob = tmp.resolve("blob.bin");
        Blob.writeFile(blob, 21, MIB10);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Process server = startServer(List.of("ip", "netns", "exec", ns), blob,
                List.of(80, one, range, range + 1, range + 2, 81, 90, 91, 82, 83), List.of(80, one, range, range + 1, range + 2, 81));

        Started pasta = startPasta(List.of("--config-net",
                "-t", one + "-" + one + ":" + one + "-" + one,
                "-t", range + "-" + (range + 2) + ":" + range + "-" + (range + 2),
                "-t", xlate + "-" + xlate + ":81-81",
                "-t", xrange + "-" + (xrange + 1) + ":90-91",
                "-t", "127.0.0.1/" + bound + "-" + bound + ":82-82",
                "-t", "::1/" + bound6 + "-" + bound6 + ":83-83",
                "-t", "127.0.0.1%lo/" + lo + "-" + lo + ":82-82",
                "-t", "%eth0/" + eth + "-" + eth + ":83-83",
                "-u", one + "-" + one + ":" + one + "-" + one,
                "-u", range + "-" + (range + 2) + ":" + range + "-" + (range + 2),
                "-u", xlate + "-" + xlate + ":81-81",
                "--dns-forward", DNS, "-T", "none", "-U", "none", "--no-map-gw", "--quiet",
                "--netns", "/run/netns/" + ns, "--map-guest-addr", HOST));
        assertThat(pasta.exit).as("%s", pasta).isZero();
        serverOf("/run/netns/" + ns);
        assertThat(server.isAlive()).isTrue();

        for (String host : List.of("127.0.0.1", "192.0.2.2", "::1", "fd00::2")) {
            assertThat(tcpPort(host, one)).as("TCP %s:%d", host, one).isEqualTo(one);
            for (int i = 0; i < 3; i++) assertThat(tcpPort(host, range + i)).as("TCP range %s", host).isEqualTo(range + i);
            assertThat(tcpPort(host, xlate)).as("TCP translated %s", host).isEqualTo(81);
            assertThat(tcpPort(host, xrange)).isEqualTo(90);
            assertThat(tcpPort(host, xrange + 1)).isEqualTo(91);
            assertThat(udpPort(host, one)).as("UDP %s:%d", host, one).isEqualTo(one);
            for (int i = 0; i < 3; i++) assertThat(udpPort(host, range + i)).as("UDP range %s", host).isEqualTo(range + i);
            assertThat(udpPort(host, xlate)).as("UDP translated %s", host).isEqualTo(81);
        }
        assertThat(tcpPort("127.0.0.1", bound)).isEqualTo(82);
        assertThat(tcpPort("::1", bound6)).isEqualTo(83);
        assertThat(refused("192.0.2.2", bound)).as("bound to 127.0.0.1 only").isTrue();
        assertThat(refused("127.0.0.1", bound6)).as("bound to ::1 only").isTrue();
        assertThat(tcpPort("127.0.0.1", lo)).as("ADDR%%IF").isEqualTo(82);
        assertThat(tcpPort("192.0.2.2", eth)).as("%%eth0: at eth0's address").isEqualTo(83);
        assertThat(refused("127.0.0.1", eth)).as("%%eth0: not on lo").isTrue();

        for (String host : List.of("127.0.0.1", "192.0.2.2", "::1")) {
            assertThat(download(host, one)).as("10 MiB from the namespace via %s", host).isEqualTo(Blob.sha256(21, MIB10));
            assertThat(upload(host, one, 22)).as("10 MiB to the namespace via %s", host).isEqualTo(Blob.sha256(22, MIB10));
        }
    }

    /**
     * --dns-forward at another address (Podman's test uses 198.51.100.1): UDP and TCP port 53 there
     * reach the test's resolver, 2 KiB and back through the mapped host address keep their bytes.
     */
    @Test
    @Timeout(120)
    void dnsForwardAtAnotherAddress() throws Exception {
        String ns = netns("198.51.100.1");
        String resolver = DnsIT.loopbackAddresses(1).getFirst();
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = DnsIT.startDnsmasq(List.of(), resolver, log);
        namespaces.started(dnsmasq);
        DnsIT.awaitResolver(resolver, dnsmasq, log);
        Started pasta = startPasta(List.of("--config-net", "--dns-host", resolver, "--dns-forward", "198.51.100.1", "-t", "none", "-u",
                "none", "-T", "none", "-U", "none", "--no-map-gw", "--quiet", "--netns", "/run/netns/" + ns, "--map-guest-addr", HOST));
        assertThat(pasta.exit).as("%s", pasta).isZero();
        serverOf("/run/netns/" + ns);
        for (String proto : List.of("udp", "tcp")) {
            Cmd.Result q = Cmd.run(T, "ip", "netns", "exec", ns, ItEnv.python(), "-c", DnsIT.CLIENT, "198.51.100.1", proto, "jslirp.test");
            assertThat(q.out().trim()).as("%s over %s", q, proto).isEqualTo(DnsIT.ANSWERED);
        }
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName("192.0.2.2"))) {
            Cmd.Result small = Cmd.run(T, "ip", "netns", "exec", ns, "sh", "-c",
                    "curl -sS --max-time 30 'http://" + HOST + ":" + http.port() + "/blob?seed=26&size=2048' | sha256sum");
            assertThat(small.out()).as("%s", small).startsWith(Blob.sha256(26, 2048) + " ");
        }
    }

    /**
     * --dns-forward of each version, with --dns-host of each: a query to the IPv4 forward address
     * reaches the IPv4 nameserver and one to the IPv6 forward address the IPv6 one, over UDP and
     * TCP. pasta's host side runs in a namespace of the test's making (a veth link with the
     * host's addresses, its peer beside it, a resolver on its 127.0.0.1 and ::1), so port 53 of ::1 is surely the
     * test's and nothing the guest sends reaches the machine's network.
     */
    @Test
    @Timeout(120)
    void dnsForwardOfEachIpVersionAsksThatVersionsNameserver() throws Exception {
        String dns6 = "fd00::53";
        try (Namespace host = Namespace.createWithIpv6()) {
            Cmd.Result link = host.bash(T, "ip link add eth0 type veth peer name peer0 && ip link set peer0 up && ip link set eth0 up"
                    + " && ip addr add 192.0.2.2/24 dev eth0 && ip -6 addr add fd00::2/64 dev eth0 nodad"
                    + " && ip route add default via 192.0.2.1 && ip -6 route add default via fd00::1 dev eth0");
            assertThat(link.exit()).as("a link with the host's addresses in a test namespace: %s", link).isZero();
            Path log = tmp.resolve("dnsmasq.log");
            Process dnsmasq = DnsIT.startDnsmasq(host.inside(List.of()), "127.0.0.1,::1", log);
            namespaces.started(dnsmasq);
            DnsIT.awaitListening(host, dnsmasq, log);
            String ns = netns(dns6);
            Started pasta = start(host.inside(pastaCommand(List.of("--config-net", "--dns-host", "127.0.0.1", "--dns-host", "::1",
                    "--dns-forward", DNS, "--dns-forward", dns6, "-t", "none", "-u", "none", "-T", "none", "-U", "none", "--no-map-gw",
                    "--quiet", "--netns", "/run/netns/" + ns))), Map.of());
            assertThat(pasta.exit).as("%s", pasta).isZero();
            serverOf("/run/netns/" + ns);
            for (String proto : List.of("udp", "tcp")) {
                for (String server : List.of(DNS, dns6)) {
                    Cmd.Result q = Cmd.run(T, "ip", "netns", "exec", ns, ItEnv.python(), "-c", DnsIT.CLIENT, server, proto, "jslirp.test");
                    assertThat(q.out().trim()).as("%s over %s: %s", server, proto, q).isEqualTo(DnsIT.ANSWERED);
                }
            }
            assertThat(Files.readString(log)).as("each version's forward address asks its own version's nameserver")
                    .containsSubsequence("query[A] jslirp.test from 127.0.0.1", "query[A] jslirp.test from ::1",
                            "query[A] jslirp.test from 127.0.0.1", "query[A] jslirp.test from ::1");
        }
    }

    /** -a/-n/-g/-m override the copied address, route and MTU; -4 leaves no global IPv6, -6 no IPv4. */
    @Test
    @Timeout(180)
    void addressGatewayMtuAndVersionOptions() throws Exception {
        String ns = netns();
        Started a = startPasta(List.of("--config-net", "-a", "10.0.2.100", "-n", "24", "-g", "10.0.2.2", "-a", "2001:db8::100",
                "-g", "2001:db8::1", "-m", "1280", "--quiet", "--netns", ns, "--pid", tmp.resolve("a.pid").toString()));
        assertThat(a.exit).as("%s", a).isZero();
        String addr = inNs(ns, "ip", "-j", "addr", "show", "dev", "eth0");
        assertThat(addr).contains("\"mtu\":1280").contains("\"local\":\"10.0.2.100\",\"prefixlen\":24")
                .contains("\"local\":\"2001:db8::100\",\"prefixlen\":64").doesNotContain("192.0.2.2").doesNotContain("fd00::2");
        assertThat(inNs(ns, "ip", "-j", "-4", "route", "show", "default")).contains("\"gateway\":\"10.0.2.2\"");
        assertThat(inNs(ns, "ip", "-j", "-6", "route", "show", "default")).contains("\"gateway\":\"2001:db8::1\"");
        stop(pidFile(tmp.resolve("a.pid")));

        String ns4 = netns();
        Started four = startPasta(List.of("--config-net", "-4", "--quiet", "--netns", ns4, "--pid", tmp.resolve("4.pid").toString()));
        assertThat(four.exit).as("%s", four).isZero();
        String addr4 = inNs(ns4, "ip", "-j", "addr", "show", "dev", "eth0");
        assertThat(addr4).contains("192.0.2.2").contains("\"mtu\":65520").doesNotContain("\"scope\":\"global\",\"dynamic\"")
                .doesNotContain("fd00::2");
        assertThat(inNs(ns4, "ip", "-6", "route", "show", "default")).doesNotContain("default");
        stop(pidFile(tmp.resolve("4.pid")));

        String ns6 = netns();
        Started six = startPasta(List.of("--config-net", "-6", "--quiet", "--netns", ns6, "--pid", tmp.resolve("6.pid").toString()));
        assertThat(six.exit).as("%s", six).isZero();
        String addr6 = inNs(ns6, "ip", "-j", "addr", "show", "dev", "eth0");
        assertThat(addr6).contains("fd00::2").doesNotContain("192.0.2.2").doesNotContain("\"family\":\"inet\"");
        assertThat(inNs(ns6, "ip", "-4", "route", "show")).doesNotContain("default");
        stop(pidFile(tmp.resolve("6.pid")));
    }

    /**
     * The rootless bridge's list (--pid before the tail): the PID file holds the serving process
     * ("%d\n", mode 0600), which exits 0 on SIGTERM (-f here, to see its status).
     */
    @Test
    @Timeout(120)
    void pidFileAndSigterm() throws Exception {
        String ns = netns();
        Path pid = tmp.resolve("rootless-netns-conn.pid");
        Started pasta = startPasta(List.of("--config-net", "--pid", pid.toString(), "--dns-forward", DNS, "-t", "none", "-u", "none",
                "-T", "none", "-U", "none", "--no-map-gw", "--quiet", "--netns", "/run/netns/" + ns, "--map-guest-addr", HOST));
        assertThat(pasta.exit).as("%s", pasta).isZero();
        assertThat(Files.readString(pid)).matches("[0-9]+\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pid))).isEqualTo("rw-------");
        long server = pidFile(pid);
        assertThat(server).isEqualTo(serverOf("/run/netns/" + ns));
        stop(server);

        // in the foreground (-f): the command is the server; SIGTERM ends it with status 0
        String ns2 = netns();
        Path pid2 = tmp.resolve("fg.pid");
        Process fg = new ProcessBuilder(pastaCommand(List.of("-f", "--config-net", "--quiet", "--pid", pid2.toString(), "-t", "none",
                "-u", "none", "-T", "none", "-U", "none", "--netns", ns2)))
                .redirectErrorStream(true).redirectOutput(tmp.resolve("fg.log").toFile()).start();
        namespaces.started(fg);
        awaitFile(pid2, fg);
        assertThat(Long.parseLong(Files.readString(pid2).trim())).as("-f: the PID file names the command itself").isEqualTo(fg.pid());
        Cmd.run(T, "kill", "-TERM", Long.toString(fg.pid()));
        assertThat(fg.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fg.exitValue()).as("%s", Files.readString(tmp.resolve("fg.log"))).isZero();

        // and with the namespace file gone, also 0
        String ns3 = netns();
        Path pid3 = tmp.resolve("fg3.pid");
        Process fg3 = new ProcessBuilder(pastaCommand(List.of("-f", "--config-net", "--quiet", "--pid", pid3.toString(), "-t", "none",
                "-u", "none", "--netns", ns3))).redirectErrorStream(true).redirectOutput(tmp.resolve("fg3.log").toFile()).start();
        namespaces.started(fg3);
        awaitFile(pid3, fg3);
        assertThat(Cmd.run(T, "ip", "netns", "del", ns3).exit()).isZero();
        namespaces.removed(ns3);
        assertThat(fg3.waitFor(5, TimeUnit.SECONDS)).as("exits within 5 s of the namespace file's removal").isTrue();
        assertThat(fg3.exitValue()).as("%s", Files.readString(tmp.resolve("fg3.log"))).isZero();
    }

    /** An option pasta does not know: pasta's getopt line and exit 1 (Podman retries without --map-guest-addr on it). */
    @Test
    @Timeout(60)
    void unknownOptionExitsOneWithPastasMessage() throws Exception {
        Started bad = startPasta(List.of("--config-net", "--no-such-option", "--netns", "x"));
        assertThat(bad.exit).isEqualTo(1);
        assertThat(bad.err).startsWith(pasta() + ": unrecognized option '--no-such-option'\n");
        Started missing = startPasta(List.of("--config-net", "--quiet", "--netns", "/nonexistent/netns-x"));
        assertThat(missing.exit).isEqualTo(1);
        assertThat(missing.err).as("one line").isEqualTo("Couldn't open network namespace /nonexistent/netns-x: No such file or directory\n");
        Started version = startPasta(List.of("--version"));
        assertThat(version.exit).isZero();
        assertThat(version.out).startsWith("pasta ");
        Started probe = startPasta(List.of("--host-lo-to-ns-lo", "--version"));
        assertThat(probe.exit).as("RootlessKit's probe of --host-lo-to-ns-lo").isZero();
    }

    /**
     * No --netns nor PID: the command runs in a new network namespace set up as pasta's model has
     * it, and pasta exits with the command's status, printing no counters as jslirp's own commands do,
     * leaving nothing the command started. (The command sends nothing.) It isolates itself once the
     * command runs (issue 46), which keeps the host's files: the probe says so from inside.
     */
    @Test
    @Timeout(120)
    void runsACommandInNewNamespacesAndExitsWithItsStatus() throws Exception {
        String marker = Integer.toString(ThreadLocalRandom.current().nextInt(100_000, 1_000_000_000));
        Started run = startPasta(List.of("--config-net", "-t", "none", "-u", "none", "--", "sh", "-c",
                "ip -j addr show; ip -j route show default; test -e /etc/hostname && test -e /proc/self; setsid sleep " + marker
                        + " & exit $(( $? + 3 ))"), Map.of("JSLIRP_SANDBOX_PROBE", "1"));
        assertThat(run.exit).as("%s", run).isEqualTo(3);
        assertThat(run.err).as("%s", run).contains("jslirp: isolation: isolated: an empty root; capabilities kept (no other user is mapped"
                + " in this user namespace); seccomp filter on every thread").contains("/home absent; /root absent; /var absent;");
        // as pasta runs its command, in a PID namespace of its own: a daemon it leaves goes with it
        RunLifecycleIT.assertNoneLeft(marker, "pasta's command's end");
        assertThat(run.err).as("pasta prints no counters at exit (without -d): %s", run).doesNotContain("counters");
        assertThat(run.out).contains("\"local\":\"192.0.2.2\",\"prefixlen\":24").contains("\"mtu\":65520")
                .contains("\"gateway\":\"192.0.2.1\"");
    }

    // ---- rootless: an ordinary user, as rootless Podman and RootlessKit run pasta ----

    /**
     * Rootless Podman: the user's user and mount namespace holds a network namespace bind-mounted to
     * $XDG_RUNTIME_DIR/netns/netns-ID; the user's bin/pasta, run there with Podman's -p list,
     * configures it, serves a published port and the host through 169.254.1.2, and exits within
     * 5 s of the file's unmount and removal.
     */
    @Test
    @Timeout(240)
    void rootlessPodman() throws Exception {
        user();
        Path dir = user.runtimeDir().resolve("netns");
        String file = dir.resolve("netns-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1)).toString();
        Process holder = user.start(user.work().resolve("holder.log"), List.of("unshare", "--user", "--map-root-user", "--mount", "--",
                "sh", "-c", "mkdir -p \"$1\" && touch \"$2\" && unshare --net=\"$2\" true && exec sleep infinity", "sh", dir.toString(), file));
        String rootView = "/proc/" + holder.pid() + "/root" + file;
        awaitNsfs(holder, rootView);
        guard(rootView);
        List<String> inUserns = List.of("nsenter", "--preserve-credentials", "-U", "-m", "-t", Long.toString(holder.pid()), "--");
        Path blob = user.work().resolve("blob.bin");
        Blob.writeFile(blob, 23, MIB10);
        Files.setPosixFilePermissions(blob, PosixFilePermissions.fromString("rw-r--r--"));
        int port = ThreadLocalRandom.current().nextInt(10_000, 32_000);
        startServer(List.of("nsenter", "--net=" + rootView, "--"), blob, List.of(80), List.of(80));

        List<String> cmd = new ArrayList<>(inUserns);
        cmd.add(user.install().resolve("bin/pasta").toString());
        cmd.addAll(List.of("--config-net", "-t", port + "-" + port + ":80-80", "--dns-forward", DNS, "-u", "none", "-T", "none", "-U", "none",
                "--no-map-gw", "--quiet", "--netns", file, "--map-guest-addr", HOST));
        Cmd.Result pasta = user.run(T, cmd);
        assertThat(pasta.exit()).as("%s", pasta).isZero();
        String addr = Cmd.run(T, "nsenter", "--net=" + rootView, "ip", "-j", "addr", "show").out();
        assertThat(addr).contains("\"local\":\"192.0.2.2\",\"prefixlen\":24").contains("\"mtu\":65520");
        long server = serverOf(file);
        assertThat(ProcessHandle.of(server).flatMap(p -> p.info().user()).orElse("")).isEqualTo(user.name());

        assertThat(tcpPort("127.0.0.1", port)).isEqualTo(80);
        assertThat(tcpPort("192.0.2.2", port)).isEqualTo(80);
        assertThat(download("192.0.2.2", port)).isEqualTo(Blob.sha256(23, MIB10));
        assertThat(upload("127.0.0.1", port, 24)).isEqualTo(Blob.sha256(24, MIB10));
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName("192.0.2.2"))) {
            Cmd.Result down = Cmd.run(T, "nsenter", "--net=" + rootView, "sh", "-c",
                    "curl -sS --max-time 60 'http://" + HOST + ":" + http.port() + "/blob?seed=25&size=" + MIB10 + "' | sha256sum");
            assertThat(down.out()).as("%s", down).startsWith(Blob.sha256(25, MIB10) + " ");
        }

        long removed = System.nanoTime();
        List<String> rm = new ArrayList<>(inUserns);
        rm.addAll(List.of("sh", "-c", "umount \"$1\" && rm \"$1\"", "sh", file));
        Cmd.Result r = user.run(T, rm);
        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(awaitGone(server, Duration.ofSeconds(5))).as("gone within 5 s of the namespace file's removal").isTrue();
        System.out.println("PastaIT: rootless server exited " + (System.nanoTime() - removed) / 1_000_000 + " ms after the file's removal");
    }

    /**
     * Isolation by default (issue 46), where Podman runs pasta: in a user namespace that maps the
     * user to 0 and its subordinate ids from 1 (so that "nobody" exists), started with Podman's
     * command line. Once the caller has its answer, from outside: every thread of the server is
     * user 65534 with no capability in any set, no_new_privs and the seccomp filter; its root
     * holds /usr, four device nodes and the jar (with its AOT cache, the JDK where outside /usr)
     * and nothing else of the host (not the test's file beside them); no descriptor is a
     * directory. From inside (the test-only probe): a mount and unshare refused, /home, /root,
     * /var, /tmp and /proc absent. And it still serves: a published port byte-exact both ways,
     * and it exits when the namespace file goes.
     */
    @Test
    @Timeout(240)
    void isolatedByDefaultAsPastaIs() throws Exception {
        user();
        long[] sub = firstSubordinate(Path.of("/etc/subuid")), subg = firstSubordinate(Path.of("/etc/subgid"));
        Path dir = user.runtimeDir().resolve("netns");
        String file = dir.resolve("netns-iso-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1)).toString();
        Process holder = user.start(user.work().resolve("holder-iso.log"), List.of("unshare", "--user", "--map-root-user",
                "--map-users=" + sub[0] + ",1," + Math.min(sub[1], 65536), "--map-groups=" + subg[0] + ",1," + Math.min(subg[1], 65536),
                "--mount", "--", "sh", "-c", "mkdir -p \"$1\" && touch \"$2\" && unshare --net=\"$2\" true && exec sleep infinity",
                "sh", dir.toString(), file));
        String rootView = "/proc/" + holder.pid() + "/root" + file;
        awaitNsfs(holder, rootView);
        guard(rootView);
        assertThat(Files.readString(Path.of("/proc/" + holder.pid() + "/uid_map"))).as("nobody is mapped").contains(" 1 ");
        Path secret = user.work().resolve("not-for-the-server.txt");
        Files.writeString(secret, "host file\n");
        Path blob = user.work().resolve("blob-iso.bin");
        Blob.writeFile(blob, 31, MIB10);
        Files.setPosixFilePermissions(blob, PosixFilePermissions.fromString("rw-r--r--"));
        int port = ThreadLocalRandom.current().nextInt(10_000, 32_000);
        startServer(List.of("nsenter", "--net=" + rootView, "--"), blob, List.of(80), List.of(80));

        List<String> cmd = new ArrayList<>(List.of("nsenter", "--preserve-credentials", "-U", "-m", "-t", Long.toString(holder.pid()), "--",
                "env", "JSLIRP_SANDBOX_PROBE=1", user.install().resolve("bin/pasta").toString()));
        cmd.addAll(List.of("--config-net", "-t", port + "-" + port + ":80-80", "--dns-forward", DNS, "-u", "none", "-T", "none", "-U", "none",
                "--no-map-gw", "--quiet", "--netns", file, "--map-guest-addr", HOST));
        Cmd.Result pasta = user.run(T, cmd);
        assertThat(pasta.exit()).as("%s", pasta).isZero();
        String jar = user.install().resolve("target/jslirp.jar").toRealPath().toString(); // /tmp's path is in the root when the jar is under it
        String said = pasta.out() + pasta.err();
        assertThat(said).contains("jslirp: isolation: isolated: an empty root; every thread user 65534, without capabilities; "
                + "seccomp filter on every thread");
        assertThat(said).contains("mount refused Operation not permitted (EPERM); unshare(0) refused Operation not permitted (EPERM)")
                .contains("/home absent; /root absent; /var absent; /tmp " + (jar.startsWith("/tmp/") ? "present" : "absent") + "; /proc absent");
        long server = serverOf(file);

        // every thread: nobody, no capabilities, no_new_privs, filtered
        List<Path> tasks;
        try (var s = Files.list(Path.of("/proc/" + server + "/task"))) {
            tasks = s.toList();
        }
        assertThat(tasks).hasSizeGreaterThan(3);
        String nobody = Long.toString(sub[0] + 65533);
        for (Path t : tasks) {
            String status = Files.readString(t.resolve("status"));
            assertThat(status).as("%s", t).containsPattern("(?m)^Uid:\\s+" + nobody + "\\s+" + nobody + "\\s+" + nobody + "\\s+" + nobody + "$")
                    .contains("CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
                            "CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2");
        }
        // the root: /usr, the devices, the JVM's own files, nothing else
        Path root = Path.of("/proc/" + server + "/root/.");
        List<String> files = new ArrayList<>();
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                return d.equals(root.resolve("usr")) ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                files.add("/" + root.relativize(f));
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        assertThat(files).as("what of the host the server can reach").contains(jar, "/dev/null", "/dev/urandom")
                .allMatch(f -> f.equals(jar) || f.startsWith("/dev/") || f.endsWith(".aot") || f.matches("/(bin|sbin|lib|lib32|lib64|libx32)")
                        || f.startsWith(System.getProperty("java.home")), "is the jar, its cache, the JDK, a device or a /usr link");
        assertThat(Files.exists(root.resolve(secret.toString().substring(1)))).isFalse();
        assertThat(Files.exists(root.resolve("etc"))).isFalse();
        try (var fds = Files.list(Path.of("/proc/" + server + "/fd"))) {
            assertThat(fds.toList()).as("no descriptor is a directory (a way out of the root)").noneMatch(Files::isDirectory);
        }

        assertThat(download("127.0.0.1", port)).isEqualTo(Blob.sha256(31, MIB10));
        assertThat(upload("127.0.0.1", port, 32)).isEqualTo(Blob.sha256(32, MIB10));

        List<String> rm = new ArrayList<>(List.of("nsenter", "--preserve-credentials", "-U", "-m", "-t", Long.toString(holder.pid()), "--"));
        rm.addAll(List.of("sh", "-c", "umount \"$1\" && rm \"$1\"", "sh", file));
        Cmd.Result r = user.run(T, rm);
        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(awaitGone(server, Duration.ofSeconds(5))).as("gone within 5 s of the namespace file's removal").isTrue();
    }

    /** The test user's first subordinate range in file (/etc/subuid or /etc/subgid): start and count. */
    private static long[] firstSubordinate(Path file) throws IOException {
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split(":");
            if (f.length == 3 && f[0].equals(user.name())) return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
        }
        throw new AssertionError("no subordinate ids for " + user.name() + " in " + file);
    }

    /**
     * RootlessKit 3's list with a child PID in the user's own user and network namespace: pasta
     * joins the child's user namespace, configures tap0 as asked, and exits when the child is gone.
     */
    @Test
    @Timeout(180)
    void rootlesskitWithChildPid() throws Exception {
        user();
        Process child = user.start(user.work().resolve("child.log"), List.of("unshare", "--user", "--map-root-user", "--net", "sleep", "infinity"));
        Namespace.awaitOwnNetns(child);
        String netns = "/proc/" + child.pid() + "/ns/net";
        guard(netns);
        Cmd.Result pasta = user.run(T, user.install().resolve("bin/pasta").toString(), "--stderr", "--ns-ifname=tap0", "--mtu=65520",
                "--config-net", "--address=10.0.2.100", "--netmask=24", "--gateway=10.0.2.2", "--dns-forward=10.0.2.3", "--no-map-gw",
                "--ipv4-only", "--tcp-ports=none", "--udp-ports=none", "--host-lo-to-ns-lo", Long.toString(child.pid()));
        assertThat(pasta.exit()).as("%s", pasta).isZero();
        String addr = Cmd.run(T, "nsenter", "--net=" + netns, "ip", "-j", "addr", "show", "dev", "tap0").out();
        assertThat(addr).contains("\"mtu\":65520").contains("\"local\":\"10.0.2.100\",\"prefixlen\":24").doesNotContain("fd00::2");
        assertThat(Cmd.run(T, "nsenter", "--net=" + netns, "ip", "-j", "-4", "route", "show", "default").out())
                .contains("\"gateway\":\"10.0.2.2\"");
        long server = serverOf(" " + child.pid() + " ");
        // isolated, though its launcher's parent is in the user namespace above (where it cannot look)
        assertThat(Files.readString(Path.of("/proc/" + server + "/status"))).contains("NoNewPrivs:\t1", "Seccomp:\t2");
        try (var top = Files.list(Path.of("/proc/" + server + "/root/."))) {
            assertThat(top.map(p -> p.getFileName().toString()).toList()).doesNotContain("etc", "proc", "home").contains("usr");
        }
        Cmd.killTree(child.toHandle());
        assertThat(awaitGone(server, Duration.ofSeconds(5))).as("gone with the child").isTrue();
        for (String probe : List.of("--version", "--host-lo-to-ns-lo --version")) {
            List<String> c = new ArrayList<>(List.of(user.install().resolve("bin/pasta").toString()));
            c.addAll(List.of(probe.split(" ")));
            assertThat(user.run(T, c).exit()).as("probe %s", probe).isZero();
        }
    }

    // ---- helpers ----

    private static void user() {
        if (user == null) user = TestUser.create();
    }

    /** A namespace of ip netns, guarded; the guard also lets the namespace send to the also addresses (jslirp's own ones). */
    private String netns(String... also) {
        return namespaces.create(also);
    }

    static void guard(String netns, String... also) {
        try {
            Path f = Files.createTempFile("jslirp-pasta-guard", ".nft");
            String rules = GUARD;
            for (String a : also) {
                String family = a.contains(":") ? "ip6" : "ip";
                rules = rules.replace("ip daddr { 169.254.1.1, 169.254.1.2 } accept", "ip daddr { 169.254.1.1, 169.254.1.2 } accept\n    "
                        + family + " daddr " + a + " udp dport 53 accept\n    " + family + " daddr " + a + " tcp dport 53 accept");
            }
            Files.writeString(f, rules);
            Cmd.Result r = Cmd.run(T, "nsenter", "--net=" + netns, "--", "nft", "-f", f.toString());
            Files.delete(f);
            assertThat(r.exit()).as("egress guard: %s", r).isZero();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String inNs(String ns, String... cmd) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(cmd));
        Cmd.Result r = Cmd.run(T, c);
        assertThat(r.exit()).as("%s", r).isZero();
        return r.out();
    }

    private static String pasta() {
        return ItEnv.home().resolve("bin/pasta").toString();
    }

    private static List<String> pastaCommand(List<String> args) {
        List<String> c = new ArrayList<>(List.of(pasta()));
        c.addAll(args);
        return c;
    }

    /** What the caller saw: status, and stdout and stderr read to their end (Podman waits for both). */
    private record Started(int exit, String out, String err) {}

    /** Runs bin/pasta with pipes, as Podman does: returns when it exits and both pipes reach end of file. */
    private Started startPasta(List<String> args) throws Exception {
        return startPasta(args, Map.of());
    }

    private Started startPasta(List<String> args, Map<String, String> env) throws Exception {
        return start(pastaCommand(args), env);
    }

    /** As {@link #startPasta}, for a command line that runs bin/pasta (e.g. inside a namespace). */
    private Started start(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder b = new ProcessBuilder(command);
        b.environment().putAll(env);
        Process p = b.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = read(p.getInputStream()), err = read(p.getErrorStream());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("bin/pasta returns").isTrue();
        String o = out.get(20, TimeUnit.SECONDS), e = err.get(20, TimeUnit.SECONDS); // end of file: nothing holds the pipes
        return new Started(p.exitValue(), o, e);
    }

    private static CompletableFuture<String> read(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private Process startServer(List<String> prefix, Path blob, List<Integer> tcp, List<Integer> udp) throws Exception {
        List<String> c = new ArrayList<>(prefix);
        Function<List<Integer>, String> join = l -> String.join(",", l.stream().map(String::valueOf).toList());
        c.addAll(List.of(ItEnv.python(), "-c", SERVER, blob.toString(), join.apply(tcp), join.apply(udp)));
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        namespaces.started(p);
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        assertThat(line).as("the namespace's server").isEqualTo("listening");
        return p;
    }

    /** The serving process: the JVM running "jslirp.jar pasta" whose command line names needle (the namespace, or the PID). */
    private long serverOf(String needle) throws Exception {
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            String cmdline;
            try {
                cmdline = Files.readString(Path.of("/proc/" + h.pid() + "/cmdline")).replace('\0', ' ');
            } catch (IOException gone) {
                continue;
            }
            if (cmdline.contains("jslirp.jar pasta ") && cmdline.contains(needle)) {
                pastas.add(h.pid());
                return h.pid();
            }
        }
        throw new AssertionError("no jslirp pasta for " + needle);
    }

    private static long pidFile(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).trim());
    }

    private void stop(long pid) throws Exception {
        Cmd.run(T, "kill", "-TERM", Long.toString(pid));
        assertThat(awaitGone(pid, Duration.ofSeconds(10))).as("SIGTERM ends %d", pid).isTrue();
    }

    /**
     * Whether pid exits within the time: gone, or a zombie. (The detached server's parent is PID 1,
     * which reaps it when it gets to it: on the test machine's init up to a second or more later.)
     */
    private static boolean awaitGone(long pid, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (exited(pid)) return true;
            Thread.sleep(10);
        }
        return false;
    }

    private static boolean exited(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException gone) {
            return true;
        }
    }

    private static void awaitFile(Path f, Process p) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(f) && Files.size(f) > 0) return;
            if (!p.isAlive()) throw new AssertionError("exited with " + p.exitValue());
            Thread.sleep(50);
        }
        throw new AssertionError("no " + f);
    }

    private static void awaitNsfs(Process holder, String path) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!holder.isAlive()) throw new AssertionError("the namespace holder exited with " + holder.exitValue());
            if (Cmd.run(T, "nsenter", "--net=" + path, "true").exit() == 0) return;
            Thread.sleep(100);
        }
        throw new AssertionError("no namespace at " + path);
    }

    static Socket connect(String host, int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getByName(host), port), 10_000);
        s.setSoTimeout(30_000);
        return s;
    }

    private static int tcpPort(String host, int port) throws IOException {
        try (Socket s = connect(host, port)) {
            s.getOutputStream().write("port\n".getBytes(StandardCharsets.US_ASCII));
            return Integer.parseInt(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine().trim());
        }
    }

    private static boolean refused(String host, int port) {
        try (Socket s = connect(host, port)) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static int udpPort(String host, int port) throws IOException {
        try (DatagramSocket s = new DatagramSocket(null)) {
            s.setSoTimeout(2_000);
            s.connect(new InetSocketAddress(InetAddress.getByName(host), port));
            byte[] q = ("hello " + port).getBytes(StandardCharsets.US_ASCII);
            for (int attempt = 0; attempt < 5; attempt++) {
                s.send(new DatagramPacket(q, q.length));
                byte[] buf = new byte[256];
                DatagramPacket d = new DatagramPacket(buf, buf.length);
                try {
                    s.receive(d);
                } catch (SocketTimeoutException again) {
                    continue;
                }
                String a = new String(buf, 0, d.getLength(), StandardCharsets.US_ASCII);
                assertThat(a).endsWith(" hello " + port);
                return Integer.parseInt(a.substring(0, a.indexOf(' ')));
            }
            return -1;
        }
    }

    private static String download(String host, int port) throws Exception {
        try (Socket s = connect(host, port)) {
            s.getOutputStream().write("get\n".getBytes(StandardCharsets.US_ASCII));
            MessageDigest d = Blob.sha256();
            byte[] buf = new byte[65536];
            InputStream in = s.getInputStream();
            for (int n; (n = in.read(buf)) > 0; ) d.update(buf, 0, n);
            return HexFormat.of().formatHex(d.digest());
        }
    }

    private static String upload(String host, int port, long seed) throws Exception {
        try (Socket s = connect(host, port)) {
            OutputStream out = s.getOutputStream();
            out.write(("put " + MIB10 + "\n").getBytes(StandardCharsets.US_ASCII));
            Blob.write(out, seed, MIB10);
            out.flush();
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine().trim();
        }
    }
}
