package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The launcher's start-up cache as an ordinary user gets it ({@link TestUser}: its copy of jslirp
 * lives in root's directory, so the cache goes to the user's ~/.cache/jslirp): the first launch
 * trains it in the background ({@code jslirp train}: traffic through the stack, in namespaces of the
 * training's own), and a later {@code jslirp run} that moves a connection's data finds the TCP data
 * path's classes in the cache (-Xlog:class+load says "shared objects file"), not in the jar.
 */
class StartupCacheIT {
    private static final Duration T = Duration.ofSeconds(60);
    /** The TCP data path's classes that a connection needs and {@code run -- true} alone never loads. */
    private static final List<String> DATA_PATH = List.of("io.jslirp.tcp.TcpConnection", "io.jslirp.tcp.Sender",
            "io.jslirp.tcp.Receiver", "io.jslirp.nat.SocketStream");

    @Test
    @Timeout(300)
    void theFirstLaunchTrainsACacheThatHoldsTheDataPath() throws Exception {
        ItEnv.assumeJslirp("the user's launcher trains its own cache");
        ItEnv.assumeTools("curl");
        try (TestUser user = TestUser.create(); HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result version = user.run(T, user.jslirp(), "--version");
            assertThat(version.exit()).as("%s", version).isZero();
            Path cacheDir = user.home().resolve(".cache/jslirp");
            Path cache = awaitCache(cacheDir);

            Path log = user.work().resolve("classes.log");
            Cmd.Result run = user.run(T, List.of("env", "JSLIRP_JAVA_OPTS=-Xlog:class+load=info:file=" + log, user.jslirp(), "run", "--",
                    "curl", "-sS", "--max-time", "20", "-o", "/dev/null", http.guestUrl("/blob?seed=3&size=" + Blob.MIB)));
            assertThat(run.exit()).as("%s", run).isZero();
            String classes = Files.readString(log);
            for (String c : DATA_PATH) {
                assertThat(classes).as("%s in %s", c, cache).contains(c + " source: shared objects file");
            }
            assertThat(classes.lines().filter(l -> l.contains(" io.jslirp.tcp.") && l.contains("source: file:")))
                    .as("TCP classes read from the jar").isEmpty();
        }
    }

    /** The cache the background training wrote (the launcher's lock free and a .aot there), within 180 s. */
    private static Path awaitCache(Path dir) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    List<Path> all = files.toList();
                    assertThat(all).as("the training failed: it left a .none marker").noneMatch(p -> p.toString().endsWith(".aot.none"));
                    Path aot = all.stream().filter(p -> p.toString().endsWith(".aot")).findFirst().orElse(null);
                    if (aot != null) return aot;
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no start-up cache in " + dir + " after 180 s");
    }
}
