package io.jslirp.sys;

import static io.jslirp.sys.TcpPair.LOOPBACK;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SocketsTest {
    @Test
    void nonBlockingConnectCompletesViaEpollOut() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             Epoll ep = new Epoll(4);
             Arena arena = Arena.ofConfined()) {
            int fd = Sockets.tcp4();
            try {
                int r = Sockets.connect4(fd, LOOPBACK, server.getLocalPort());
                assertThat(r).isIn(0, -Errno.EINPROGRESS);
                ep.add(fd, Epoll.OUT);
                assertThat(ep.wait(5000)).isEqualTo(1);
                assertThat(ep.readyEvents(0) & Epoll.OUT).isNotZero();
                assertThat(Sockets.soError(fd)).isZero();

                try (Socket accepted = server.accept()) {
                    assertThat(accepted.getPort()).isEqualTo(Sockets.localPort(fd));
                    MemorySegment msg = arena.allocateFrom("ping", StandardCharsets.US_ASCII);
                    assertThat(Sockets.send(fd, msg, 0, 4, 0)).isEqualTo(4);
                    assertThat(accepted.getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(StandardCharsets.US_ASCII));
                    accepted.getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
                    LibcTest.waitReadable(fd);
                    MemorySegment in = arena.allocate(8);
                    assertThat(Sockets.recv(fd, in, 0, 8, Sockets.MSG_PEEK)).isEqualTo(4);
                    assertThat(Sockets.recv(fd, in, 4, 4, 0)).isEqualTo(4);
                    assertThat(in.toArray(ValueLayout.JAVA_BYTE)).isEqualTo("pongpong".getBytes(StandardCharsets.US_ASCII));
                    assertThat(Sockets.recv(fd, in, 0, 8, Sockets.MSG_DONTWAIT)).isEqualTo(-Errno.EAGAIN);
                }
            } finally {
                Libc.close(fd);
            }
        }
    }

    @Test
    void connectToClosedPortIsRefused() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        int fd = Sockets.tcp4();
        try (Epoll ep = new Epoll(1)) {
            int r = Sockets.connect4(fd, LOOPBACK, port);
            if (r == -Errno.EINPROGRESS) {
                ep.add(fd, Epoll.OUT);
                assertThat(ep.wait(5000)).isEqualTo(1);
                assertThat(ep.readyEvents(0) & (Epoll.ERR | Epoll.HUP)).isNotZero();
                assertThat(Sockets.soError(fd)).isEqualTo(Errno.ECONNREFUSED);
                assertThat(Sockets.soError(fd)).isZero(); // reading SO_ERROR clears it
            } else {
                assertThat(r).isEqualTo(-Errno.ECONNREFUSED);
            }
        } finally {
            Libc.close(fd);
        }
    }

    /** sendmmsg and recvmmsg on connected UDP sockets: several datagrams per call, each kept whole, EAGAIN when none waits. */
    @Test
    void manyDatagramsPerSystemCall() {
        int a = Sockets.udp4();
        int b = Sockets.udp4();
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.bind4(a, LOOPBACK, 0)).isZero();
            assertThat(Sockets.bind4(b, LOOPBACK, 0)).isZero();
            assertThat(Sockets.connect4(a, LOOPBACK, Sockets.localPort(b))).isZero();
            assertThat(Sockets.connect4(b, LOOPBACK, Sockets.localPort(a))).isZero();
            MemorySegment data = arena.allocate(64);
            for (int i = 0; i < 64; i++) data.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
            MessageVector out = new MessageVector(4);
            out.set(0, data, 0, 5);
            out.set(1, data, 10, 1);
            out.set(2, data, 20, 0);
            out.set(3, data, 30, 30);
            assertThat(out.send(a, 1, 3)).as("messages 1 to 3 in one call").isEqualTo(3);
            assertThat(out.length(1)).isEqualTo(1);
            assertThat(out.length(3)).isEqualTo(30);
            assertThat(out.send(a, 0, 1)).isEqualTo(1);
            LibcTest.waitReadable(b);

            MemorySegment room = arena.allocate(4 * 16);
            MessageVector in = new MessageVector(8);
            for (int i = 0; i < 4; i++) in.set(i, room, 16L * i, 16);
            assertThat(in.receive(b, 4)).isEqualTo(4);
            assertThat(new int[] {in.length(0), in.length(1), in.length(2), in.length(3)}).containsExactly(1, 0, 16, 5);
            assertThat(room.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 10);
            assertThat(room.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 32)).as("the first 16 of 30 bytes").isEqualTo((byte) 30);
            assertThat(room.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 47)).isEqualTo((byte) 45);
            assertThat(room.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 48)).isEqualTo((byte) 0);
            assertThat(room.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 52)).isEqualTo((byte) 4);
            assertThat(in.receive(b, 4)).isEqualTo(-Errno.EAGAIN);
            assertThat(out.send(-1, 0, 1)).isEqualTo(-Errno.EBADF);
        } finally {
            Libc.close(a);
            Libc.close(b);
        }
    }

    @Test
    void udpRoundTrip() {
        int a = Sockets.udp4();
        int b = Sockets.udp4();
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.bind4(a, LOOPBACK, 0)).isZero();
            assertThat(Sockets.bind4(b, LOOPBACK, 0)).isZero();
            int portA = Sockets.localPort(a);
            int portB = Sockets.localPort(b);
            assertThat(portA).isBetween(1, 65535);

            MemorySegment out = arena.allocateFrom("..datagram", StandardCharsets.US_ASCII);
            assertThat(Sockets.sendTo4(a, out, 2, 8, LOOPBACK, portB)).isEqualTo(8);
            LibcTest.waitReadable(b);
            MemorySegment in = arena.allocate(32);
            int[] src = new int[2];
            assertThat(Sockets.recvFrom4(b, in, 4, 28, src)).isEqualTo(8);
            assertThat(in.getString(4, StandardCharsets.US_ASCII)).isEqualTo("datagram");
            assertThat(src).containsExactly(LOOPBACK, portA);

            byte[] reply = {1, 2, 3};
            assertThat(Sockets.sendTo4(b, MemorySegment.ofArray(reply), 0, 3, src[0], src[1])).isEqualTo(3);
            LibcTest.waitReadable(a);
            byte[] got = new byte[3];
            assertThat(Sockets.recvFrom4(a, MemorySegment.ofArray(got), 0, 3, src)).isEqualTo(3);
            assertThat(got).containsExactly(1, 2, 3);
            assertThat(src).containsExactly(LOOPBACK, portB);
            assertThat(Sockets.recvFrom4(a, in, 0, 32, null)).isEqualTo(-Errno.EAGAIN);
        } finally {
            Libc.close(a);
            Libc.close(b);
        }
    }

    @Test
    void bindToUsedPortIsEaddrinuse() {
        int a = Sockets.tcp4();
        int b = Sockets.tcp4();
        try {
            assertThat(Sockets.bind4(a, LOOPBACK, 0)).isZero();
            assertThat(Sockets.listen(a, 1)).isZero();
            assertThat(Sockets.bind4(b, LOOPBACK, Sockets.localPort(a))).isEqualTo(-Errno.EADDRINUSE);
        } finally {
            Libc.close(a);
            Libc.close(b);
        }
    }

    @Test
    void acceptWithNothingPendingIsEagain() {
        int l = Sockets.tcp4();
        try {
            Sockets.bind4(l, LOOPBACK, 0);
            Sockets.listen(l, 1);
            assertThat(Sockets.accept4(l, null)).isEqualTo(-Errno.EAGAIN);
        } finally {
            Libc.close(l);
        }
    }

    @Test
    void intOptions() {
        try (TcpPair p = new TcpPair()) {
            assertThat(Sockets.getInt(p.client, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY)).isZero();
            assertThat(Sockets.setInt(p.client, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1)).isZero();
            assertThat(Sockets.getInt(p.client, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY)).isEqualTo(1);
            assertThat(Sockets.setInt(p.client, Sockets.IPPROTO_TCP, Sockets.TCP_CORK, 1)).isZero();
            assertThat(Sockets.setInt(p.client, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, 65536)).isZero();
            // Linux doubles the requested size for bookkeeping.
            assertThat(Sockets.getInt(p.client, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF)).isEqualTo(131072);
            assertThat(Sockets.setInt(p.client, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1)).isZero();
            assertThat(Sockets.getInt(-1, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.setInt(-1, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, 1)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void lingerZeroCloseResetsThePeer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            int fd = Sockets.tcp4();
            Sockets.connect4(fd, LOOPBACK, server.getLocalPort());
            try (Socket accepted = server.accept()) {
                assertThat(Sockets.setLingerZero(fd)).isZero();
                assertThat(Libc.close(fd)).isZero();
                InputStream in = accepted.getInputStream();
                assertThatThrownBy(in::read).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            }
        }
    }

    @Test
    void sendQueueAndReceiveQueueSizes() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.ioctlInt(p.client, Sockets.SIOCOUTQ)).isZero();
            MemorySegment chunk = arena.allocate(65536);
            long sent = 0;
            int r;
            // The peer does not read: fill its receive buffer and then our send buffer.
            while ((r = Sockets.send(p.client, chunk, 0, (int) chunk.byteSize(), 0)) > 0) {
                sent += r;
            }
            assertThat(r).isEqualTo(-Errno.EAGAIN);
            int outq = Sockets.ioctlInt(p.client, Sockets.SIOCOUTQ);
            int inq = Sockets.ioctlInt(p.server, Sockets.SIOCINQ);
            assertThat(outq).isPositive();
            assertThat(inq).isPositive();
            assertThat((long) outq).isLessThan(sent);
            assertThat((long) inq).isLessThan(sent);
            assertThat(Sockets.ioctlInt(-1, Sockets.SIOCOUTQ)).isEqualTo(-Errno.EBADF);
        }
    }

    /** What a connection's host stream relies on: peeks at a peek offset or past skipped bytes, drops, end of stream, send space. */
    @Test
    void peekAtAnOffsetPeekPastSkippedBytesDropAndEnd() throws Exception {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(1000), got = arena.allocate(1000), skip = arena.allocate(1000);
            for (int i = 0; i < 1000; i++) data.set(JAVA_BYTE, i, (byte) (i * 7));
            assertThat(Sockets.sendSpace(p.client)).isPositive();
            assertThat(Sockets.send(p.client, data, 0, 1000, 0)).isEqualTo(1000);
            assertThat(Sockets.shutdown(p.client, Sockets.SHUT_WR)).isZero();
            for (int i = 0; i < 500 && Sockets.ioctlInt(p.server, Sockets.SIOCINQ) < 1000; i++) Thread.sleep(10);
            Thread.sleep(50); // the FIN follows the data on loopback
            assertThat(Sockets.peekPast(p.server, skip, 600, got, 0, 1000)).as("without a peek offset").isEqualTo(400);
            assertThat(got.asSlice(0, 400).mismatch(data.asSlice(600, 400))).isEqualTo(-1);
            assertThat(Sockets.setInt(p.server, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF, 100)).isZero();
            assertThat(Sockets.recv(p.server, got, 0, 300, Sockets.MSG_PEEK | Sockets.MSG_DONTWAIT)).isEqualTo(300);
            assertThat(got.asSlice(0, 300).mismatch(data.asSlice(100, 300))).isEqualTo(-1);
            assertThat(Sockets.getInt(p.server, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF)).as("advanced").isEqualTo(400);
            assertThat(Sockets.discard(p.server, 250)).isEqualTo(250);
            assertThat(Sockets.getInt(p.server, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF)).as("moved back").isEqualTo(150);
            assertThat(Sockets.ioctlInt(p.server, Sockets.SIOCINQ)).isEqualTo(750);
            assertThat(Sockets.setInt(p.server, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF, 750)).isZero();
            assertThat(Sockets.recv(p.server, got, 0, 10, Sockets.MSG_PEEK | Sockets.MSG_DONTWAIT)).as("end of stream after the data").isZero();
            assertThat(Sockets.setInt(p.server, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF, -1)).isZero();
            assertThat(Sockets.peekPast(p.server, skip, 750, got, 0, 10)).as("nothing after skip now").isZero();
            assertThat(Sockets.discard(p.server, 750)).isEqualTo(750);
            assertThat(Sockets.peekPast(p.server, skip, 0, got, 0, 10)).as("end, nothing queued").isEqualTo(-1);
        }
    }

    @Test
    void sendAfterPeerResetIsAnErrorNotASignal() throws Exception {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            Sockets.setLingerZero(p.server);
            Libc.close(p.server);
            MemorySegment buf = arena.allocate(16);
            long deadline = System.nanoTime() + 5_000_000_000L;
            int r;
            do {
                r = Sockets.send(p.client, buf, 0, 16, 0);
                Thread.sleep(1);
            } while (r >= 0 && System.nanoTime() < deadline);
            assertThat(r).isIn(-Errno.EPIPE, -Errno.ECONNRESET);
        }
    }

    @Test
    void shutdownWriteGivesPeerEof() {
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.shutdown(p.client, Sockets.SHUT_WR)).isZero();
            LibcTest.waitReadable(p.server);
            assertThat(Sockets.recv(p.server, arena.allocate(4), 0, 4, 0)).isZero();
            assertThat(Sockets.shutdown(-1, Sockets.SHUT_RDWR)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void notConnectedSocket() {
        int fd = Sockets.tcp4();
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.send(fd, arena.allocate(1), 0, 1, 0)).isIn(-Errno.EPIPE, -Errno.ENOTCONN);
            assertThat(Sockets.shutdown(fd, Sockets.SHUT_WR)).isEqualTo(-Errno.ENOTCONN);
        } finally {
            Libc.close(fd);
        }
    }
}
