package io.jslirp.service;

import io.jslirp.service.TftpFiles;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Tftp;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random and mutated TFTP requests from the guest: the codec never throws, and whatever name a
 * request carries ("..", slashes, NULs, symbolic links, bytes beyond ASCII), the file served is a
 * regular file inside the directory or none. Seeds as in {@code TcpFuzzTest} ({@code scripts/fuzz.sh}).
 */
class TftpFuzzTest {
    private static final String[] PARTS = {"..", ".", "", "/", "//", "boot", "pxelinux.0", "secret", "out", "inside", "dir",
        "dir/..", "\u00e9", "a\u0000b", "%2e%2e", "...", "~"};

    @TempDir
    Path tmp;

    @Test
    void requestsNeverThrowAndServeOnlyFilesInsideTheDirectory() throws IOException {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Files.writeString(root.resolve("pxelinux.0"), "boot");
        Files.createDirectories(root.resolve("dir"));
        Files.writeString(root.resolve("dir/inside"), "inside");
        Files.writeString(tmp.resolve("secret"), "secret");
        Files.createSymbolicLink(root.resolve("out"), tmp);
        Files.createSymbolicLink(root.resolve("inside"), root.resolve("dir/inside"));
        TftpFiles files = new TftpFiles(root);
        Path realRoot = root.toRealPath();
        MemorySegment packet = Arena.ofAuto().allocate(2048);

        long base = Long.getLong("jslirp.fuzz.base", 1);
        int seeds = Integer.getInteger("jslirp.fuzz.seeds", 300);
        int parsed = 0, served = 0;
        for (long seed = base; seed < base + seeds; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = 0; i < 20; i++) {
                int len = request(rnd, packet);
                try {
                    Tftp.Request r = Tftp.parseRequest(packet, 0, len);
                    Tftp.opcode(packet, 0, len);
                    if (r == null) continue;
                    parsed++;
                    TftpFiles.Opened o = files.open(r.filename());
                    if (o.channel() == null) continue;
                    served++;
                    o.channel().close();
                    Path file = realRoot.resolve(r.filename().replaceFirst("^/+", "")).toRealPath();
                    assertThat(file).as("served for %s", r.filename()).startsWith(realRoot);
                    assertThat(Files.readString(file)).isNotEqualTo("secret");
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("fuzz seed " + seed + " (replay: -Djslirp.fuzz.base=" + seed
                            + " -Djslirp.fuzz.seeds=1): " + e.getMessage(), e);
                }
            }
        }
        System.out.printf("TFTP fuzz: %d requests, %d parsed, %d served a file%n", seeds * 20, parsed, served);
        assertThat(served).as("some requests named a file inside the directory").isPositive();
    }

    /** A request in packet, mostly well formed with a random name and options, now and then mangled; returns its length. */
    private static int request(SplittableRandom rnd, MemorySegment packet) {
        StringBuilder name = new StringBuilder(rnd.nextBoolean() ? "/" : "");
        for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
            name.append(PARTS[rnd.nextInt(PARTS.length)]);
            if (rnd.nextBoolean()) name.append('/');
        }
        StringBuilder text = new StringBuilder().append(name).append('\0').append(rnd.nextInt(4) == 0 ? "netascii" : "octet").append('\0');
        if (rnd.nextBoolean()) text.append("blksize\0").append(rnd.nextInt(4) == 0 ? "x" : Integer.toString(rnd.nextInt(-10, 70000))).append('\0');
        if (rnd.nextBoolean()) text.append("tsize\0").append(rnd.nextInt(4) == 0 ? "99999999999999999999" : "0").append('\0');
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        int len = Math.min(2 + body.length, (int) packet.byteSize());
        packet.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
        packet.set(ValueLayout.JAVA_BYTE, 1, (byte) (rnd.nextInt(8) == 0 ? rnd.nextInt(8) : Tftp.RRQ));
        MemorySegment.copy(body, 0, packet, ValueLayout.JAVA_BYTE, 2, len - 2);
        switch (rnd.nextInt(6)) {
            case 0 -> len = rnd.nextInt(len + 1); // cut short, possibly inside a string
            case 1 -> packet.set(ValueLayout.JAVA_BYTE, rnd.nextInt(len), (byte) rnd.nextInt(256));
            case 2 -> { // no terminating NUL anywhere
                for (int i = 2; i < len; i++) if (packet.get(ValueLayout.JAVA_BYTE, i) == 0) packet.set(ValueLayout.JAVA_BYTE, i, (byte) 'x');
            }
            default -> { }
        }
        return len;
    }
}
