package io.jslirp.examples;

import io.jslirp.embed.UserNetwork;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * jslirp embedded in a Java program: a guest made of hand-built frames ({@link TinyGuest}) opens a
 * TCP connection to the gateway 10.0.2.2, which the network carries to an echo server on the
 * host's 127.0.0.1, and prints what comes back. Run it with
 * {@code java --enable-native-access=ALL-UNNAMED -cp target/jslirp.jar:target/test-classes io.jslirp.examples.EmbedExample}.
 */
public final class EmbedExample {
    public static void main(String[] args) throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> echoOnce(echo));

            TinyGuest guest = new TinyGuest("10.0.2.100", "10.0.2.2", Duration.ofSeconds(5));
            try (UserNetwork network = UserNetwork.builder().mtu(1500).build(guest.link())) {
                network.start();
                guest.connect(40000, echo.getLocalPort());
                byte[] hello = "hello through jslirp".getBytes(StandardCharsets.US_ASCII);
                guest.write(hello);
                System.out.println("echoed: " + new String(guest.read(hello.length), StandardCharsets.US_ASCII));
                guest.close();
                guest.awaitClose();
                network.stop();
                System.out.println("counters: " + network.counters());
            }
        }
    }

    /** Echoes one client's bytes until it closes, then closes. */
    static void echoOnce(ServerSocket server) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            byte[] b = new byte[4096];
            for (int n; (n = in.read(b)) > 0; ) s.getOutputStream().write(b, 0, n);
        } catch (IOException e) {
            System.err.println("echo server: " + e);
        }
    }
}
