package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Pipes;
import io.jslirp.sys.Poll;
import io.jslirp.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** QEMU's datagram transport against real unix datagram sockets: one frame per datagram, replies to the sender. */
class DgramLinkTest {
    @TempDir
    Path dir;

    @Test
    void framesComeAsDatagramsAndGoBackToTheSender() throws Exception {
        Arena arena = Arena.ofAuto();
        MemorySegment buffer = arena.allocate(65536);
        MemorySegment frame = arena.allocate(1514);
        for (int i = 0; i < 1514; i++) frame.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        Path linkPath = dir.resolve("jslirp.sock"), vmPath = dir.resolve("vm.sock");
        int vm = Sockets.unixDgram();
        try (DgramLink link = DgramLink.bindUnix(linkPath.toString())) {
            assertThat(Sockets.bindUnix(vm, vmPath.toString())).isZero();
            assertThat(Sockets.connectUnix(vm, linkPath.toString())).isZero();
            assertThat(link.send(frame, 60)).as("no VM has sent yet: nowhere to send").isFalse();

            assertThat(Libc.write(vm, frame, 0, 1514)).isEqualTo(1514);
            assertThat(Libc.write(vm, frame, 0, 60)).isEqualTo(60);
            assertThat(link.receive(0, buffer)).isEqualTo(1514);
            assertThat(buffer.asSlice(0, 1514).mismatch(frame)).isEqualTo(-1);
            assertThat(link.receive(0, buffer)).isEqualTo(60);
            assertThat(link.receive(0, buffer)).isZero();

            assertThat(link.send(frame, 100)).isTrue();
            int n = -1;
            for (int i = 0; i < 1000 && n < 0; i++) {
                n = Libc.read(vm, buffer, 0, 65536);
                if (n < 0) Thread.sleep(1);
            }
            assertThat(n).isEqualTo(100);
            assertThat(buffer.asSlice(0, 100).mismatch(frame.asSlice(0, 100))).isEqualTo(-1);
        } finally {
            Libc.close(vm);
        }
        assertThat(Files.exists(linkPath)).isFalse();
    }

    /** An empty datagram reads as "nothing waiting" (the level-triggered poll comes back for what follows); one larger than the buffer is cut to it. */
    @Test
    void emptyAndOversizedDatagramsDoNotStallTheLink() throws Exception {
        Arena arena = Arena.ofAuto();
        MemorySegment buffer = arena.allocate(StreamLink.MAX_FRAME);
        MemorySegment big = arena.allocate(100_000);
        Path linkPath = dir.resolve("jslirp.sock");
        int vm = Sockets.unixDgram();
        try (DgramLink link = DgramLink.bindUnix(linkPath.toString())) {
            assertThat(Sockets.connectUnix(vm, linkPath.toString())).isZero();
            assertThat(Libc.write(vm, big, 0, 0)).isZero();
            assertThat(Libc.write(vm, big, 0, 60)).isEqualTo(60);
            assertThat(Libc.write(vm, big, 0, 100_000)).isEqualTo(100_000);
            assertThat(link.receive(0, buffer)).as("the empty datagram").isZero();
            assertThat(link.receive(0, buffer)).isEqualTo(60);
            assertThat(link.receive(0, buffer)).as("cut to the buffer").isEqualTo(StreamLink.MAX_FRAME);
            assertThat(link.receive(0, buffer)).isZero();
        } finally {
            Libc.close(vm);
        }
    }

    /**
     * A VM that does not read fills its socket's short queue within a few frames: the frames after
     * them wait in the link, in order, until its buffer is full (then a frame is refused, as by a full
     * tap queue), and go out as the VM reads, woken by the link's descriptor. Nothing is lost or reordered,
     * at MTU 1500 and at 65520 (64 KiB datagrams, a few times the socket's buffer).
     */
    @Test
    void framesTheSocketCannotTakeWaitAndGoOutInOrderAsTheVmReads() throws Exception {
        for (int size : new int[] {1514, 65534}) {
            Arena arena = Arena.ofAuto();
            MemorySegment buffer = arena.allocate(65536);
            MemorySegment frame = arena.allocate(size);
            Path linkPath = dir.resolve("jslirp-" + size + ".sock"), vmPath = dir.resolve("vm-" + size + ".sock");
            int vm = Sockets.unixDgram();
            try (DgramLink link = DgramLink.bindUnix(linkPath.toString())) {
                assertThat(Sockets.bindUnix(vm, vmPath.toString())).isZero();
                assertThat(Sockets.sendTo(vm, frame, 0, 60, unixAddress(arena, linkPath), UNIX_ADDRESS_LENGTH)).isEqualTo(60);
                assertThat(link.receive(0, buffer)).isEqualTo(60);

                int sent = 0;
                while (sent < 100_000) {
                    frame.set(ValueLayout.JAVA_INT, 0, sent);
                    if (!link.send(frame, size)) break;
                    sent++;
                }
                assertThat(sent).as("frames taken: a full buffer's worth, then one is refused")
                        .isBetween((2 << 20) / (size + 4), (2 << 20) / (size + 4) + 400);
                link.flush();
                assertThat(readable(link)).as("no room: the link's descriptor is quiet").isFalse();

                int got = 0;
                for (int idle = 0; got < sent && idle < 2000; ) {
                    int n = Libc.read(vm, buffer, 0, 65536);
                    if (n == -Errno.EAGAIN) {
                        if (readable(link)) {
                            assertThat(link.receive(0, buffer)).as("only room, no frame from the VM").isZero();
                        } else {
                            idle++;
                            Thread.sleep(1);
                        }
                        continue;
                    }
                    assertThat(n).isEqualTo(size);
                    assertThat(buffer.get(ValueLayout.JAVA_INT, 0)).as("frame in order").isEqualTo(got);
                    got++;
                }
                assertThat(got).isEqualTo(sent);
                assertThat(readable(link)).as("all sent: the link's descriptor is quiet again").isFalse();
            } finally {
                Libc.close(vm);
            }
        }
    }

    /** When the VM's socket closes, the frames waiting for it go and the link does not spin; a VM that comes back is served. */
    @Test
    void aVmThatGoesAwayTakesItsFramesAndTheNextOneIsServed() throws Exception {
        Arena arena = Arena.ofAuto();
        MemorySegment buffer = arena.allocate(65536);
        MemorySegment frame = arena.allocate(1514);
        Path linkPath = dir.resolve("jslirp.sock"), vmPath = dir.resolve("vm.sock");
        MemorySegment linkAddress = unixAddress(arena, linkPath);
        try (DgramLink link = DgramLink.bindUnix(linkPath.toString())) {
            int vm = Sockets.unixDgram();
            assertThat(Sockets.bindUnix(vm, vmPath.toString())).isZero();
            assertThat(Sockets.sendTo(vm, frame, 0, 60, linkAddress, UNIX_ADDRESS_LENGTH)).isEqualTo(60);
            assertThat(link.receive(0, buffer)).isEqualTo(60);
            for (int i = 0; i < 100; i++) assertThat(link.send(frame, 1514)).isTrue();
            Libc.close(vm);
            Files.delete(vmPath);
            link.flush();
            assertThat(link.send(frame, 1514)).as("the VM is gone").isFalse();
            assertThat(readable(link)).as("nothing waits: no wake-ups").isFalse();

            int next = Sockets.unixDgram();
            try {
                assertThat(Sockets.bindUnix(next, vmPath.toString())).isZero();
                assertThat(Sockets.sendTo(next, frame, 0, 60, linkAddress, UNIX_ADDRESS_LENGTH)).isEqualTo(60);
                assertThat(link.receive(0, buffer)).isEqualTo(60);
                frame.set(ValueLayout.JAVA_INT, 0, 12345);
                assertThat(link.send(frame, 1514)).isTrue();
                int n = -1;
                for (int i = 0; i < 1000 && n < 0; i++) {
                    n = Libc.read(next, buffer, 0, 65536);
                    if (n < 0) Thread.sleep(1);
                }
                assertThat(n).as("the first frame the new VM gets is the new one").isEqualTo(1514);
                assertThat(buffer.get(ValueLayout.JAVA_INT, 0)).isEqualTo(12345);
            } finally {
                Libc.close(next);
            }
        }
    }

    /**
     * awaitPeer (what an instance about to isolate itself does): returns the first sender's path
     * without taking its frame, and frames go to that sender through the socket it connected then,
     * with the path gone (as after isolation); a readable stop descriptor ends the wait with null.
     */
    @Test
    void awaitPeerConnectsToTheFirstSenderWithoutTakingItsFrame() throws Exception {
        Arena arena = Arena.ofAuto();
        MemorySegment buffer = arena.allocate(65536);
        MemorySegment frame = arena.allocate(1514);
        frame.set(ValueLayout.JAVA_INT, 0, 4242);
        Path linkPath = dir.resolve("jslirp.sock"), vmPath = dir.resolve("vm.sock");
        int vm = Sockets.unixDgram();
        try (DgramLink link = DgramLink.bindUnix(linkPath.toString())) {
            assertThat(Sockets.bindUnix(vm, vmPath.toString())).isZero();
            assertThat(Sockets.sendTo(vm, frame, 0, 60, unixAddress(arena, linkPath), UNIX_ADDRESS_LENGTH)).isEqualTo(60);
            assertThat(link.awaitPeer(-1)).isEqualTo(vmPath.toString());
            Files.delete(vmPath); // the path is out of sight now; the socket connected to it is not
            assertThat(link.send(frame, 1514)).isTrue();
            int n = -1;
            for (int i = 0; i < 1000 && n < 0; i++) {
                n = Libc.read(vm, buffer, 0, 65536);
                if (n < 0) Thread.sleep(1);
            }
            assertThat(n).isEqualTo(1514);
            assertThat(buffer.get(ValueLayout.JAVA_INT, 0)).isEqualTo(4242);
            assertThat(link.receive(0, buffer)).as("the frame waited for was left for the loop").isEqualTo(60);
            assertThat(link.send(frame, 60)).as("the same sender: still connected").isTrue();
        } finally {
            Libc.close(vm);
        }
        long pipe = Pipes.pipe();
        try (DgramLink idle = DgramLink.bindUnix(dir.resolve("idle.sock").toString())) {
            assertThat(Libc.write(Pipes.writeEnd(pipe), arena.allocate(1), 0, 1)).isEqualTo(1);
            assertThat(idle.awaitPeer(Pipes.readEnd(pipe))).as("stopped before any frame").isNull();
        } finally {
            Libc.close(Pipes.readEnd(pipe));
            Libc.close(Pipes.writeEnd(pipe));
        }
    }

    private static final int UNIX_ADDRESS_LENGTH = 110;

    private static MemorySegment unixAddress(Arena arena, Path path) {
        MemorySegment sa = arena.allocate(UNIX_ADDRESS_LENGTH, 8);
        sa.set(ValueLayout.JAVA_SHORT, 0, (short) 1); // AF_UNIX
        byte[] bytes = path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MemorySegment.copy(bytes, 0, sa, ValueLayout.JAVA_BYTE, 2, bytes.length);
        return sa;
    }

    private static boolean readable(DgramLink link) {
        Poll poll = new Poll(1);
        poll.add(link.fd(0));
        return poll.poll() > 0;
    }
}
