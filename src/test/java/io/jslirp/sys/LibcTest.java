package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class LibcTest {
    @Test
    void anotherThreadsCpuTimeIsReadByItsIdWithoutProc() throws Exception {
        int[] tid = new int[1];
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1), done = new java.util.concurrent.CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            tid[0] = Libc.gettid();
            long x = 0;
            // 50 ms of this thread's own CPU time, not of the clock: on a shared machine a wall-clock
            // spin got 17 ms of CPU once.
            var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            long until = cpu.getCurrentThreadCpuTime() + 50_000_000L;
            while (cpu.getCurrentThreadCpuTime() < until) {
                for (int i = 0; i < 1000; i++) x += x * 31 + 7;
            }
            if (x == 42) System.out.print("");
            busy.countDown();
            try {
                done.await();
            } catch (InterruptedException ignored) {
                // ends
            }
        });
        busy.await();
        long spent = Libc.threadCpuNanos(tid[0]);
        long stat = Long.parseLong(Files.readString(Path.of("/proc/self/task/" + tid[0] + "/schedstat")).split(" ")[0]);
        done.countDown();
        t.join();
        assertThat(spent).as("50 ms of spinning").isGreaterThan(20_000_000L);
        assertThat((double) spent).as("as /proc says").isCloseTo(stat, org.assertj.core.data.Offset.offset(20_000_000.0));
        assertThat(Libc.threadCpuNanos(Integer.MAX_VALUE - 1)).as("no such thread").isEqualTo(-1);
    }

    @Test
    void readWriteNativeSegments() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocateFrom("xxhello", StandardCharsets.US_ASCII);
            assertThat(Libc.write(p.client, out, 2, 5)).isEqualTo(5);
            MemorySegment in = arena.allocate(64);
            assertThat(readFully(p.server, in, 10, 5)).isEqualTo(5);
            assertThat(in.asSlice(10, 5).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void readWriteHeapSegments() {
        try (TcpPair p = new TcpPair()) {
            byte[] out = {9, 1, 2, 3, 9};
            assertThat(Libc.write(p.client, MemorySegment.ofArray(out), 1, 3)).isEqualTo(3);
            byte[] in = new byte[8];
            assertThat(readFully(p.server, MemorySegment.ofArray(in), 4, 3)).isEqualTo(3);
            assertThat(in).containsExactly(0, 0, 0, 0, 1, 2, 3, 0);
        }
    }

    @Test
    void readOnEmptyNonBlockingSocketIsEagain() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            assertThat(Libc.read(p.server, arena.allocate(16), 0, 16)).isEqualTo(-Errno.EAGAIN);
        }
    }

    @Test
    void readAfterPeerShutdownIsEof() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.shutdown(p.client, Sockets.SHUT_WR)).isZero();
            MemorySegment buf = arena.allocate(16);
            int r;
            long deadline = System.nanoTime() + 5_000_000_000L;
            while ((r = Libc.read(p.server, buf, 0, 16)) == -Errno.EAGAIN && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(r).isZero();
        }
    }

    @Test
    void badDescriptorIsEbadf() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Libc.read(-1, arena.allocate(4), 0, 4)).isEqualTo(-Errno.EBADF);
            assertThat(Libc.write(-1, arena.allocate(4), 0, 4)).isEqualTo(-Errno.EBADF);
            assertThat(Libc.close(-1)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void sliceOutsideSegmentIsRejected() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8);
            assertThatThrownBy(() -> Libc.read(0, buf, 4, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void writev2AndReadv2CarryTwoSlices() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocateFrom("..abc", StandardCharsets.US_ASCII);
            MemorySegment b = arena.allocateFrom("defg", StandardCharsets.US_ASCII);
            assertThat(Libc.writev2(p.client, a, 2, 3, b, 0, 4)).isEqualTo(7);
            assertThat(Libc.writev2(p.client, a, 2, 1, b, 0, 0)).isEqualTo(1);

            MemorySegment x = arena.allocate(4);
            MemorySegment y = arena.allocate(8);
            waitReadable(p.server);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (Sockets.ioctlInt(p.server, Sockets.SIOCINQ) < 8 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(Libc.readv2(p.server, x, 1, 3, y, 2, 6)).isEqualTo(8);
            assertThat(x.asSlice(1, 3).toArray(ValueLayout.JAVA_BYTE)).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
            assertThat(y.asSlice(2, 5).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo("defga".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void openFailureThrowsWithPathAndErrno() {
        assertThatThrownBy(() -> Libc.open("/nonexistent/jslirp", Libc.O_RDONLY))
                .isInstanceOf(SysException.class)
                .hasMessage("open /nonexistent/jslirp: No such file or directory (ENOENT)")
                .satisfies(e -> assertThat(((SysException) e).errno()).isEqualTo(Errno.ENOENT));
    }

    @Test
    void setNonBlockingSetsTheFlag() throws Exception {
        int fd = Libc.open("/dev/zero", Libc.O_RDONLY | Libc.O_CLOEXEC);
        try {
            assertThat(fdFlags(fd) & Libc.O_NONBLOCK).isZero();
            assertThat(fdFlags(fd) & Libc.O_CLOEXEC).isNotZero();
            Libc.setNonBlocking(fd);
            assertThat(fdFlags(fd) & Libc.O_NONBLOCK).isNotZero();
        } finally {
            Libc.close(fd);
        }
    }

    @Test
    void processAndThreadIds() {
        assertThat(Libc.getpid()).isEqualTo((int) ProcessHandle.current().pid());
        int tid = Libc.gettid();
        assertThat(Path.of("/proc/self/task/" + tid)).exists();
        int[] other = new int[1];
        Thread t = Thread.ofPlatform().start(() -> other[0] = Libc.gettid());
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(other[0]).isPositive().isNotEqualTo(tid);
    }

    /**
     * The data path's calls allocate nothing once compiled, called as deep as the packet path
     * calls them, and errno still comes back right. Measured in a JVM of its own
     * ({@link DataPathAllocationProbe}) with the launcher's CompileCommand options: in this one,
     * the other tests' calls with other kinds of segments can leave the compiled callers unable to
     * drop the JDK's per-call errno slice, and this JVM has not the launcher's options.
     */
    @Test
    void dataPathDoesNotAllocate() throws Exception {
        List<String> launcherOptions = launcherCompileCommands();
        assertThat(launcherOptions).as("the launcher's CompileCommand options")
                .contains("-XX:CompileCommand=quiet", "-XX:CompileCommand=" + Native.DONT_INLINE);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(launcherOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), DataPathAllocationProbe.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertThat(p.waitFor()).as(out).isZero();
        List<String> lines = out.lines().toList();
        String steady = lines.stream().filter(l -> l.startsWith("steady ")).findFirst().orElseThrow(() -> new AssertionError(out));
        // Far below one object per call (80 000 calls per window).
        assertThat(Long.parseLong(steady.split(" ")[1])).as(out).isLessThan(1024);
        assertThat(lines.getLast()).as(out).isEqualTo("errno ok");
    }

    /** The -XX:CompileCommand= options of the launcher's JVM command line. */
    private static List<String> launcherCompileCommands() throws Exception {
        String launcher = Files.readString(Path.of(System.getProperty("user.dir"), "jslirp"));
        Matcher m = Pattern.compile("-XX:CompileCommand=[^\\s)\"']+").matcher(launcher);
        List<String> options = new ArrayList<>();
        while (m.find()) options.add(m.group());
        return options;
    }

    @Test
    void writeToAClosedDescriptorIsEbadf() {
        int fd = Libc.open("/dev/null", Libc.O_WRONLY | Libc.O_CLOEXEC);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8);
            assertThat(Libc.write(fd, buf, 0, 8)).isEqualTo(8);
            assertThat(Libc.close(fd)).isZero();
            assertThat(Libc.write(fd, buf, 0, 8)).isEqualTo(-Errno.EBADF);
            assertThat(Libc.writev2(fd, buf, 0, 4, buf, 4, 4)).isEqualTo(-Errno.EBADF);
            assertThat(Libc.write(fd, MemorySegment.ofArray(new byte[8]), 0, 8)).as("heap segment").isEqualTo(-Errno.EBADF);
        }
    }

    static int readFully(int fd, MemorySegment buf, long off, int len) {
        int got = 0;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (got < len && System.nanoTime() < deadline) {
            int r = Libc.read(fd, buf, off + got, len - got);
            if (r == 0) {
                break;
            }
            if (r > 0) {
                got += r;
            } else {
                assertThat(r).isEqualTo(-Errno.EAGAIN);
                Thread.onSpinWait();
            }
        }
        return got;
    }

    static void waitReadable(int fd) {
        try (Epoll ep = new Epoll(1)) {
            ep.add(fd, Epoll.IN);
            assertThat(ep.wait(5000)).isEqualTo(1);
        }
    }

    /** The open-file flags from /proc/self/fdinfo (printed in octal). */
    private static int fdFlags(int fd) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return Integer.parseInt(line.substring(6).trim(), 8);
            }
        }
        throw new AssertionError("no flags line");
    }
}
