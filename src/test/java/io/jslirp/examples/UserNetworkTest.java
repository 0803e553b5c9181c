package io.jslirp.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.embed.MemoryLink;
import io.jslirp.embed.UserNetwork;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The library through its public API only ({@code io.jslirp.embed}): a guest of hand-built frames
 * on an in-memory link connects to the gateway, reaches an echo server on the host's 127.0.0.1
 * and gets its bytes back; no root, no namespace.
 */
class UserNetworkTest {
    @Test
    @Timeout(60)
    void aTcpConnectionThroughAnInMemoryLinkIsEchoedByAHostServer() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int[] accepted = new int[1];
            Thread server = Thread.ofVirtual().start(() -> {
                try (Socket s = echo.accept()) {
                    accepted[0] = s.getPort();
                    InputStream in = s.getInputStream();
                    byte[] b = new byte[4096];
                    for (int n, total = 0; total < 10 * 1000 && (n = in.read(b)) > 0; total += n) s.getOutputStream().write(b, 0, n);
                    // then the host closes first: the guest sees our FIN
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            TinyGuest guest = new TinyGuest("10.0.2.100", "10.0.2.2", Duration.ofSeconds(10));
            UserNetwork network = UserNetwork.builder().build(guest.link());
            assertThat(network.gateway()).isEqualTo("10.0.2.2");
            assertThat(network.guestAddress()).isEqualTo("10.0.2.100");
            try (network) {
                network.start();
                guest.connect(40000, echo.getLocalPort());
                Random random = new Random(9);
                for (int round = 0; round < 10; round++) {
                    byte[] sent = new byte[1000];
                    random.nextBytes(sent);
                    guest.write(sent);
                    assertThat(guest.read(sent.length)).as("round %d", round).isEqualTo(sent);
                }
                server.join(10_000);
                guest.awaitClose();
                guest.close();
                assertThat(accepted[0]).as("the host saw a client on loopback").isPositive();
            }
            Map<String, Long> counters = network.counters();
            assertThat(counters).containsEntry("tcp_connections", 1L).containsEntry("malformed", 0L).containsEntry("send_dropped", 0L);
            assertThat(counters.get("frames_in")).isGreaterThanOrEqualTo(13); // SYN, ACK, 10 data, 10 ACKs, FIN
            assertThat(counters.get("frames_out")).isGreaterThanOrEqualTo(12);
            assertThat(guest.link().fromGuest(ByteBuffer.allocate(60))).as("a stopped network takes no frames").isFalse();
            assertThatThrownBy(network::start).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aBadConfigurationFailsAtBuild() {
        MemoryLink link = new MemoryLink(frame -> { });
        assertThatThrownBy(() -> UserNetwork.builder().mtu(20).build(link)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MTU");
        assertThatThrownBy(() -> UserNetwork.builder().forwardTcp("nonsense")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNetworkNeverStartedStopsCleanly() {
        UserNetwork network = UserNetwork.builder().build(new MemoryLink(frame -> { }));
        network.stop();
        network.stop();
        assertThat(network.counters()).containsEntry("frames_in", 0L);
    }
}
