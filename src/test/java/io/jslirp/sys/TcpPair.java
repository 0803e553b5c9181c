package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

/** A connected loopback TCP pair made with {@link Sockets} only; both ends non-blocking. */
final class TcpPair implements AutoCloseable {
    static final int LOOPBACK = 0x7F000001;

    final int client;
    final int server;

    TcpPair() {
        int listener = Sockets.tcp4();
        assertThat(listener).isPositive();
        try {
            assertThat(Sockets.bind4(listener, LOOPBACK, 0)).isZero();
            assertThat(Sockets.listen(listener, 4)).isZero();
            int port = Sockets.localPort(listener);
            client = Sockets.tcp4();
            int c = Sockets.connect4(client, LOOPBACK, port);
            assertThat(c).isIn(0, -Errno.EINPROGRESS);
            try (Epoll ep = new Epoll(4)) {
                ep.add(listener, Epoll.IN);
                assertThat(ep.wait(5000)).isEqualTo(1);
            }
            int[] peer = new int[2];
            server = Sockets.accept4(listener, peer);
            assertThat(server).isPositive();
            assertThat(peer[0]).isEqualTo(LOOPBACK);
        } finally {
            Libc.close(listener);
        }
    }

    @Override
    public void close() {
        Libc.close(client);
        Libc.close(server);
    }
}
