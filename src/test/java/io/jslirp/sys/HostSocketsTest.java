package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kernel's {@link HostSockets} on loopback, the same calls for both versions: an address is
 * two halves, IPv4 in its mapped form, and peers come back in that form whatever the socket's family.
 */
class HostSocketsTest {
    private static final HostSockets S = HostSockets.SYSTEM;
    private static final long MAPPED = 0xffffL << 32;

    /** 127.0.0.1 as ::ffff:127.0.0.1, or ::1. */
    private static long[] loopback(boolean ipv6) {
        return ipv6 ? new long[] {0, 1} : new long[] {0, MAPPED | 0x7f000001L};
    }

    private static int boundPort(int fd) {
        int port = Sockets.localPort(fd);
        assertThat(port).isPositive();
        return port;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void datagramsGoAndComeWithTheirPeerInTheOneAddressForm(boolean ipv6) {
        long[] lo = loopback(ipv6);
        int a = S.udp(ipv6), b = S.udp(ipv6);
        MemorySegment buf = Arena.ofAuto().allocate(64);
        try {
            assertThat(S.bind(a, lo[0], lo[1], 0)).isZero();
            assertThat(S.bind(b, lo[0], lo[1], 0)).isZero();
            buf.setString(0, "hello");
            assertThat(S.sendTo(a, buf, 0, 5, lo[0], lo[1], boundPort(b))).isEqualTo(5);
            long[] peer = new long[3];
            int n = -Errno.EAGAIN;
            for (int i = 0; i < 100 && n == -Errno.EAGAIN; i++) n = S.recvFrom(b, buf, 10, 20, peer);
            assertThat(n).isEqualTo(5);
            assertThat(buf.asSlice(10, 5).toArray(ValueLayout.JAVA_BYTE)).isEqualTo("hello".getBytes());
            assertThat(peer).containsExactly(lo[0], lo[1], boundPort(a));

            assertThat(S.connect(b, peer[0], peer[1], (int) peer[2])).isZero();
            assertThat(S.write(b, buf, 10, 5)).isEqualTo(5);
            n = -Errno.EAGAIN;
            for (int i = 0; i < 100 && n == -Errno.EAGAIN; i++) n = S.read(a, buf, 30, 20);
            assertThat(n).isEqualTo(5);
        } finally {
            S.close(a);
            S.close(b);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAcceptedClientComesInTheOneAddressForm(boolean ipv6) throws Exception {
        long[] lo = loopback(ipv6);
        int listener = S.tcp(ipv6), client = S.tcp(ipv6);
        try {
            assertThat(S.bind(listener, lo[0], lo[1], 0)).isZero();
            assertThat(S.listen(listener, 4)).isZero();
            int r = S.connect(client, lo[0], lo[1], boundPort(listener));
            assertThat(r == 0 || r == -Errno.EINPROGRESS).as("connect: %d", r).isTrue();
            long[] peer = new long[3];
            int accepted = -Errno.EAGAIN;
            for (int i = 0; i < 200 && accepted == -Errno.EAGAIN; i++) {
                accepted = S.accept(listener, peer);
                if (accepted == -Errno.EAGAIN) Thread.sleep(5);
            }
            assertThat(accepted).isPositive();
            assertThat(peer).containsExactly(lo[0], lo[1], boundPort(client));
            assertThat(S.soError(client)).isZero();
            S.close(accepted);
        } finally {
            S.close(listener);
            S.close(client);
        }
    }
}
