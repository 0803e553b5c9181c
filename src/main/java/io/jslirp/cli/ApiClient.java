package io.jslirp.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The client side of the API socket, for {@code jslirp forward} and {@code jslirp status}. */
final class ApiClient {
    private ApiClient() {
    }

    /**
     * One request on its own connection, the client's side shut down after it, the whole reply.
     * Throws IllegalArgumentException (one line) when nothing listens at path.
     */
    static String exchange(Path path, String request) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try {
                ch.connect(UnixDomainSocketAddress.of(path));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot connect to the API socket " + path + ": " + whyNot(path, e));
            }
            ch.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.UTF_8)));
            ch.shutdownOutput();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(4096);
            while (ch.read(buf.clear()) > 0) reply.write(buf.array(), 0, buf.position());
            return reply.toString(StandardCharsets.UTF_8);
        }
    }

    /** Why a connect failed, in the user's terms: not a socket, or a socket nothing serves any more. */
    private static String whyNot(Path path, IOException e) {
        String m = Main.oneLine(e);
        if (!m.contains("Connection refused")) return m;
        try {
            var attrs = java.nio.file.Files.readAttributes(path, java.nio.file.attribute.PosixFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isOther()) return "it is not a socket";
        } catch (IOException | UnsupportedOperationException ignored) {
            return m;
        }
        return m + " (nothing serves it: the instance that made it has ended)";
    }
}
