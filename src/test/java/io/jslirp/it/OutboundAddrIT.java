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
 * {@code --outbound-addr}: the host sockets of the guest's TCP connections and UDP flows come from
 * the given address. The stack's host side runs in a namespace made here, with the address on its
 * loopback, and the servers there answer with the address each client came from.
 */
class OutboundAddrIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final String SOURCE = "10.77.0.1";
    /** TCP and UDP on 127.0.0.1:8080, answering each client with its address. */
    private static final String SERVER = """
            import socket, threading
            def udp():
                u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                u.bind(("127.0.0.1", 8080))
                while True:
                    data, peer = u.recvfrom(100)
                    u.sendto(peer[0].encode(), peer)
            threading.Thread(target=udp, daemon=True).start()
            t = socket.socket()
            t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            t.bind(("127.0.0.1", 8080))
            t.listen(8)
            while True:
                c, peer = t.accept()
                c.sendall(peer[0].encode())
                c.close()
            """;
    private static final String CLIENT = """
            import socket, sys
            t = socket.create_connection(("10.0.2.2", 8080), timeout=10)
            print("tcp", t.recv(100).decode())
            u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            u.settimeout(0.5)
            for i in range(20):
                u.sendto(b"x", ("10.0.2.2", 8080))
                try:
                    print("udp", u.recv(100).decode())
                    break
                except socket.timeout:
                    pass
            """;

    @TempDir
    Path tmp;

    @Test
    @Timeout(90)
    void outboundSocketsComeFromTheGivenAddress() throws Exception {
        ItEnv.assumeStack();
        Path server = tmp.resolve("server.py");
        Files.writeString(server, SERVER);
        try (Namespace hostSide = Namespace.create(); Namespace ns = Namespace.create()) {
            assertThat(hostSide.exec(T, "ip", "addr", "add", SOURCE + "/32", "dev", "lo").exit()).isZero();
            Process p = new ProcessBuilder(hostSide.inside(List.of(ItEnv.python(), server.toString())))
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("server.log").toFile()).start();
            Stack.Options options = Stack.Options.configured().extra("--outbound-addr", SOURCE);
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                Cmd.Result r = null;
                for (int i = 0; i < 50; i++) { // until the server listens
                    r = ns.exec(T, ItEnv.python(), "-c", CLIENT);
                    if (r.exit() == 0) break;
                    Namespace.sleep(100);
                }
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                assertThat(r.out()).as("%s\n%s", r, stack.describe()).contains("tcp " + SOURCE).contains("udp " + SOURCE);
            } finally {
                p.destroy();
            }
        }
    }

    private static final String SOURCE6 = "2001:db8::77";

    /** --outbound-addr6: the same over IPv6, through fd00::2 to the host side's ::1. */
    @Test
    @Timeout(90)
    void outboundIpv6SocketsComeFromTheGivenAddress() throws Exception {
        ItEnv.assumeStack();
        Path server = tmp.resolve("server6.py");
        Files.writeString(server, SERVER.replace("socket.AF_INET,", "socket.AF_INET6,").replace("socket.socket()", "socket.socket(socket.AF_INET6)")
                .replace("\"127.0.0.1\"", "\"::1\""));
        String client = CLIENT.replace("socket.AF_INET,", "socket.AF_INET6,").replace("\"10.0.2.2\"", "\"fd00::2\"");
        try (Namespace hostSide = Namespace.createWithIpv6(); Namespace ns = Namespace.createWithIpv6()) {
            assertThat(hostSide.exec(T, "ip", "-6", "addr", "add", SOURCE6 + "/128", "dev", "lo", "nodad").exit()).isZero();
            Process p = new ProcessBuilder(hostSide.inside(List.of(ItEnv.python(), server.toString())))
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("server6.log").toFile()).start();
            Stack.Options options = Stack.Options.configured().enableIpv6().extra("--outbound-addr6", SOURCE6);
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                Ipv6IT.awaitSlaac(ns, stack);
                Cmd.Result r = null;
                for (int i = 0; i < 50; i++) { // until the server listens
                    r = ns.exec(T, ItEnv.python(), "-c", client);
                    if (r.exit() == 0) break;
                    Namespace.sleep(100);
                }
                assertThat(r.exit()).as("%s\n%s\n%s", r, stack.describe(), Files.readString(tmp.resolve("server6.log"))).isZero();
                assertThat(r.out()).as("%s\n%s", r, stack.describe()).contains("tcp " + SOURCE6).contains("udp " + SOURCE6);
            } finally {
                p.destroy();
            }
        }
    }

    @Test
    @Timeout(30)
    void anAddressThatIsNotTheHostsIsRefusedAtStart() {
        ItEnv.assumeJslirp("jslirp's error line");
        ItEnv.assumeStack();
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.start(Stack.attachCommand(Stack.Options.configured().extra("--outbound-addr", "192.0.2.77"),
                     Long.toString(ns.pid())))) {
            Stack.Exit exit = waitForExit(stack);
            assertThat(exit.code()).isEqualTo(1);
            assertThat(exit.stderr().strip()).startsWith("jslirp: --outbound-addr 192.0.2.77 cannot be used: ").doesNotContain("\n");
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.start(Stack.attachCommand(Stack.Options.configured().enableIpv6()
                     .extra("--outbound-addr6", "2001:db8::99"), Long.toString(ns.pid())))) {
            Stack.Exit exit = waitForExit(stack);
            assertThat(exit.code()).isEqualTo(1);
            assertThat(exit.stderr().strip()).startsWith("jslirp: --outbound-addr6 2001:db8::99 cannot be used: ").doesNotContain("\n");
        }
    }

    private static Stack.Exit waitForExit(Stack.Running stack) {
        for (int i = 0; i < 200 && stack.alive(); i++) Namespace.sleep(100);
        return stack.stop();
    }
}
