package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Socket paths a user names (--api-socket, qemu --socket and --dgram): what is there is never
 * deleted; only a stale socket is replaced. A file or directory there, or a running instance's
 * socket, is refused with one line and exit 1, and the running instance goes on answering.
 */
class SocketPathIT {
    private static final Duration T = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private static String bin() {
        return Stack.Kind.JSLIRP.executable();
    }

    private static void assertRefused(Cmd.Result r, String line) {
        assertThat(r.timedOut()).as("%s", r).isFalse();
        assertThat(r.exit()).as("%s", r).isEqualTo(1);
        assertThat(r.err().lines().filter(l -> !l.isBlank()).toList()).as("%s", r).containsExactly(line);
    }

    @Test
    @Timeout(180)
    void aFileOrDirectoryAtTheSocketPathIsRefusedAndKept() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's options");
        Path file = Files.writeString(tmp.resolve("f"), "precious\n");
        Path dir = Files.createDirectory(tmp.resolve("d"));
        Files.writeString(dir.resolve("inside"), "x");

        assertRefused(Cmd.run(T, bin(), "run", "--api-socket", file.toString(), "--", "true"),
                "jslirp: cannot use " + file + " as the API socket: it exists and is not a socket");
        assertRefused(Cmd.run(T, bin(), "run", "--api-socket", dir.toString(), "--", "true"),
                "jslirp: cannot use " + dir + " as the API socket: it exists and is not a socket");
        assertRefused(Cmd.run(T, bin(), "qemu", "--no-warm-up", "--socket", file.toString()),
                "jslirp: cannot use " + file + " as the --socket path: it exists and is not a socket");
        assertRefused(Cmd.run(T, bin(), "qemu", "--no-warm-up", "--dgram", dir.toString()),
                "jslirp: cannot use " + dir + " as the --dgram path: it exists and is not a socket");

        assertThat(file).hasContent("precious");
        assertThat(dir.resolve("inside")).hasContent("x");
        try (var left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString()).sorted().toList()).as("no lock file left").containsExactly("d", "f");
        }
    }

    @Test
    @Timeout(180)
    void aMissingDirectoryIsSaidInWords() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's options");
        Path missing = tmp.resolve("no/such/api.sock");
        Cmd.Result r = Cmd.run(T, bin(), "run", "--api-socket", missing.toString(), "--", "true");
        assertRefused(r, "jslirp: cannot set up the API socket " + missing + ": No such file or directory (ENOENT)");
    }

    /** A second instance given a running one's API socket is refused; the first still answers status. */
    @Test
    @Timeout(180)
    void aRunningInstancesSocketIsNotTakenOver() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's options");
        Path api = tmp.resolve("api.sock");
        try (Stack.Running first = Stack.start(List.of(bin(), "run", "--api-socket", api.toString(), "--", "sleep", "120"))) {
            ApiClient.await(api, first, T);
            Object inode = Files.getAttribute(api, "unix:ino", LinkOption.NOFOLLOW_LINKS);

            assertRefused(Cmd.run(T, bin(), "run", "--api-socket", api.toString(), "--", "true"),
                    "jslirp: cannot use " + api + " as the API socket: in use by a running instance");
            assertRefused(Cmd.run(T, bin(), "qemu", "--no-warm-up", "--socket", api.toString()),
                    "jslirp: cannot use " + api + " as the --socket path: in use by a running instance");

            assertThat(Files.getAttribute(api, "unix:ino", LinkOption.NOFOLLOW_LINKS)).isEqualTo(inode);
            Cmd.Result status = Cmd.run(T, bin(), "status", "--api-socket", api.toString());
            assertThat(status.exit()).as("the first instance still answers: %s", status).isZero();
            assertThat(first.alive()).isTrue();
        }
    }

    /**
     * A socket left by an instance that was killed is stale: the next one takes the path over. An
     * instance removes its socket and lock file when it ends, unless it has isolated itself (the
     * default for run: the path is out of its reach then, as for pasta mode and qemu): then they
     * stay, stale, and the next instance takes them over as well.
     */
    @Test
    @Timeout(180)
    void aStaleSocketIsTakenOver() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's options");
        Path api = tmp.resolve("api.sock");
        try (Stack.Running first = Stack.start(List.of(bin(), "run", "--api-socket", api.toString(), "--", "sleep", "120"))) {
            ApiClient.await(api, first, T);
            ProcessHandle jvm = ProcessHandle.of(first.pid()).orElseThrow();
            jvm.destroyForcibly();
            jvm.onExit().get();
        }
        assertThat(Files.exists(api, LinkOption.NOFOLLOW_LINKS)).as("a SIGKILLed instance leaves its socket").isTrue();
        assertThat(tmp.resolve("api.sock.lock")).as("and its lock file").exists();
        try (Stack.Running isolated = Stack.start(List.of(bin(), "run", "--api-socket", api.toString(), "--", "sleep", "2"))) {
            ApiClient.await(api, isolated, T);
            Cmd.Result status = Cmd.run(T, bin(), "status", "--api-socket", api.toString());
            assertThat(status.exit()).as("the next instance answers there: %s", status).isZero();
            long deadline = System.nanoTime() + T.toNanos();
            while (isolated.alive() && System.nanoTime() < deadline) Namespace.sleep(50);
            assertThat(isolated.stop().code()).as("it ends with its command").isZero();
        }
        assertThat(Files.exists(api, LinkOption.NOFOLLOW_LINKS)).as("an isolated instance's socket stays at its end").isTrue();
        try (Stack.Running next = Stack.start(List.of("env", "JSLIRP_ISOLATE=0", bin(), "run", "--api-socket", api.toString(), "--",
                "sleep", "120"))) {
            ApiClient.await(api, next, T);
            Cmd.Result status = Cmd.run(T, bin(), "status", "--api-socket", api.toString());
            assertThat(status.exit()).as("taken over again: %s", status).isZero();
            assertThat(next.alive()).isTrue();
        }
        assertThat(Files.exists(api, LinkOption.NOFOLLOW_LINKS)).as("removed when an instance that is not isolated ends").isFalse();
        assertThat(tmp.resolve("api.sock.lock")).doesNotExist();
    }
}
