package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * UDP port forwarding ({@code -u [ADDR/]PORT[-PORT][:GUESTPORT[-PORT]]} and add_hostfwd with proto
 * udp): host clients' datagrams reach a UDP server in the namespace from the gateway, each client
 * from a gateway port of its own, and the server's answers come back to the right client.
 */
class UdpForwardIT {
    /** Answers each datagram with "PORT FROM-ADDRESS PAYLOAD" on ports 5353 and 5354. */
    private static final String ECHO = """
            import select, socket
            socks = []
            for port in (5353, 5354):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("0.0.0.0", port))
                socks.append(s)
            while True:
                for s in select.select(socks, [], [])[0]:
                    data, peer = s.recvfrom(65535)
                    s.sendto(b"%d %s " % (s.getsockname()[1], peer[0].encode()) + data, peer)
            """;

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void aRangeOfHostUdpPortsReachesTheGuestsServers() throws Exception {
        ItEnv.assumeJslirp("-u is jslirp's");
        ItEnv.assumeStack();
        int port = freeUdpPortPair();
        Path script = tmp.resolve("echo.py");
        Files.writeString(script, ECHO);
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("-u", port + "-" + (port + 1) + ":5353-5354"))) {
            Process echo = startEcho(ns, script);
            try (DatagramSocket a = client(); DatagramSocket b = client()) {
                assertThat(exchange(a, port, "from a", stack)).isEqualTo("5353 10.0.2.2 from a");
                assertThat(exchange(b, port, "from b", stack)).isEqualTo("5353 10.0.2.2 from b");
                assertThat(exchange(a, port + 1, "again a", stack)).isEqualTo("5354 10.0.2.2 again a");
                // Each client's mapping holds: interleaved datagrams go back to their own sender.
                for (int i = 0; i < 20; i++) {
                    assertThat(exchange(i % 2 == 0 ? a : b, port, "n" + i, stack)).isEqualTo("5353 10.0.2.2 n" + i);
                }
                byte[] big = new byte[8000]; // more than the MTU: fragmented toward the guest, reassembled from it
                java.util.Arrays.fill(big, (byte) 'x');
                assertThat(exchange(a, port, new String(big, StandardCharsets.US_ASCII), stack)).endsWith(new String(big, StandardCharsets.US_ASCII));
                assertThat(stack.alive()).isTrue();
            } finally {
                echo.destroy();
            }
        }
    }

    @Test
    @Timeout(120)
    void udpForwardsThroughTheApiSocketStopWhenRemoved() throws Exception {
        ItEnv.assumeStack(); // slirp4netns forwards UDP through its API too
        int port = freeUdpPortPair();
        Path script = tmp.resolve("echo.py");
        Files.writeString(script, ECHO);
        Path api = tmp.resolve("api.sock");
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--api-socket", api.toString()))) {
            ApiClient.await(api, stack, Duration.ofSeconds(30));
            Process echo = startEcho(ns, script);
            try (DatagramSocket a = client()) {
                assertThat(ApiClient.request(api, "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"udp\",\"host_addr\":\"127.0.0.1\","
                        + "\"host_port\":" + port + ",\"guest_port\":5354}}")).isEqualTo("{\"return\":{\"id\":1}}");
                assertThat(exchange(a, port, "hello", stack)).isEqualTo("5354 10.0.2.2 hello");
                assertThat(ApiClient.request(api, "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}")).isEqualTo("{\"return\":{}}");
                a.setSoTimeout(300);
                for (int i = 0; i < 3; i++) {
                    send(a, port, "after remove");
                    try {
                        DatagramPacket p = new DatagramPacket(new byte[100], 100);
                        a.receive(p);
                        throw new AssertionError("answered after remove_hostfwd: " + new String(p.getData(), 0, p.getLength()));
                    } catch (SocketTimeoutException | java.net.PortUnreachableException expected) {
                        // nobody listens on the host port any more
                    }
                }
            } finally {
                echo.destroy();
            }
        }
    }

    private static Process startEcho(Namespace ns, Path script) throws IOException {
        return new ProcessBuilder(ns.inside(List.of(ItEnv.python(), script.toString())))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static DatagramSocket client() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(200);
        return s;
    }

    private static void send(DatagramSocket s, int port, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        s.send(new DatagramPacket(b, b.length, InetAddress.getLoopbackAddress(), port));
    }

    /**
     * Sends text until an answer comes (the first datagrams may find the server not started yet
     * or the guest's MAC not learnt yet) and returns it.
     */
    private static String exchange(DatagramSocket s, int port, String text, Stack.Running stack) throws IOException {
        for (int i = 0; i < 100; i++) {
            send(s, port, text);
            try {
                DatagramPacket p = new DatagramPacket(new byte[65535], 65535);
                s.receive(p);
                return new String(p.getData(), 0, p.getLength(), StandardCharsets.US_ASCII);
            } catch (SocketTimeoutException | java.net.PortUnreachableException retry) {
                // again
            }
        }
        throw new AssertionError("no answer to " + text.substring(0, Math.min(40, text.length())) + ":\n" + stack.describe());
    }

    /** A host UDP port whose successor is free too. */
    private static int freeUdpPortPair() throws IOException {
        for (int i = 0; i < 50; i++) {
            try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                int p = a.getLocalPort();
                if (p >= 65535) continue;
                try (DatagramSocket b = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), p + 1))) {
                    return p;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no pair of free UDP ports");
    }
}
