package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class SockDiagTest {
    private static final int LOOPBACK = 0x7F000001;

    @Test
    void portsOfADumpDatagram() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(1024, 8);
            int off = 0;
            off = diag(a, off, 7, 8080);
            off = diag(a, off, 6, 9999); // another request's answer
            off = diag(a, off, 7, 53);
            int done = off;
            header(a, done, 20, NetlinkSocket.NLMSG_DONE, 7);
            BitSet ports = new BitSet();
            assertThat(SockDiag.parse(a, done, 7, ports)).as("more to come").isZero();
            assertThat(SockDiag.parse(a, done + 20, 7, ports)).isEqualTo(1);
            assertThat(ports.stream().boxed().toList()).containsExactly(53, 8080);

            header(a, 0, 36, NetlinkSocket.NLMSG_ERROR, 8);
            a.set(ValueLayout.JAVA_INT_UNALIGNED, 16, -Errno.ENOENT);
            assertThat(SockDiag.parse(a, 36, 8, new BitSet())).isEqualTo(-Errno.ENOENT);
        }
    }

    private static int diag(MemorySegment a, int off, int sequence, int port) {
        header(a, off, 16 + 72, (short) 20, sequence);
        a.set(Native.NET_SHORT, off + 16 + 4, (short) port);
        return off + 16 + 72;
    }

    private static void header(MemorySegment a, int off, int length, short type, int sequence) {
        a.set(ValueLayout.JAVA_INT_UNALIGNED, off, length);
        a.set(ValueLayout.JAVA_SHORT_UNALIGNED, off + 4, type);
        a.set(ValueLayout.JAVA_INT_UNALIGNED, off + 8, sequence);
    }

    @Test
    void listenersAndUnconnectedUdpSocketsOfThisNamespace() {
        int listener = Sockets.tcp4(), client = Sockets.tcp4(), bound = Sockets.udp6(), connected = Sockets.udp4();
        try (SockDiag diag = SockDiag.open()) {
            assertThat(Sockets.bind4(listener, LOOPBACK, 0)).isZero();
            assertThat(Sockets.listen(listener, 4)).isZero();
            int port = Sockets.localPort(listener);
            Sockets.connect4(client, LOOPBACK, port);
            int clientPort = Sockets.localPort(client);
            assertThat(Sockets.bind(bound, 0, 1, 0)).isZero();
            assertThat(Sockets.bind4(connected, LOOPBACK, 0)).isZero();
            assertThat(Sockets.connect4(connected, LOOPBACK, 9)).isZero();
            int connectedPort = Sockets.localPort(connected);

            BitSet tcp = new BitSet();
            diag.localPorts(SockDiag.TCP, SockDiag.LISTEN, tcp);
            assertThat(tcp.get(port)).isTrue();
            assertThat(tcp.get(clientPort)).as("a connection is no listener").isFalse();
            BitSet udp = new BitSet();
            diag.localPorts(SockDiag.UDP, SockDiag.CLOSE, udp);
            assertThat(udp.get(connectedPort)).isFalse();
            BitSet all = new BitSet();
            diag.localPorts(SockDiag.UDP, SockDiag.CLOSE | 1 << 1, all);
            assertThat(all.get(connectedPort)).as("established too when asked").isTrue();
            Libc.close(listener);
            BitSet after = new BitSet();
            diag.localPorts(SockDiag.TCP, SockDiag.LISTEN, after);
            assertThat(after.get(port)).isFalse();
        } finally {
            Libc.close(client);
            Libc.close(bound);
            Libc.close(connected);
        }
    }

    /**
     * The socket bypass's dump: an open connection's both ends are there, found by their cookies,
     * with their state, ends, the bytes received and queued; once both are closed, the client's
     * end no longer (it is in TIME_WAIT, or gone).
     */
    @Test
    void openTcpSocketsAreDumpedWithTheirCookies() {
        long cookie;
        try (SockDiag diag = SockDiag.open()) {
            try (TcpPair pair = new TcpPair(); Arena arena = Arena.ofConfined()) {
                cookie = Sockets.cookie(pair.client);
                long serverCookie = Sockets.cookie(pair.server);
                assertThat(cookie).isNotZero().isNotEqualTo(serverCookie);
                MemorySegment data = arena.allocate(100);
                assertThat(Sockets.send(pair.server, data, 0, 100, 0)).isEqualTo(100);
                SockDiag.TcpSocket client = null;
                long deadline = System.nanoTime() + 5_000_000_000L;
                do {
                    java.util.Map<Long, SockDiag.TcpSocket> open = new java.util.HashMap<>();
                    diag.openTcp(t -> open.put(t.cookie(), t));
                    assertThat(open).containsKey(serverCookie);
                    client = open.get(cookie);
                } while ((client == null || client.receiveQueue() < 100) && System.nanoTime() < deadline);
                assertThat(client).isNotNull();
                assertThat(client.state()).as("ESTABLISHED").isEqualTo(1);
                assertThat(client.localLo()).isEqualTo(0xffff00000000L | LOOPBACK);
                assertThat(client.localPort()).isEqualTo(Sockets.localPort(pair.client));
                assertThat(client.remotePort()).isEqualTo(Sockets.localPort(pair.server));
                assertThat(client.receiveQueue()).isEqualTo(100);
                assertThat(client.bytesReceived()).isEqualTo(100);
            }
            java.util.Set<Long> after = new java.util.HashSet<>();
            diag.openTcp(t -> after.add(t.cookie()));
            assertThat(after).doesNotContain(cookie);
        }
    }
}
