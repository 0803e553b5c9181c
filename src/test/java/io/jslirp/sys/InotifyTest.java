package io.jslirp.sys;

import static io.jslirp.sys.Inotify.IN_DELETE;
import static io.jslirp.sys.Inotify.IN_DELETE_SELF;
import static io.jslirp.sys.Inotify.IN_MOVED_FROM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InotifyTest {
    private static final int GONE = IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF;

    @TempDir
    Path dir;

    @Test
    void seesAFileDeletedInAWatchedDirectory() throws Exception {
        Path other = Files.createFile(dir.resolve("netns-other"));
        Path file = Files.createFile(dir.resolve("netns-1234"));
        try (Inotify in = new Inotify(); Epoll ep = new Epoll(2)) {
            int wd = in.watch(dir.toString(), GONE);
            ep.add(in.fd(), Epoll.IN);
            assertThat(ep.wait(0)).isZero();
            assertThat(in.read()).isEmpty();

            Files.delete(other);
            Files.delete(file);
            assertThat(ep.wait(5000)).isEqualTo(1);
            List<Inotify.Event> events = in.read();
            assertThat(events).extracting(Inotify.Event::name).containsExactly("netns-other", "netns-1234");
            assertThat(events).allSatisfy(e -> {
                assertThat(e.wd()).isEqualTo(wd);
                assertThat(e.any(IN_DELETE)).isTrue();
                assertThat(e.any(IN_MOVED_FROM | IN_DELETE_SELF)).isFalse();
            });
            assertThat(in.read()).isEmpty();
            assertThat(ep.wait(0)).isZero();
        }
    }

    @Test
    void seesAFileMovedAwayAndTheDirectoryDeleted() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("netns"));
        Path file = Files.createFile(sub.resolve("ns0"));
        try (Inotify in = new Inotify()) {
            in.watch(sub.toString(), GONE);
            Files.move(file, dir.resolve("elsewhere"));
            Files.delete(sub);
            List<Inotify.Event> events = awaitEvents(in, 3);
            assertThat(events.get(0).name()).isEqualTo("ns0");
            assertThat(events.get(0).any(IN_MOVED_FROM)).isTrue();
            assertThat(events.get(1).name()).isEmpty();
            assertThat(events.get(1).any(IN_DELETE_SELF)).isTrue();
            assertThat(events.get(2).any(Inotify.IN_IGNORED)).as("the watch goes with the directory").isTrue();
        }
    }

    @Test
    void aLongNameArrivesWhole() throws Exception {
        String name = "netns-" + "0123456789abcdef".repeat(15);
        Path file = Files.createFile(dir.resolve(name));
        try (Inotify in = new Inotify()) {
            in.watch(dir.toString(), GONE);
            Files.delete(file);
            assertThat(awaitEvents(in, 1)).extracting(Inotify.Event::name).containsExactly(name);
        }
    }

    @Test
    void watchingAMissingDirectoryFails() {
        try (Inotify in = new Inotify()) {
            assertThatThrownBy(() -> in.watch(dir.resolve("missing").toString(), GONE))
                    .isInstanceOf(SysException.class)
                    .hasMessage("watch " + dir.resolve("missing") + ": No such file or directory (ENOENT)");
        }
    }

    private static List<Inotify.Event> awaitEvents(Inotify in, int count) throws InterruptedException {
        List<Inotify.Event> events = new ArrayList<>();
        try (Epoll ep = new Epoll(1)) {
            ep.add(in.fd(), Epoll.IN);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (events.size() < count && System.nanoTime() < deadline) {
                ep.wait(100);
                events.addAll(in.read());
            }
        }
        assertThat(events).hasSize(count);
        return events;
    }
}
