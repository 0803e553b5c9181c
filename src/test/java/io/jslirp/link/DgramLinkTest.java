package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Libc;
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
}
