package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Taking a user's socket path: nothing but a stale socket is ever replaced, and only our own socket is removed. */
class UnixSocketFileTest {
    private static final String ROLE = "the API socket";

    @TempDir
    Path dir;

    /** A unix stream socket bound at p and listening (a live instance's), or bound then closed (stale). */
    private static int listening(Path p) {
        int s = Sockets.unixStream();
        assertThat(Sockets.bindUnix(s, p.toString())).isZero();
        assertThat(Sockets.listen(s, 4)).isZero();
        return s;
    }

    private static void stale(Path p) {
        Libc.close(listening(p));
    }

    private static boolean answers(Path p) {
        int s = Sockets.unixStream();
        try {
            return Sockets.connectUnix(s, p.toString()) == 0;
        } finally {
            Libc.close(s);
        }
    }

    private static Object inode(Path p) throws IOException {
        return Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS);
    }

    /** Binds a new stream socket at p and listens on it, as ApiSocket does. */
    private record Claimed(int fd, UnixSocketFile file) implements AutoCloseable {
        static Claimed at(Path p) {
            int fd = Sockets.unixStream();
            UnixSocketFile file = UnixSocketFile.bind(fd, p.toString(), ROLE, true);
            assertThat(Sockets.listen(fd, 4)).isZero();
            return new Claimed(fd, file);
        }

        @Override
        public void close() {
            Libc.close(fd);
            file.release();
        }
    }

    @Test
    void aFreePathIsBoundAndBothFilesGoAtTheEnd() {
        Path p = dir.resolve("api.sock");
        try (Claimed c = Claimed.at(p)) {
            assertThat(answers(p)).isTrue();
            assertThat(dir.resolve("api.sock.lock")).exists();
        }
        assertThat(p).doesNotExist();
        assertThat(dir.resolve("api.sock.lock")).doesNotExist();
    }

    @Test
    void aFileIsRefusedAndKept() throws IOException {
        Path p = dir.resolve("f");
        Files.writeString(p, "precious\n");
        assertThatThrownBy(() -> Claimed.at(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot use " + p + " as the API socket: it exists and is not a socket");
        assertThat(Files.readString(p)).isEqualTo("precious\n");
        assertThat(dir.resolve("f.lock")).doesNotExist();
    }

    @Test
    void directoriesAndLinksAreRefusedAndKept() throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path full = Files.createDirectory(dir.resolve("full"));
        Files.writeString(full.resolve("x"), "x");
        Path target = Files.writeString(dir.resolve("target"), "t");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        for (Path p : List.of(empty, full, link, dangling)) {
            assertThatThrownBy(() -> Claimed.at(p)).as("%s", p).hasMessageEndingWith(": it exists and is not a socket");
        }
        assertThat(empty).isEmptyDirectory();
        assertThat(full.resolve("x")).hasContent("x");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.isSymbolicLink(dangling)).isTrue();
        assertThat(target).hasContent("t");
        assertThat(dir.resolve("nowhere")).doesNotExist();
    }

    @Test
    void aLiveServersSocketIsRefusedAndKeepsWorking() throws IOException {
        Path p = dir.resolve("live.sock");
        int live = listening(p);
        try {
            Object before = inode(p);
            assertThatThrownBy(() -> Claimed.at(p)).hasMessage("cannot use " + p + " as the API socket: in use by a running instance");
            assertThat(inode(p)).isEqualTo(before);
            assertThat(answers(p)).isTrue();
            assertThat(dir.resolve("live.sock.lock")).doesNotExist();
        } finally {
            Libc.close(live);
        }
    }

    @Test
    void aSecondInstanceIsRefusedByTheLockAndTheFirstKeepsItsSocket() throws IOException {
        Path p = dir.resolve("api.sock");
        try (Claimed first = Claimed.at(p)) {
            Object before = inode(p);
            assertThatThrownBy(() -> Claimed.at(p)).hasMessageEndingWith(": in use by a running instance");
            assertThat(inode(p)).isEqualTo(before);
            assertThat(answers(p)).isTrue();
            assertThat(dir.resolve("api.sock.lock")).exists();
        }
        assertThat(p).doesNotExist();
    }

    @Test
    void aStaleSocketIsReplaced() throws IOException {
        Path p = dir.resolve("stale.sock");
        stale(p);
        assertThat(answers(p)).isFalse();
        try (Claimed c = Claimed.at(p)) {
            assertThat(answers(p)).as("a listener there now: ours").isTrue();
            assertThat(Files.getPosixFilePermissions(p)).extracting(Object::toString).containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE");
        }
        assertThat(p).doesNotExist();
    }

    @Test
    void aStaleSocketAndLockFileOfAKilledInstanceAreTakenOver() throws IOException {
        Path p = dir.resolve("api.sock");
        stale(p);
        Files.createFile(dir.resolve("api.sock.lock")); // left by an instance that was killed (its lock went with it)
        try (Claimed c = Claimed.at(p)) {
            assertThat(answers(p)).isTrue();
        }
        assertThat(p).doesNotExist();
        assertThat(dir.resolve("api.sock.lock")).doesNotExist();
    }

    @Test
    void datagramSocketsToo() throws IOException {
        Path p = dir.resolve("dgram.sock");
        int live = Sockets.unixDgram();
        assertThat(Sockets.bindUnix(live, p.toString())).isZero();
        assertThatThrownBy(() -> UnixSocketFile.bind(Sockets.unixDgram(), p.toString(), "the --dgram path", false))
                .hasMessage("cannot use " + p + " as the --dgram path: in use by a running instance");
        Libc.close(live); // now stale
        int fd = Sockets.unixDgram();
        UnixSocketFile file = UnixSocketFile.bind(fd, p.toString(), "the --dgram path", false);
        int sender = Sockets.unixDgram();
        assertThat(Sockets.connectUnix(sender, p.toString())).isZero(); // bound again: a datagram peer is there
        Libc.close(sender);
        Libc.close(fd);
        file.release();
        assertThat(p).doesNotExist();
    }

    @Test
    void aMissingDirectoryIsSaidInWords() {
        Path p = dir.resolve("no/such/dir/api.sock");
        assertThatThrownBy(() -> Claimed.at(p))
                .hasMessageStartingWith("cannot set up the API socket " + p + ": No such file or directory");
    }

    @Test
    void aDirectoryWeMayNotWriteIsSaidInWords() throws IOException {
        assumeFalse("root".equals(System.getProperty("user.name")), "root may write anywhere");
        Path ro = Files.createDirectory(dir.resolve("ro"));
        ro.toFile().setWritable(false, false);
        try {
            Path p = ro.resolve("api.sock");
            assertThatThrownBy(() -> Claimed.at(p)).hasMessageStartingWith("cannot set up the API socket " + p + ": Permission denied");
        } finally {
            ro.toFile().setWritable(true, true);
        }
    }

    @Test
    void aPathTooLongForASocketIsSaid() {
        Path p = dir.resolve("x".repeat(120));
        assertThatThrownBy(() -> Claimed.at(p)).hasMessageStartingWith("cannot set up the API socket " + p + ": a unix socket path must be 1 to 107 bytes");
    }

    @Test
    void theEndRemovesOnlyOurOwnSocket() throws IOException {
        Path p = dir.resolve("api.sock");
        Claimed c = Claimed.at(p);
        // Another program's socket put in its place (made first, so that it cannot reuse our inode's number).
        Path elsewhere = dir.resolve("other.sock");
        int other = listening(elsewhere);
        Files.move(elsewhere, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Object theirs = inode(p);
        c.close();
        assertThat(inode(p)).isEqualTo(theirs);
        assertThat(answers(p)).isTrue();
        Libc.close(other);
    }

    /** Instances started at once for one path, free or stale: exactly one wins; the others are told it is in use, and its socket stays. */
    @Test
    void instancesStartedAtOnceLeaveExactlyOneWinner() throws Exception {
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 40; round++) {
                Path p = dir.resolve("race" + round + ".sock");
                if (round % 2 == 1) stale(p);
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Object>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        try {
                            return Claimed.at(p);
                        } catch (IllegalArgumentException e) {
                            return e.getMessage();
                        }
                    }));
                }
                List<Claimed> winners = new ArrayList<>();
                for (Future<Object> f : results) {
                    Object r = f.get();
                    if (r instanceof Claimed c) winners.add(c);
                    else assertThat((String) r).as("round %d", round).isEqualTo("cannot use " + p + " as the API socket: in use by a running instance");
                }
                assertThat(winners).as("round %d", round).hasSize(1);
                assertThat(answers(p)).as("round %d: the winner's socket is there", round).isTrue();
                winners.getFirst().close();
                assertThat(p).doesNotExist();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
