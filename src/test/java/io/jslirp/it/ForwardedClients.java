package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Clients of ports forwarded to a guest, and the guest's servers that answer each client with the
 * address and port they see (Forward6IT, PreserveSourceIT): who the guest thinks is calling.
 */
final class ForwardedClients {
    private static final Duration T = Duration.ofSeconds(30);

    private ForwardedClients() {}

    /**
     * In the guest: TCP port 80 and UDP port 53 answer each client with its address and port (a
     * datagram with " " and the datagram after it); on [::] (IPv4 clients too, as ::ffff:a.b.c.d),
     * or with argv[1] "4" on 0.0.0.0.
     */
    static final String GUEST_SERVERS = """
            import selectors, socket, sys
            family, anywhere = (socket.AF_INET, "0.0.0.0") if sys.argv[1:2] == ["4"] else (socket.AF_INET6, "::")
            sel = selectors.DefaultSelector()
            t = socket.socket(family)
            t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            u = socket.socket(family, socket.SOCK_DGRAM)
            if family == socket.AF_INET6:
                t.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            t.bind((anywhere, 80))
            t.listen(16)
            sel.register(t, selectors.EVENT_READ, "tcp")
            u.bind((anywhere, 53))
            sel.register(u, selectors.EVENT_READ, "udp")
            print("ready", flush=True)
            while True:
                for key, _ in sel.select():
                    if key.data == "tcp":
                        c, peer = t.accept()
                        c.sendall(("%s:%d" % peer[:2]).encode())
                        c.close()
                    else:
                        data, peer = u.recvfrom(100)
                        u.sendto(("%s:%d" % peer[:2]).encode() + b" " + data, peer)
            """;

    /**
     * A client at argv[1] (IPv4 or IPv6): TCP to port argv[2] and, if given, UDP to port argv[3]
     * (datagrams of two sizes, each echoed back); prints what the guest saw with the client's own ports.
     */
    static final String CLIENT_PROBE = """
            import socket, sys
            host = sys.argv[1]
            t = socket.create_connection((host, int(sys.argv[2])), timeout=10)
            print("tcp", t.recv(100).decode(), "own port", t.getsockname()[1])
            if len(sys.argv) > 3:
                u = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
                u.settimeout(1)
                u.connect((host, int(sys.argv[3])))
                for size in (1, 60):
                    msg = bytes(65 + (i * 7 + size) % 26 for i in range(size))
                    for attempt in range(10):
                        u.send(msg)
                        try:
                            seen, echoed = u.recv(200).split(b" ", 1)
                            print("udp", seen.decode(), "own port", u.getsockname()[1], "echo", echoed == msg)
                            break
                        except socket.timeout:
                            pass
            """;

    /** Starts {@link #GUEST_SERVERS} in ns (args: "4" for IPv4 only), its output in tmp's guest_servers.log. */
    static Process startServers(Path tmp, Namespace ns, String... args) throws IOException {
        Path servers = tmp.resolve("guest_servers.py");
        Files.writeString(servers, GUEST_SERVERS);
        List<String> command = new java.util.ArrayList<>(List.of(ItEnv.python(), servers.toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(ns.inside(command)).redirectErrorStream(true).redirectOutput(tmp.resolve("guest_servers.log").toFile()).start();
    }

    /** Waits (a few seconds at most) until the servers say they are ready. */
    static void awaitReady(Path tmp) throws IOException {
        for (int i = 0; i < 100 && !Files.readString(tmp.resolve("guest_servers.log")).contains("ready"); i++) Namespace.sleep(50);
    }

    /**
     * Forwards of ports 8080 (TCP) and 8053 (UDP) to the guest's servers, probed from a client
     * namespace at clientAddress joined by a veth pair to the stack's host side at hostSideAddress
     * ("remote"), and from the host side's loopback ("loopback"): what the guest saw, a line each, prefixed.
     */
    static String probeFromElsewhere(Path tmp, boolean ipv6, String hostSideAddress, String clientAddress, boolean preserveSource)
            throws Exception {
        try (RemoteClient peers = new RemoteClient(ipv6, hostSideAddress, clientAddress);
             Namespace ns = ipv6 ? Namespace.createWithIpv6() : Namespace.create()) {
            Namespace hostSide = peers.hostSide, client = peers.client;
            if (ipv6) ns.allowEgress6(clientAddress); // the guest's answers to the preserved client address
            else ns.allowEgress(clientAddress);
            Process p = ipv6 ? startServers(tmp, ns) : startServers(tmp, ns, "4");
            String anywhere = ipv6 ? "::" : "0.0.0.0";
            Stack.Options options = Stack.Options.configured().extra("-t", anywhere + "/8080:80", "-u", anywhere + "/8053:53");
            if (ipv6) options.enableIpv6();
            if (preserveSource) options.extra("--preserve-source");
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                if (ipv6) Ipv6IT.awaitSlaac(ns, stack);
                awaitReady(tmp);
                Cmd.Result remote = RemoteClient.retry(() -> client.exec(T, ItEnv.python(), "-c", CLIENT_PROBE, hostSideAddress, "8080", "8053"));
                Cmd.Result loopback = hostSide.exec(T, ItEnv.python(), "-c", CLIENT_PROBE, ipv6 ? "::1" : "127.0.0.1", "8080", "8053");
                String log = Files.readString(tmp.resolve("guest_servers.log"));
                assertThat(remote.exit()).as("%s\n%s\n%s", remote, stack.describe(), log).isZero();
                assertThat(loopback.exit()).as("%s\n%s", loopback, stack.describe()).isZero();
                String seen = RemoteClient.prefixed("remote", remote.out()) + RemoteClient.prefixed("loopback", loopback.out());
                System.out.printf("[preserve-source%s %s] %s%n", ipv6 ? "6" : "", preserveSource, seen.strip().replace('\n', ','));
                return seen;
            } finally {
                p.destroy();
            }
        }
    }
}
