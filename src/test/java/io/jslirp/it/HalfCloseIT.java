package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract item 7: half-close. The guest (ncat) sends 1 MiB and shuts down writing; the host server
 * reads to EOF, then answers with the sha256 of what it got plus 256 KiB and closes. Every byte
 * must cross both ways and both sides must see EOF (ncat exits 0).
 */
class HalfCloseIT {
    static final int UP = (int) Blob.MIB;
    static final int TAIL = 256 * 1024;

    @TempDir
    Path tmp;

    record Seen(String sha256, long bytes) {}

    @Test
    @Timeout(120)
    void bothDirectionsCompleteAfterGuestShutdownWrite() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ncat", "bash");
        Path in = tmp.resolve("in.bin");
        Path out = tmp.resolve("out.bin");
        Blob.writeFile(in, 77, UP);
        byte[] tail = Blob.bytes(78, TAIL);

        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            CompletableFuture<Seen> seen = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    MessageDigest md = Blob.sha256();
                    long n = 0;
                    byte[] buf = new byte[64 * 1024];
                    InputStream is = s.getInputStream();
                    for (int r; (r = is.read(buf)) >= 0; ) { // until the guest's FIN
                        md.update(buf, 0, r);
                        n += r;
                    }
                    String hex = HexFormat.of().formatHex(md.digest());
                    OutputStream os = s.getOutputStream();
                    os.write((hex + "\n").getBytes(StandardCharsets.US_ASCII));
                    os.write(tail);
                    os.flush();
                    return new Seen(hex, n);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Cmd.Result r = ns.bash(Duration.ofSeconds(60),
                    "ncat " + Namespace.GATEWAY + " " + server.getLocalPort() + " < " + in + " > " + out);
            assertThat(r.exit()).as("ncat must see EOF and exit 0\n%s\n%s", r, stack.describe()).isZero();
            Seen s = seen.get(30, TimeUnit.SECONDS);
            String expected = Blob.sha256(Blob.bytes(77, UP));
            assertThat(s).as("what the host read before EOF").isEqualTo(new Seen(expected, UP));

            ByteArrayOutputStream want = new ByteArrayOutputStream();
            want.write((expected + "\n").getBytes(StandardCharsets.US_ASCII));
            want.write(tail);
            byte[] got = Files.readAllBytes(out);
            assertThat(got.length).as("bytes the guest received").isEqualTo(want.size());
            assertThat(Blob.sha256(got)).isEqualTo(Blob.sha256(want.toByteArray()));
        }
    }
}
