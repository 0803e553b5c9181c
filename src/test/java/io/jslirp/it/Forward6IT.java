package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forwards of IPv6 host addresses ({@code -t ::1/PORT:GUESTPORT}, {@code -u}): a host client on
 * ::1 reaches servers in the guest over IPv6, from the gateway fd00::2, or over IPv4 from
 * 10.0.2.2 without {@code --enable-ipv6}; with {@code --preserve-source}, a client in a namespace
 * made here, joined by a veth pair to the stack's host side, reaches the guest from its own IPv6
 * address. The guest's servers answer each client with the address and port they see.
 */
class Forward6IT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final String HOST_SIDE = "2001:db8:77::1", CLIENT = "2001:db8:77::77";

    @TempDir
    Path tmp;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("-t and -u are jslirp's");
        ItEnv.assumeTools(ItEnv.python(), "ip", "nft");
    }

    static int freePort6() throws IOException {
        return ItEnv.freePort(InetAddress.getByName("::1"));
    }

    /** A file server on [::]:8080 in the guest and a client on the host's ::1: what crossed is checked. */
    @Test
    @Timeout(120)
    void aClientOnIpv6LoopbackDownloadsFromTheGuest() throws Exception {
        ItEnv.assumeTools("curl", "sha256sum", "bash");
        Path www = Files.createDirectories(tmp.resolve("www"));
        long seed = 66, size = 8 * Blob.MIB;
        Blob.writeFile(www.resolve("blob"), seed, size);
        int explicitPort = freePort6(), defaultPort = freePort6();
        try (Namespace ns = Namespace.createWithIpv6()) {
            Process server = new ProcessBuilder(ns.inside(List.of(ItEnv.python(), "-m", "http.server", "8080",
                    "--bind", "::", "--directory", www.toString())))
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("http.log").toFile()).start();
            Stack.Options options = Stack.Options.configured().enableIpv6()
                    .extra("-t", "::1/" + explicitPort + ":8080", "-t", defaultPort + ":8080");
            try (Stack.Running stack = Stack.attach(ns, options)) {
                Ipv6IT.awaitSlaac(ns, stack);
                for (int port : new int[] {explicitPort, defaultPort}) { // the second: a forward without ADDR listens on ::1 too
                    String url = "http://[::1]:" + port + "/blob";
                    Cmd.Result r = null;
                    for (int i = 0; i < 50; i++) { // until the server in the namespace listens
                        r = Cmd.run(T, "bash", "-c", "set -o pipefail; curl -g -sS --fail --max-time 20 '" + url + "' | sha256sum");
                        if (r.exit() == 0) break;
                        Namespace.sleep(100);
                    }
                    assertThat(r.exit()).as("%s\n%s\n%s", r, stack.describe(), Files.readString(tmp.resolve("http.log"))).isZero();
                    assertThat(r.out()).startsWith(Blob.sha256(seed, size));
                }
                assertThat(Files.readString(tmp.resolve("http.log"))).as("the guest saw the gateway's IPv6 address")
                        .contains("fd00::2 - -");
            } finally {
                server.destroy();
            }
        }
    }

    /** The guest sees ::1's clients from fd00::2 over IPv6, and over IPv4 from 10.0.2.2 without --enable-ipv6. */
    @Test
    @Timeout(120)
    void loopbackClientsComeFromTheGateway() throws Exception {
        assertThat(probeFromLoopback(true)).containsPattern("tcp fd00::2:\\d+ own port").containsPattern("udp fd00::2:\\d+ own port \\d+ echo True");
        assertThat(probeFromLoopback(false)).containsPattern("tcp ::ffff:10\\.0\\.2\\.2:\\d+ own port")
                .containsPattern("udp ::ffff:10\\.0\\.2\\.2:\\d+ own port \\d+ echo True");
    }

    private String probeFromLoopback(boolean ipv6) throws Exception {
        int tcpPort = freePort6(), udpPort = freePort6();
        try (Namespace ns = Namespace.createWithIpv6()) {
            Process p = ForwardedClients.startServers(tmp, ns);
            Stack.Options options = Stack.Options.configured().extra("-t", "::1/" + tcpPort + ":80", "-u", "::1/" + udpPort + ":53");
            if (ipv6) options.enableIpv6();
            try (Stack.Running stack = Stack.attach(ns, options)) {
                if (ipv6) Ipv6IT.awaitSlaac(ns, stack);
                ForwardedClients.awaitReady(tmp);
                Cmd.Result r = RemoteClient.retry(() -> Cmd.run(T, ItEnv.python(), "-c", ForwardedClients.CLIENT_PROBE, "::1", Integer.toString(tcpPort),
                        Integer.toString(udpPort)));
                assertThat(r.exit()).as("%s\n%s\n%s", r, stack.describe(), Files.readString(tmp.resolve("guest_servers.log"))).isZero();
                System.out.printf("[forward6 ipv6=%s] %s%n", ipv6, r.out().strip().replace('\n', ','));
                return r.out();
            } finally {
                p.destroy();
            }
        }
    }

    @Test
    @Timeout(180)
    void forwardedClientsKeepTheirIpv6AddressWithPreserveSource() throws Exception {
        String preserved = ForwardedClients.probeFromElsewhere(tmp, true, HOST_SIDE, CLIENT, true);
        String c = CLIENT.replace(".", "\\.");
        assertThat(preserved).containsPattern("remote tcp " + c + ":(\\d+) own port \\1\\b")
                .containsPattern("remote udp " + c + ":(\\d+) own port \\1 echo True")
                .as("a loopback client cannot be answered at ::1: it comes from the gateway")
                .contains("loopback tcp fd00::2:").contains("loopback udp fd00::2:");
        String mapped = ForwardedClients.probeFromElsewhere(tmp, true, HOST_SIDE, CLIENT, false);
        assertThat(mapped).contains("remote tcp fd00::2:").contains("remote udp fd00::2:").doesNotContain(CLIENT);
    }
}
