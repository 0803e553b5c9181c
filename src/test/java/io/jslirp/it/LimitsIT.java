package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 8: limits are enforced the way a router refuses (a reset for TCP, ICMP administratively
 * prohibited for UDP), existing flows carry on, and a counter and one log line say so; the host's
 * own descriptor limit is met the same way; SIGTERM resets open connections and exits 0.
 * jslirp only: slirp4netns has no such limits.
 */
class LimitsIT {
    static final Duration T = Duration.ofSeconds(60);

    /** Opens N connections one after another, then echoes 100 KB on each that opened. */
    static final String OPEN_AND_ECHO = """
            import json, socket, sys
            port, n = int(sys.argv[1]), int(sys.argv[2])
            ok, refused, other = [], 0, []
            for i in range(n):
                s = socket.socket()
                s.settimeout(10)
                try:
                    s.connect(("10.0.2.2", port))
                    ok.append(s)
                except ConnectionRefusedError:
                    refused += 1
                    s.close()
                except OSError as e:
                    other.append(repr(e))
                    s.close()
            echoed = 0
            for i, s in enumerate(ok):
                data = bytes([i % 256]) * 100000
                s.sendall(data)
                got = b""
                while len(got) < len(data):
                    c = s.recv(65536)
                    if not c:
                        break
                    got += c
                echoed += got == data
            for s in ok:
                s.close()
            print(json.dumps({"ok": len(ok), "refused": refused, "echoed": echoed, "other": other}))
            """;

    @Test
    @Timeout(120)
    void connectionsBeyondTheLimitAreResetAndTheOthersCarryOn() throws Exception {
        ItEnv.assumeJslirp("--max-connections is jslirp's");
        try (EchoServer echo = new EchoServer(16);
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--max-connections", "4"))) {
            Cmd.Result r = ns.exec(T, ItEnv.python(), "-c", OPEN_AND_ECHO, Integer.toString(echo.port()), "6");
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s\n%s", r, stack.stderr()).contains("\"ok\": 4, \"refused\": 2, \"echoed\": 4, \"other\": []");
            Stack.Exit exit = stack.stop();
            assertThat(exit.counters()).containsEntry("refused_at_limit", 2L);
            assertThat(lines(exit.stderr(), "reached the limit of 4 TCP connections")).as(exit.stderr()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(120)
    void connectsStillInProgressAreBounded() throws Exception {
        ItEnv.assumeJslirp("--max-half-open is jslirp's");
        // A listener that never accepts: once its queue (backlog + 1) is full, the host's connects
        // stay in progress, each one a half-open connection in jslirp.
        String script = """
                import json, select, socket, sys, time
                port, n = int(sys.argv[1]), int(sys.argv[2])
                socks = []
                for i in range(n):
                    s = socket.socket()
                    s.setblocking(False)
                    s.connect_ex(("10.0.2.2", port))
                    socks.append(s)
                    time.sleep(0.05)
                time.sleep(2)
                state = {"connected": 0, "refused": 0, "pending": 0}
                for s in socks:
                    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    if err == 111:
                        state["refused"] += 1
                    elif err == 0 and select.select([], [s], [], 0)[1]:
                        state["connected"] += 1
                    else:
                        state["pending"] += 1
                print(json.dumps(state))
                """;
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--max-half-open", "2"))) {
            Cmd.Result r = ns.exec(T, ItEnv.python(), "-c", script, Integer.toString(full.getLocalPort()), "8");
            assertThat(r.exit()).as("%s", r).isZero();
            Map<String, Integer> state = counts(r.out());
            System.out.printf("[%s] limits: 8 connects to a listener that never accepts, --max-half-open 2: %s%n",
                    Stack.Kind.selected(), state);
            assertThat(state.get("pending")).as("%s", r).isLessThanOrEqualTo(2);
            assertThat(state.get("refused")).as("%s", r).isPositive();
            Stack.Exit exit = stack.stop();
            assertThat(exit.counters().get("refused_at_limit")).isEqualTo(state.get("refused").longValue());
            assertThat(lines(exit.stderr(), "TCP connections being opened (--max-half-open)")).as(exit.stderr()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(120)
    void udpFlowsBeyondTheLimitGetAdministrativelyProhibited() throws Exception {
        ItEnv.assumeJslirp("--max-udp-flows is jslirp's");
        String script = """
                import errno, socket, sys
                port = int(sys.argv[1])
                results = []
                for i in range(3):
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.settimeout(3)
                    s.connect(("10.0.2.2", port))
                    s.send(b"hello %d" % i)
                    try:
                        results.append("echo" if s.recv(100) == b"hello %d" % i else "wrong")
                    except socket.timeout:
                        results.append("timeout")
                    except OSError as e:
                        results.append(errno.errorcode[e.errno])
                print(" ".join(results))
                """;
        try (DatagramSocket echo = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--max-udp-flows", "2"))) {
            Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[1500];
                try {
                    while (true) {
                        DatagramPacket p = new DatagramPacket(buf, buf.length);
                        echo.receive(p);
                        echo.send(p);
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            Cmd.Result r = ns.exec(T, ItEnv.python(), "-c", script, Integer.toString(echo.getLocalPort()));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out().strip()).as("%s", r).isEqualTo("echo echo EHOSTUNREACH");
            Stack.Exit exit = stack.stop();
            assertThat(exit.counters()).containsEntry("refused_at_limit", 1L);
            assertThat(lines(exit.stderr(), "reached the limit of 2 UDP flows")).as(exit.stderr()).isEqualTo(1);
        }
    }

    /** jslirp runs with few descriptors (prlimit): connections beyond them are reset, the rest work, and later ones again. */
    @Test
    @Timeout(180)
    void runningOutOfDescriptorsRefusesNewConnectionsOnly() throws Exception {
        ItEnv.assumeJslirp("tests jslirp's handling of EMFILE");
        ItEnv.assumeTools("prlimit");
        try (EchoServer echo = new EchoServer(64);
             Namespace ns = Namespace.create()) {
            List<String> command = new ArrayList<>(List.of("prlimit", "--nofile=48", "--"));
            command.addAll(Stack.attachCommand(Stack.Options.configured(), Long.toString(ns.pid())));
            try (Stack.Running stack = Stack.start(command)) {
                stack.awaitConfigured(ns, "tap0", Duration.ofSeconds(90));
                Cmd.Result first = ns.exec(T, ItEnv.python(), "-c", OPEN_AND_ECHO, Integer.toString(echo.port()), "60");
                assertThat(first.exit()).as("%s", first).isZero();
                Map<String, Integer> seen = counts(first.out());
                System.out.printf("[%s] limits: 60 connections to a jslirp with 48 descriptors: %s%n", Stack.Kind.selected(), seen);
                assertThat(seen.get("refused")).as("%s\n%s", first, stack.stderr()).isPositive();
                assertThat(seen.get("ok")).as("%s", first).isPositive();
                assertThat(seen.get("echoed")).as("every connection that opened carries data").isEqualTo(seen.get("ok"));
                Cmd.Result again = ns.exec(T, ItEnv.python(), "-c", OPEN_AND_ECHO, Integer.toString(echo.port()), "5");
                assertThat(again.out()).as("descriptors come back when connections close\n%s", again)
                        .contains("\"ok\": 5, \"refused\": 0, \"echoed\": 5");
                assertThat(stack.alive()).isTrue();
                Stack.Exit exit = stack.stop();
                assertThat(exit.counters().get("refused_at_limit")).isEqualTo(seen.get("refused").longValue());
                assertThat(lines(exit.stderr(), "open files (ulimit -n) for TCP connections")).as(exit.stderr()).isEqualTo(1);
            }
        }
    }

    /** SIGTERM: the host peer and the guest both see their open connection reset, and jslirp exits 0. */
    @Test
    @Timeout(120)
    void sigtermResetsOpenConnectionsAndExitsZero() throws Exception {
        ItEnv.assumeJslirp("slirp4netns does not reset connections on exit");
        String guest = """
                import socket, sys
                s = socket.create_connection(("10.0.2.2", int(sys.argv[1])), timeout=60)
                s.sendall(b"x")
                try:
                    print("eof" if s.recv(100) == b"" else "data")
                except ConnectionResetError:
                    print("reset")
                """;
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            CompletableFuture<Cmd.Result> client = CompletableFuture.supplyAsync(
                    () -> ns.exec(T, ItEnv.python(), "-c", guest, Integer.toString(server.getLocalPort())));
            try (Socket host = server.accept()) {
                InputStream in = host.getInputStream();
                assertThat(in.read()).isEqualTo('x');
                Stack.Exit exit = stack.stop();
                assertThat(exit.code()).as(exit.stderr()).isZero();
                assertThat(exit.stderr()).contains("jslirp: counters:");
                String hostSaw;
                try {
                    hostSaw = in.read() < 0 ? "eof" : "data";
                } catch (SocketException e) {
                    hostSaw = e.getMessage();
                }
                assertThat(hostSaw).isEqualTo("Connection reset");
                assertThat(client.get(30, TimeUnit.SECONDS).out().strip()).isEqualTo("reset");
            }
        }
    }

    private static int lines(String text, String containing) {
        return (int) text.lines().filter(l -> l.contains(containing)).count();
    }

    private static Map<String, Integer> counts(String json) {
        Matcher m = Pattern.compile("\"(\\w+)\": (\\d+)").matcher(json);
        Map<String, Integer> map = new java.util.LinkedHashMap<>();
        while (m.find()) map.put(m.group(1), Integer.parseInt(m.group(2)));
        return map;
    }

    /** Echoes every byte back on each accepted connection (a virtual thread per connection). */
    static final class EchoServer implements AutoCloseable {
        private final ServerSocket server;

        EchoServer(int backlog) throws IOException {
            server = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        Thread.ofVirtual().start(() -> echo(s));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
        }

        private static void echo(Socket s) {
            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException ignored) {
                // the peer went away
            }
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
