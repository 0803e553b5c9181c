package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --preserve-source}: a client of a forwarded port reaches the guest from its own address
 * and port, not from the gateway; a client on the host's loopback still comes from the gateway.
 * The stack's host side runs in a namespace made here, joined by a veth pair to a client namespace
 * at 192.0.2.77; the guest's servers answer each client with the address they see.
 */
class PreserveSourceIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final String HOST_SIDE = "192.0.2.1", CLIENT = "192.0.2.77";

    /** In the guest: TCP port 80 and UDP port 53 answer each client with its address and port. */
    static final String GUEST_SERVERS = """
            import selectors, socket
            sel = selectors.DefaultSelector()
            t = socket.socket()
            t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            t.bind(("0.0.0.0", 80))
            t.listen(16)
            sel.register(t, selectors.EVENT_READ, "tcp")
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.bind(("0.0.0.0", 53))
            sel.register(u, selectors.EVENT_READ, "udp")
            print("ready", flush=True)
            while True:
                for key, _ in sel.select():
                    if key.data == "tcp":
                        c, peer = t.accept()
                        c.sendall(("%s:%d" % peer).encode())
                        c.close()
                    else:
                        data, peer = u.recvfrom(100)
                        u.sendto(("%s:%d" % peer).encode(), peer)
            """;

    /** A client of the forwarded ports at argv[1]: what the guest said it saw, for TCP and UDP, with the client's own ports. */
    static final String CLIENT_PROBE = """
            import socket, sys
            t = socket.create_connection((sys.argv[1], 8080), timeout=10)
            print("tcp", t.recv(100).decode(), "own port", t.getsockname()[1])
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(1)
            u.connect((sys.argv[1], 8053))
            for i in range(10):
                u.send(b"x")
                try:
                    print("udp", u.recv(100).decode(), "own port", u.getsockname()[1])
                    break
                except socket.timeout:
                    pass
            """;

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void forwardedClientsKeepTheirAddressWithTheOption() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("-t, -u and --preserve-source are jslirp's");
        ItEnv.assumeTools(ItEnv.python());
        String preserved = probe(true);
        assertThat(preserved).containsPattern("remote tcp " + CLIENT.replace(".", "\\.") + ":(\\d+) own port \\1\\b")
                .containsPattern("remote udp " + CLIENT.replace(".", "\\.") + ":(\\d+) own port \\1\\b")
                .as("a loopback client cannot be answered at 127.0.0.1: it comes from the gateway")
                .contains("loopback tcp 10.0.2.2:").contains("loopback udp 10.0.2.2:");
        String mapped = probe(false);
        assertThat(mapped).contains("remote tcp 10.0.2.2:").contains("remote udp 10.0.2.2:")
                .contains("loopback tcp 10.0.2.2:").contains("loopback udp 10.0.2.2:")
                .doesNotContain(CLIENT);
    }

    /** Runs the client probe from the client namespace ("remote") and from the host side's loopback ("loopback"). */
    private String probe(boolean preserveSource) throws Exception {
        Path servers = tmp.resolve("guest_servers.py");
        Files.writeString(servers, GUEST_SERVERS);
        Path log = tmp.resolve("guest_servers.log");
        try (RemoteClient peers = new RemoteClient(false, HOST_SIDE, CLIENT); Namespace ns = Namespace.create()) {
            Namespace hostSide = peers.hostSide, client = peers.client;
            ns.allowEgress(CLIENT); // the guest's answers to the preserved client address
            Process p = new ProcessBuilder(ns.inside(List.of(ItEnv.python(), servers.toString())))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Stack.Options options = Stack.Options.configured().extra("-t", "0.0.0.0/8080:80", "-u", "0.0.0.0/8053:53");
            if (preserveSource) options.extra("--preserve-source");
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                for (int i = 0; i < 100 && !Files.readString(log).contains("ready"); i++) Namespace.sleep(50);
                Cmd.Result remote = RemoteClient.retry(() -> client.exec(T, ItEnv.python(), "-c", CLIENT_PROBE, HOST_SIDE));
                Cmd.Result loopback = hostSide.exec(T, ItEnv.python(), "-c", CLIENT_PROBE, "127.0.0.1");
                assertThat(remote.exit()).as("%s\n%s\n%s", remote, stack.describe(), Files.readString(log)).isZero();
                assertThat(loopback.exit()).as("%s\n%s", loopback, stack.describe()).isZero();
                String seen = RemoteClient.prefixed("remote", remote.out()) + RemoteClient.prefixed("loopback", loopback.out());
                System.out.printf("[preserve-source %s] %s%n", preserveSource, seen.strip().replace('\n', ','));
                return seen;
            } finally {
                p.destroy();
            }
        }
    }
}
