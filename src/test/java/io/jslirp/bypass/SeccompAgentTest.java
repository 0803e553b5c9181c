package io.jslirp.bypass;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.splice.LoopThread;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FdMessages;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Pipes;
import io.jslirp.sys.SeccompNotify;
import io.jslirp.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OCI runtime's side played by the test over a real unix socket: a process state and its
 * descriptors, as runc sends them; the one named seccompFd is handed on, every other closed; bad
 * input drops that client alone, with every descriptor it sent.
 */
class SeccompAgentTest {
    @TempDir
    Path dir;

    private final List<SeccompNotify> served = new CopyOnWriteArrayList<>();

    @Test
    void theListenerNamedSeccompFdIsHandedOnAndTheOthersClosed() throws Exception {
        try (LoopThread t = new LoopThread()) {
            String path = dir.resolve("agent.sock").toString();
            SeccompAgent agent = t.call(() -> SeccompAgent.listen(t.loop, served::add, path, "the test's path"));
            long before = openDescriptors();
            long filter = Pipes.pipe(), other = Pipes.pipe(); // stand-ins: a pipe's read end shows which one arrived
            send(path, "{\"ociVersion\":\"1.0.2\",\"fds\":[\"pidFd\",\"seccompFd\"],\"pid\":4242,\"metadata\":\"\",\"state\":{\"id\":\"c1\"}}",
                    Pipes.readEnd(other), Pipes.readEnd(filter));
            awaitServed(1);
            assertThat(Libc.write(Pipes.writeEnd(filter), Arena.ofAuto().allocate(1), 0, 1)).isEqualTo(1);
            MemorySegment b = Arena.ofAuto().allocate(8);
            assertThat(Libc.read(served.getFirst().fd(), b, 0, 8)).as("the seccompFd one").isEqualTo(1);
            for (long p : new long[] {filter, other}) {
                Libc.close(Pipes.readEnd(p));
                Libc.close(Pipes.writeEnd(p));
            }
            t.run(served.getFirst()::close);
            awaitFinished(t, agent, 1);
            awaitDescriptors(before);
            t.run(agent::close);
        }
    }

    @Test
    void badStatesDropTheirClientAndDescriptorsAndTheNextIsServed() throws Exception {
        try (LoopThread t = new LoopThread()) {
            String path = dir.resolve("agent.sock").toString();
            SeccompAgent agent = t.call(() -> SeccompAgent.listen(t.loop, served::add, path, "the test's path"));
            long before = openDescriptors();
            long pipe = Pipes.pipe();
            int r = Pipes.readEnd(pipe);
            send(path, "not json", r);
            send(path, "{\"fds\":[\"seccompFd\",\"pidFd\"]}", r); // two named, one sent
            send(path, "{\"fds\":[\"pidFd\"]}", r); // no seccompFd
            send(path, "[1, 2, 3]", r); // no fds at all
            sendOversized(path);
            Libc.close(r);
            Libc.close(Pipes.writeEnd(pipe));
            awaitFinished(t, agent, 5);
            awaitDescriptors(before);
            assertThat(served).as("nothing handed on").isEmpty();

            long good = Pipes.pipe();
            send(path, "{\"fds\":[\"seccompFd\"],\"pid\":7}", Pipes.readEnd(good));
            awaitServed(1);
            Libc.close(Pipes.readEnd(good));
            Libc.close(Pipes.writeEnd(good));
            t.run(served.getFirst()::close);
            t.run(agent::close);
        }
    }

    /** A listener the bypass does not take (beyond its limit, or one it cannot watch) is closed with the rest, and the agent serves on. */
    @Test
    void aListenerTheBypassRefusesIsClosed() throws Exception {
        try (LoopThread t = new LoopThread()) {
            String path = dir.resolve("agent.sock").toString();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            SeccompAgent agent = t.call(() -> SeccompAgent.listen(t.loop, notify -> {
                refused.incrementAndGet();
                throw new IllegalStateException("more than 1024 filters served at once");
            }, path, "the test's path"));
            long before = openDescriptors();
            long pipe = Pipes.pipe(), other = Pipes.pipe();
            send(path, "{\"fds\":[\"seccompFd\",\"pidFd\"],\"pid\":9}", Pipes.readEnd(pipe), Pipes.readEnd(other));
            for (long p : new long[] {pipe, other}) {
                Libc.close(Pipes.readEnd(p));
                Libc.close(Pipes.writeEnd(p));
            }
            awaitFinished(t, agent, 1);
            assertThat(refused).hasValue(1);
            awaitDescriptors(before);
            t.run(agent::close);
        }
    }

    /** Connects, sends state with the descriptors (SCM_RIGHTS, with its first bytes), and closes, as runc does. */
    private static void send(String path, String state, int... fds) throws Exception {
        int c = Sockets.unixStream();
        try {
            connect(c, path);
            byte[] bytes = state.getBytes(StandardCharsets.UTF_8);
            MemorySegment buf = Arena.ofAuto().allocate(bytes.length);
            MemorySegment.copy(bytes, 0, buf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
            assertThat(new FdMessages().send(c, buf, 0, bytes.length, fds)).isEqualTo(bytes.length);
        } finally {
            Libc.close(c);
        }
    }

    /** A state of more than the agent takes: it hangs up before the end. */
    private static void sendOversized(String path) throws Exception {
        int c = Sockets.unixStream();
        try {
            connect(c, path);
            MemorySegment buf = Arena.ofAuto().allocate(1 << 16);
            buf.fill((byte) ' ');
            long sent = 0, deadline = System.nanoTime() + 20_000_000_000L;
            while (sent <= SeccompAgent.MAX_STATE + (1 << 16) && System.nanoTime() < deadline) {
                int n = Libc.write(c, buf, 0, 1 << 16);
                if (n == -Errno.EAGAIN) Thread.sleep(1);
                else if (n < 0) break; // dropped: EPIPE or ECONNRESET
                else sent += n;
            }
            assertThat(sent).as("the agent read until the limit").isGreaterThan(SeccompAgent.MAX_STATE - (1L << 16));
        } finally {
            Libc.close(c);
        }
    }

    private static void connect(int c, String path) throws Exception {
        int r = Sockets.connectUnix(c, path);
        assertThat(r == 0 || r == -Errno.EINPROGRESS).as("connect: %d", r).isTrue();
    }

    private void awaitServed(int n) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (served.size() < n && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(served).hasSize(n);
    }

    /** Waits (10 s at most) until the agent is done with n clients: only then have the descriptors they sent reached it. */
    private static void awaitFinished(LoopThread t, SeccompAgent agent, int n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (t.call(agent::clientsFinished) < n && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(t.call(agent::clientsFinished)).isEqualTo(n);
    }

    private static long openDescriptors() throws Exception {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** The process's descriptors back to before (the agent closed what it was sent): within 10 s. */
    private static void awaitDescriptors(long before) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (openDescriptors() > before && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(openDescriptors()).isLessThanOrEqualTo(before);
    }
}
