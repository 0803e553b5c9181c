package io.jslirp.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** One request to a slirp4netns-style API socket: the request's bytes, the client's half-close, the reply's bytes. */
final class ApiClient {
    private ApiClient() {}

    static String request(Path socket, String request) throws IOException {
        return request(socket, request.getBytes(StandardCharsets.UTF_8));
    }

    /** The reply's bytes as ISO-8859-1 text; what arrived before a reset if the server resets (oversized requests). */
    static String request(Path socket, byte[] request) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            try {
                ch.write(ByteBuffer.wrap(request));
                ch.shutdownOutput();
            } catch (IOException closedEarly) {
                // the server answered and closed before taking everything: read its reply
            }
            ByteBuffer buf = ByteBuffer.allocate(8192);
            try {
                while (ch.read(buf.clear()) > 0) reply.write(buf.array(), 0, buf.position());
            } catch (IOException reset) {
                // unread request bytes make the server's close a reset, after its reply
            }
            return reply.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** Waits until the socket accepts connections. */
    static void await(Path socket, Stack.Running stack, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(socket)) {
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(socket));
                    return; // the server reads an empty request and answers it; that costs nothing
                } catch (IOException notYet) {
                    // bound but not listening yet
                }
            }
            if (!stack.alive()) throw new AssertionError("stack exited before its API socket was up:\n" + stack.describe());
            Namespace.sleep(50);
        }
        throw new AssertionError("API socket " + socket + " not up in time:\n" + stack.describe());
    }
}
