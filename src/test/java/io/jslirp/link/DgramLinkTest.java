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
}
