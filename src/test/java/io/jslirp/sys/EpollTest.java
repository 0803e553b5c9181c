package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class EpollTest {
    @Test
    void reportsReadableDescriptorWithItsFd() {
        try (TcpPair p = new TcpPair(); Epoll ep = new Epoll(8); Arena arena = Arena.ofConfined()) {
            ep.add(p.server, Epoll.IN | Epoll.RDHUP);
            assertThat(ep.wait(0)).isZero();

            MemorySegment buf = arena.allocate(4);
            assertThat(Libc.write(p.client, buf, 0, 4)).isEqualTo(4);
            assertThat(ep.wait(5000)).isEqualTo(1);
            assertThat(ep.readyFd(0)).isEqualTo(p.server);
            assertThat(ep.readyEvents(0)).isEqualTo(Epoll.IN);
        }
    }

    @Test
    void severalReadyDescriptors() {
        try (TcpPair p = new TcpPair(); TcpPair q = new TcpPair(); Epoll ep = new Epoll(8)) {
            ep.add(p.client, Epoll.OUT);
            ep.add(q.client, Epoll.OUT);
            ep.add(p.server, Epoll.IN);
            assertThat(ep.wait(5000)).isEqualTo(2);
            assertThat(new int[] {ep.readyFd(0), ep.readyFd(1)}).containsExactlyInAnyOrder(p.client, q.client);
            assertThat(ep.readyEvents(0)).isEqualTo(Epoll.OUT);
            assertThat(ep.readyEvents(1)).isEqualTo(Epoll.OUT);
        }
    }

    @Test
    void modifyAndRemove() {
        try (TcpPair p = new TcpPair(); Epoll ep = new Epoll(4)) {
            ep.add(p.client, Epoll.IN);
            assertThat(ep.wait(0)).isZero();
            ep.modify(p.client, Epoll.IN | Epoll.OUT);
            assertThat(ep.wait(0)).isEqualTo(1);
            assertThat(ep.readyEvents(0)).isEqualTo(Epoll.OUT);
            ep.remove(p.client);
            assertThat(ep.wait(0)).isZero();
            ep.remove(p.client); // ENOENT: ignored
            ep.remove(-1); // EBADF: ignored
        }
    }

    @Test
    void edgeTriggeredReportsOnce() {
        try (TcpPair p = new TcpPair(); Epoll ep = new Epoll(4)) {
            ep.add(p.client, Epoll.OUT | Epoll.ET);
            assertThat(ep.wait(5000)).isEqualTo(1);
            assertThat(ep.wait(0)).isZero();
        }
    }

    @Test
    void peerCloseReportsHangup() {
        try (TcpPair p = new TcpPair(); Epoll ep = new Epoll(4)) {
            ep.add(p.server, Epoll.IN | Epoll.RDHUP);
            Sockets.shutdown(p.client, Sockets.SHUT_WR);
            assertThat(ep.wait(5000)).isEqualTo(1);
            assertThat(ep.readyEvents(0) & (Epoll.IN | Epoll.RDHUP)).isEqualTo(Epoll.IN | Epoll.RDHUP);
        }
    }

    @Test
    void waitTimesOut() {
        try (TcpPair p = new TcpPair(); Epoll ep = new Epoll(4)) {
            ep.add(p.server, Epoll.IN);
            long t0 = System.nanoTime();
            assertThat(ep.wait(50)).isZero();
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(40_000_000L);
        }
    }

    @Test
    void badRegistrationsThrow() {
        try (Epoll ep = new Epoll(4)) {
            assertThatThrownBy(() -> ep.add(-1, Epoll.IN))
                    .isInstanceOf(SysException.class)
                    .hasMessageContaining("EBADF");
            int fd = Sockets.udp4();
            try {
                ep.add(fd, Epoll.IN);
                assertThatThrownBy(() -> ep.add(fd, Epoll.IN))
                        .isInstanceOf(SysException.class)
                        .hasMessageContaining("File exists");
            } finally {
                Libc.close(fd);
            }
            int unregistered = Sockets.udp4();
            try {
                assertThatThrownBy(() -> ep.modify(unregistered, Epoll.IN))
                        .isInstanceOfSatisfying(SysException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
            } finally {
                Libc.close(unregistered);
            }
        }
    }

    @Test
    void closeIsIdempotentAndReleasesTheFd() {
        Epoll ep = new Epoll(1);
        int fd = ep.fd();
        ep.close();
        ep.close();
        assertThat(Libc.close(fd)).isEqualTo(-Errno.EBADF);
    }
}
