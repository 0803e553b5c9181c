package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jslirp status}: with connections held open through jslirp after a known number of bytes
 * crossed them, the table shows each with its ports, state and byte counts: one the guest opened,
 * one a host client opened through a forwarded port, and a UDP flow; then the counters.
 */
class StatusIT {
    private static final int UPLOAD = 100_000, DOWNLOAD = 250_000, ECHOED = 3_000;
    private static final String GUEST = "10.0.2.100";
    private static final Duration T = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void showsOpenFlowsWithTheirBytesThenTheCounters() throws Exception {
        ItEnv.assumeJslirp("status is jslirp's");
        ItEnv.assumeTools("ncat");
        Path api = tmp.resolve("api.sock");
        List<Process> guests = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Namespace ns = Namespace.create()) {
            int tcpPort = server.getLocalPort(), udpPort = udp.getLocalPort(), forwardPort = freePort();
            try (Stack.Running stack = Stack.attach(ns, Stack.Options.configured()
                    .extra("--api-socket", api.toString(), "-t", forwardPort + ":8080"))) {
                ApiClient.await(api, stack, T);
                // The guest opens a connection, uploads UPLOAD bytes, gets DOWNLOAD back and keeps it open.
                guests.add(start(ns, "(head -c " + UPLOAD + " /dev/zero; sleep 100) | ncat -p 40123 " + Namespace.GATEWAY + " " + tcpPort
                        + " > /dev/null"));
                Socket accepted = server.accept();
                accepted.getInputStream().readNBytes(UPLOAD);
                accepted.getOutputStream().write(new byte[DOWNLOAD]);
                // A UDP flow: 5 bytes out, 7 back.
                guests.add(start(ns, "(printf hello; sleep 100) | ncat -u -p 40124 " + Namespace.GATEWAY + " " + udpPort + " > /dev/null"));
                DatagramPacket p = new DatagramPacket(new byte[100], 100);
                udp.receive(p);
                assertThat(p.getLength()).isEqualTo(5);
                udp.send(new DatagramPacket("welcome".getBytes(), 7, p.getSocketAddress()));
                // A host client of the forwarded port, ECHOED bytes each way through the guest's echo server.
                guests.add(start(ns, "ncat -l -k 8080 -e /bin/cat"));
                Socket client = echoedThroughForward(forwardPort, stack);

                String[] out = null, in = null, flow = null;
                String table = "";
                for (int i = 0; i < 100; i++) {
                    Cmd.Result r = Cmd.run(T, Stack.Kind.JSLIRP.executable(), "status", "--api-socket", api.toString());
                    assertThat(r.exit()).as("%s", r).isZero();
                    table = r.out();
                    out = row(table, "tcp", GUEST + ":40123");
                    in = row(table, "tcp", GUEST + ":8080");
                    flow = row(table, "udp", GUEST + ":40124");
                    if (out != null && out[7].equals(Integer.toString(DOWNLOAD)) && out[9].equals("0") && in != null && in[7].equals(Integer.toString(ECHOED))
                            && flow != null && flow[7].equals("7")) {
                        break;
                    }
                    Namespace.sleep(100);
                }
                assertThat(table.lines().findFirst().orElse("").split(" +"))
                        .containsExactly("Kind", "State", "Dir", "Guest", "Remote", "Host", "Sent", "Received", "ToHost-Q", "ToGuest-Q", "Age");
                assertThat(out).as(table).containsExactly("tcp", "ESTABLISHED", "out", GUEST + ":40123", Namespace.GATEWAY + ":" + tcpPort,
                        "127.0.0.1:" + tcpPort, Integer.toString(UPLOAD), Integer.toString(DOWNLOAD), "0", "0", out[10]);
                // (both queues empty: the host peer's kernel acknowledged the upload, the guest the download)
                assertThat(in).as(table).startsWith("tcp", "ESTABLISHED", "in", GUEST + ":8080");
                assertThat(in[4]).as(table).startsWith(Namespace.GATEWAY + ":"); // the gateway port the guest sees
                assertThat(Arrays.copyOfRange(in, 5, 8)).as(table)
                        .containsExactly("127.0.0.1:" + client.getLocalPort(), Integer.toString(ECHOED), Integer.toString(ECHOED));
                assertThat(flow).as(table).containsExactly("udp", "open", "out", GUEST + ":40124", Namespace.GATEWAY + ":" + udpPort,
                        "127.0.0.1:" + udpPort, "5", "7", "0", "0", flow[10]);
                assertThat(out[10]).matches("\\d+s");
                assertThat(table).containsPattern("(?m)^frames_in +[1-9]\\d*$").containsPattern("(?m)^refused_at_limit +0$")
                        .containsPattern("(?m)^open_tcp_connections +2$").containsPattern("(?m)^tcp_window_waiting +0$")
                        .containsPattern("(?m)^tcp_window_holders +[0-2]$");

                // --json prints get_status's reply: the same figures, machine-readable.
                Cmd.Result json = Cmd.run(T, Stack.Kind.JSLIRP.executable(), "status", "--api-socket", api.toString(), "--json");
                JsonNode reply = new ObjectMapper().readTree(json.out()).path("return");
                JsonNode mine = null;
                for (JsonNode c : reply.path("connections")) if (c.path("guest_port").asInt() == 40123) mine = c;
                assertThat(mine).as(json.out()).isNotNull();
                assertThat(mine.path("bytes_from_guest").asLong()).isEqualTo(UPLOAD);
                assertThat(mine.path("bytes_to_guest").asLong()).isEqualTo(DOWNLOAD);
                assertThat(mine.path("queued_to_host").isNumber() && mine.path("queued_to_guest").isNumber()).as(json.out()).isTrue();
                assertThat(reply.path("counters").path("frames_out").asLong()).isPositive();
                client.close();
                accepted.close();
            } finally {
                guests.forEach(g -> Cmd.killTree(g.toHandle()));
            }
        }
    }

    /** An IPv6 connection is listed with its addresses in brackets: the guest's, fd00::2 and the host's ::1. */
    @Test
    @Timeout(120)
    void showsIpv6FlowsInBrackets() throws Exception {
        ItEnv.assumeJslirp("status is jslirp's");
        ItEnv.assumeTools("ncat");
        Path api = tmp.resolve("api6.sock");
        Process guest = null;
        try (ServerSocket server = new ServerSocket(0, 1, Ipv6IT.LOOPBACK6);
             Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().enableIpv6().extra("--api-socket", api.toString()))) {
            ApiClient.await(api, stack, T);
            Ipv6IT.awaitSlaac(ns, stack);
            int port = server.getLocalPort();
            guest = start(ns, "(head -c 1000 /dev/zero; sleep 100) | ncat -6 -p 40125 fd00::2 " + port + " > /dev/null");
            Socket accepted = server.accept();
            accepted.getInputStream().readNBytes(1000);
            accepted.getOutputStream().write(new byte[2000]);
            String[] row = null;
            String table = "";
            for (int i = 0; i < 100 && (row == null || !row[7].equals("2000")); i++) {
                Namespace.sleep(100);
                table = Cmd.run(T, Stack.Kind.JSLIRP.executable(), "status", "--api-socket", api.toString()).out();
                row = table.lines().map(l -> l.split(" +")).filter(c -> c.length == 11 && c[3].endsWith("]:40125")).findFirst().orElse(null);
            }
            assertThat(row).as(table).isNotNull();
            assertThat(row[3]).as(table).startsWith("[fd00::");
            assertThat(Arrays.copyOfRange(row, 0, 3)).containsExactly("tcp", "ESTABLISHED", "out");
            assertThat(Arrays.copyOfRange(row, 4, 8)).as(table).containsExactly("[fd00::2]:" + port, "[::1]:" + port, "1000", "2000");
            accepted.close();
        } finally {
            if (guest != null) Cmd.killTree(guest.toHandle());
        }
    }

    /** The status line of the flow of protocol with the guest's end, split in columns, or null. */
    private static String[] row(String table, String protocol, String guestEnd) {
        return table.lines().map(l -> l.split(" +")).filter(c -> c.length == 11 && c[0].equals(protocol) && c[3].equals(guestEnd))
                .findFirst().orElse(null);
    }

    private static Process start(Namespace ns, String script) throws IOException {
        return new ProcessBuilder(ns.inside(List.of("sh", "-c", script))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** A connection to the forwarded port that echoed ECHOED bytes, once the guest's server listens. */
    private static Socket echoedThroughForward(int port, Stack.Running stack) throws IOException {
        for (int i = 0; i < 100; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setSoTimeout(5000);
            try {
                s.getOutputStream().write(new byte[ECHOED]);
                InputStream in = s.getInputStream();
                if (in.readNBytes(ECHOED).length == ECHOED) return s;
            } catch (IOException notYet) {
                // reset: the guest's server is not listening yet
            }
            s.close();
            Namespace.sleep(100);
        }
        throw new AssertionError("the forwarded port never echoed\n" + stack.describe());
    }

    private static int freePort() throws IOException {
        return ItEnv.freePort(InetAddress.getLoopbackAddress());
    }
}
