package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Port forwarding ({@code -t [ADDR/]PORT[:GUESTPORT]}): a host client on 127.0.0.1 reaches a server
 * in the namespace, through a connection jslirp opens toward the guest from the gateway.
 */
class ForwardIT {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void hostClientsReachAServerInTheGuest() throws Exception {
        ItEnv.assumeJslirp("-t is jslirp's (slirp4netns forwards through its API socket)");
        ItEnv.assumeTools("curl", "sha256sum");
        Path www = Files.createDirectories(tmp.resolve("www"));
        long seed = 77, size = 8 * Blob.MIB;
        Blob.writeFile(www.resolve("blob"), seed, size);
        int hostPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            hostPort = probe.getLocalPort();
        }
        try (Namespace ns = Namespace.create()) {
            Process server = new ProcessBuilder(ns.inside(java.util.List.of("/usr/bin/python3", "-m", "http.server", "8080",
                    "--bind", "0.0.0.0", "--directory", www.toString())))
                    .redirectErrorStream(true).redirectOutput(tmp.resolve("http.log").toFile()).start();
            try (Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("-t", hostPort + ":8080"))) {
                String url = "http://127.0.0.1:" + hostPort + "/blob";
                Cmd.Result r = null;
                for (int i = 0; i < 50; i++) { // until the server in the namespace listens
                    r = Cmd.run(Duration.ofSeconds(30), "bash", "-c", "set -o pipefail; curl -sS --fail --max-time 20 " + url + " | sha256sum");
                    if (r.exit() == 0) break;
                    Namespace.sleep(100);
                }
                assertThat(r.exit()).as("%s\n%s\n%s", r, stack.describe(), Files.readString(tmp.resolve("http.log"))).isZero();
                assertThat(r.out()).startsWith(Blob.sha256(seed, size));
                // Many short connections in a row, as a browser would open them.
                Cmd.Result many = Cmd.run(Duration.ofSeconds(60), "bash", "-c",
                        "for i in $(seq 50); do curl -s -o /dev/null -w '%{http_code}\\n' --max-time 5 " + url + "; done | sort | uniq -c");
                assertThat(many.out().strip()).as("%s\n%s", many, stack.describe()).isEqualTo("50 200");
                assertThat(stack.alive()).isTrue();
            } finally {
                server.destroy();
            }
        }
    }

    /** A forward to a guest port nobody listens on: the host client is reset at once. */
    @Test
    @Timeout(60)
    void aClosedGuestPortResetsTheHostClient() throws Exception {
        ItEnv.assumeJslirp("-t is jslirp's");
        ItEnv.assumeTools("curl");
        int hostPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            hostPort = probe.getLocalPort();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("-t", hostPort + ":9"))) {
            Cmd.Result r = Cmd.run(Duration.ofSeconds(20), "curl", "-sS", "--max-time", "10", "http://127.0.0.1:" + hostPort + "/");
            assertThat(r.exit()).as("%s", r).isIn(7, 52, 56); // refused / empty reply / reset, not a timeout (28)
            assertThat(r.took()).isLessThan(Duration.ofSeconds(5));
        }
    }
}
