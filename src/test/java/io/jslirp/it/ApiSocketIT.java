package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * slirp4netns's API socket ({@code --api-socket PATH}): forwards added, listed and removed while
 * the stack runs, bad requests answered and survived, and the reply bytes compared with
 * slirp4netns 1.2's for the same request sequence.
 */
class ApiSocketIT {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void forwardsAddedAtRunTimeCarryTrafficUntilRemoved() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ncat");
        int port = freePort();
        Path api = tmp.resolve("api.sock");
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--api-socket", api.toString()))) {
            ApiClient.await(api, stack, Duration.ofSeconds(30));
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) { // slirp4netns leaves the mode to the umask
                assertThat(Files.getPosixFilePermissions(api)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            }
            Process echo = new ProcessBuilder(ns.inside(List.of("ncat", "-l", "-k", "8080", "-e", "/bin/cat")))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try {
                String added = ApiClient.request(api, "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\","
                        + "\"host_port\":" + port + ",\"guest_port\":8080}}");
                assertThat(added).isEqualTo("{\"return\":{\"id\":1}}");
                assertThat(ApiClient.request(api, "{\"execute\":\"list_hostfwd\"}")).isEqualTo("{\"entries\":[{\"id\":1,\"proto\":\"tcp\","
                        + "\"host_addr\":\"127.0.0.1\",\"host_port\":" + port + ",\"guest_addr\":\"10.0.2.100\",\"guest_port\":8080}]}");

                // Bad requests get their error and the daemon keeps serving.
                assertThat(ApiClient.request(api, "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":" + port
                        + ",\"host_addr\":\"127.0.0.1\",\"guest_port\":80}}"))
                        .isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: slirp_add_hostfwd failed\"}}");
                assertThat(ApiClient.request(api, "{\"execute\":\"nope\"}")).isEqualTo("{\"error\":{\"desc\":\"bad request: unknown execute\"}}");
                assertThat(ApiClient.request(api, "not json")).isEqualTo("{\"error\":{\"desc\":\"bad request: cannot parse JSON\"}}");
                assertThat(ApiClient.request(api, new byte[100_000])).isEqualTo("{\"error\":{\"desc\":\"bad request: too large message\"}}");
                assertThat(ApiClient.request(api, "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":7}}"))
                        .isEqualTo("{\"error\":{\"desc\":\"bad request: remove_hostfwd: bad arguments.id\"}}");

                try (Socket before = connectWhenListening(port, stack)) {
                    assertThat(echo(before, "first")).isEqualTo("first");
                    assertThat(ApiClient.request(api, "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}")).isEqualTo("{\"return\":{}}");
                    assertThat(ApiClient.request(api, "{\"execute\":\"list_hostfwd\"}")).isEqualTo("{\"entries\":[]}");
                    // The connection made through the forward carries on; new ones are refused.
                    assertThat(echo(before, "second")).isEqualTo("second");
                    try (Socket after = new Socket()) {
                        after.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                        throw new AssertionError("connected after remove_hostfwd");
                    } catch (ConnectException expected) {
                        // refused
                    }
                }
                assertThat(stack.alive()).as(stack.describe()).isTrue();
            } finally {
                echo.destroy();
            }
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) {
                stack.stop();
                // a sandboxed instance cannot reach the file: it stays, stale, for the next one to replace
                if (!Stack.SANDBOXED) assertThat(api).as("socket file removed on exit").doesNotExist();
            }
        }
    }

    /** {@code jslirp forward add|list|remove} prints the replies of the stack's API socket (either stack's). */
    @Test
    @Timeout(120)
    void theForwardCommandIsAClientOfTheSocket() throws Exception {
        ItEnv.assumeStack();
        assumeTrue(Stack.Kind.JSLIRP.installed(), "the client is jslirp's");
        int port = freePortPair();
        Path api = tmp.resolve("api.sock");
        String jslirp = Stack.Kind.JSLIRP.executable();
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--api-socket", api.toString()))) {
            ApiClient.await(api, stack, Duration.ofSeconds(30));
            Cmd.Result add = Cmd.run(T, jslirp, "forward", "add", "--api-socket", api.toString(), port + "-" + (port + 1) + ":80-81");
            assertThat(add.exit()).as("%s", add).isZero();
            assertThat(add.out()).isEqualTo("{\"return\":{\"id\":1}}\n{\"return\":{\"id\":2}}\n");
            Cmd.Result again = Cmd.run(T, jslirp, "forward", "add", "-a", api.toString(), "--udp", "--guest-addr", "10.0.2.100",
                    "0.0.0.0/" + port);
            assertThat(again.out()).isEqualTo("{\"return\":{\"id\":3}}\n");
            Cmd.Result list = Cmd.run(T, jslirp, "forward", "list", "--api-socket", api.toString());
            assertThat(list.out()).isEqualTo("{\"entries\":["
                    + "{\"id\":1,\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":" + port + ",\"guest_addr\":\"10.0.2.100\",\"guest_port\":80},"
                    + "{\"id\":2,\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":" + (port + 1) + ",\"guest_addr\":\"10.0.2.100\",\"guest_port\":81},"
                    + "{\"id\":3,\"proto\":\"udp\",\"host_addr\":\"0.0.0.0\",\"host_port\":" + port + ",\"guest_addr\":\"10.0.2.100\",\"guest_port\":" + port + "}]}\n");
            Cmd.Result remove = Cmd.run(T, jslirp, "forward", "remove", "--api-socket", api.toString(), "2", "9");
            assertThat(remove.exit()).as("an error reply makes the exit status 1").isEqualTo(1);
            assertThat(remove.out()).isEqualTo("{\"return\":{}}\n{\"error\":{\"desc\":\"bad request: remove_hostfwd: bad arguments.id\"}}\n");
            Cmd.Result gone = Cmd.run(T, jslirp, "forward", "list", "--api-socket", tmp.resolve("nothing.sock").toString());
            assertThat(gone.exit()).isEqualTo(1);
            assertThat(gone.err().strip()).startsWith("jslirp: cannot connect to the API socket").doesNotContain("\n");
        }
    }

    private static final Duration T = Duration.ofSeconds(60);

    /** The same requests to slirp4netns 1.2 and to jslirp get the same reply bytes. */
    @Test
    @Timeout(180)
    void repliesEqualSlirp4netnsByteForByte() throws Exception {
        ItEnv.assumeRootAndTun();
        assumeTrue(Stack.Kind.JSLIRP.installed() && Stack.Kind.SLIRP4NETNS.installed(), "needs both jslirp and slirp4netns");
        int port = freePort();
        List<String> requests = requestSequence(port);
        List<String> reference = replies(Stack.Kind.SLIRP4NETNS, requests);
        List<String> ours = replies(Stack.Kind.JSLIRP, requests);
        for (int i = 0; i < requests.size(); i++) {
            String shown = requests.get(i).length() > 200 ? requests.get(i).substring(0, 200) + "..." : requests.get(i);
            assertThat(ours.get(i)).as("reply to %s", shown).isEqualTo(reference.get(i));
        }
    }

    /**
     * With --enable-ipv6 too, slirp4netns 1.2 refuses IPv6 host and guest addresses (its API
     * parses them as IPv4): jslirp answers the same, though -t/-u take IPv6 host addresses.
     */
    @Test
    @Timeout(180)
    void ipv6AddressesAreRefusedAsSlirp4netnsRefusesThemWithIpv6On() throws Exception {
        ItEnv.assumeRootAndTun();
        assumeTrue(Stack.Kind.JSLIRP.installed() && Stack.Kind.SLIRP4NETNS.installed(), "needs both jslirp and slirp4netns");
        int port = freePort();
        List<String> requests = new ArrayList<>();
        for (String args : List.of("\"proto\":\"tcp\",\"host_addr\":\"::1\"", "\"proto\":\"udp\",\"host_addr\":\"::\"",
                "\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"guest_addr\":\"fd00::100\"",
                "\"proto\":\"tcp\",\"host_addr\":\"::1\",\"guest_addr\":\"10.0.2.100\"")) {
            requests.add("{\"execute\":\"add_hostfwd\",\"arguments\":{" + args + ",\"host_port\":" + port + ",\"guest_port\":80}}");
        }
        requests.add("{\"execute\":\"list_hostfwd\"}");
        Stack.Options options = Stack.Options.configured().enableIpv6();
        List<String> reference = replies(Stack.Kind.SLIRP4NETNS, requests, options);
        assertThat(reference.getFirst()).isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: bad arguments.host_addr\"}}");
        assertThat(replies(Stack.Kind.JSLIRP, requests, Stack.Options.configured().enableIpv6())).isEqualTo(reference);
    }

    private static List<String> requestSequence(int port) {
        String add = "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":" + port
                + ",\"guest_port\":80}}";
        List<String> r = new ArrayList<>();
        r.add("{\"execute\":\"list_hostfwd\"}");
        r.add(add);
        r.add(add); // the port is taken
        r.add("{\"execute\": \"add_hostfwd\", \"arguments\": {\"proto\": \"udp\", \"host_addr\": \"127.0.0.1\", \"host_port\": " + port
                + ", \"guest_addr\": \"10.0.2.100\", \"guest_port\": 53}}\n");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"\",\"host_port\":" + (port + 1)
                + ",\"guest_addr\":\"\",\"guest_port\":8081.9}}");
        r.add("{\"execute\":\"list_hostfwd\"}");
        r.add("{");
        r.add("");
        r.add("[1]");
        r.add("{}");
        r.add("{\"execute\":42}");
        r.add("{\"execute\":\"add_hostfwd\",\"execute\":\"list_hostfwd\"}");
        r.add("{\"execute\":\"list_hostfwd\"} and more");
        r.add("{\"execute\":\"execute\"}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"sctp\",\"host_port\":1,\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"::1\",\"host_port\":1,\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"10.0.2\",\"host_port\":1,\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":\"8080\",\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":" + (port + 2) + ",\"guest_addr\":\"x\",\"guest_port\":1}}");
        r.add("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":" + (port + 2) + "}}");
        r.add("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":99}}");
        r.add("{\"execute\":\"remove_hostfwd\"}");
        r.add("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":\"1\"}}");
        r.add("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1.5}}");
        r.add("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}");
        r.add("{\"execute\":\"list_hostfwd\"}" + " ".repeat(4095 - 26)); // 4095 bytes: the largest request
        r.add("{\"execute\":\"list_hostfwd\"}" + " ".repeat(4096 - 26));
        r.add("x".repeat(20_000));
        r.add(add); // the removed forward's port is free again
        r.add("{\"execute\":\"list_hostfwd\"}");
        return r;
    }

    private static List<String> replies(Stack.Kind kind, List<String> requests) throws IOException {
        return replies(kind, requests, Stack.Options.configured());
    }

    private static List<String> replies(Stack.Kind kind, List<String> requests, Stack.Options options) throws IOException {
        Path dir = Files.createTempDirectory("jslirp-api-it");
        Path api = dir.resolve("api.sock");
        List<String> replies = new ArrayList<>();
        try (Namespace ns = Namespace.createWithIpv6();
             Stack.Running stack = Stack.start(Stack.attachCommand(kind, options.extra("--api-socket", api.toString()),
                     Long.toString(ns.pid())))) {
            stack.awaitConfigured(ns, "tap0", Duration.ofSeconds(60));
            ApiClient.await(api, stack, Duration.ofSeconds(30));
            for (String r : requests) replies.add(ApiClient.request(api, r));
            assertThat(stack.alive()).as("%s survives the sequence\n%s", kind, stack.describe()).isTrue();
        } finally {
            Files.deleteIfExists(api);
            Files.deleteIfExists(dir.resolve("api.sock.lock")); // left by a sandboxed instance
            Files.deleteIfExists(dir);
        }
        return replies;
    }

    private static String echo(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes());
        out.flush();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[text.length()];
        int n = 0;
        while (n < buf.length) {
            int r = in.read(buf, n, buf.length - n);
            if (r < 0) break;
            n += r;
        }
        return new String(buf, 0, n);
    }

    /** A connection through the forward once the guest's listener answers (ncat may take a moment to start). */
    private static Socket connectWhenListening(int port, Stack.Running stack) throws IOException {
        IOException last = null;
        for (int i = 0; i < 100; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                s.setSoTimeout(10_000);
                if (echo(s, "ping").equals("ping")) return s;
                s.close();
            } catch (IOException e) {
                last = e;
                s.close();
            }
            Namespace.sleep(100);
        }
        throw new AssertionError("no echo through the forward:\n" + stack.describe(), last);
    }

    static int freePort() throws IOException {
        return ItEnv.freePort(InetAddress.getLoopbackAddress());
    }

    /** A TCP port free on every address whose successor is free too (for a range of two). */
    static int freePortPair() throws IOException {
        for (int i = 0; i < 50; i++) {
            try (ServerSocket a = new ServerSocket(0, 1)) {
                int p = a.getLocalPort();
                if (p >= 65535) continue;
                try (ServerSocket b = new ServerSocket(p + 1, 1)) {
                    return p;
                } catch (IOException taken) {
                    // another machine-wide user of the next port: try again
                }
            }
        }
        throw new IOException("no pair of free TCP ports");
    }
}
