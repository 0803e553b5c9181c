package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.FIN;
import static io.jslirp.wire.Tcp.RST;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConnection.State;
import org.junit.jupiter.api.Test;

/** Resets and SYNs from the guest on a synchronized connection (RFC 9293, RFC 5961). */
class TcpResetTest {
    private static final int BUF = 16384;

    private static TcpHarness established() {
        return TcpHarness.with().buffers(BUF, BUF).established();
    }

    private static void assertStillOpen(TcpHarness h) {
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
        assertThat(h.host.closed).isEmpty();
    }

    @Test
    void exactResetCloses() {
        TcpHarness h = established();
        h.hostSends(500);
        h.flush(); // data in flight, timer armed

        h.guest(seg(RST).seq(h.g(1)));

        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(true);
        assertThat(h.timerArmed()).isFalse();
        h.assertSent(h.flush());

        h.guest(h.guestData(0, 10, 1)); // anything later is ignored
        h.assertSent(h.flush());
        assertThat(h.host.closed).hasSize(1);
    }

    @Test
    void exactResetWithAckCloses() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();
        h.guest(seg(RST | ACK).seq(h.g(101)).ack(h.r(1)));
        assertThat(h.host.closed).containsExactly(true);
    }

    @Test
    void inWindowResetGetsAChallengeAck() {
        TcpHarness h = established();
        h.guest(seg(RST).seq(h.g(100)));

        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(1)).window(BUF).len(0));
        assertStillOpen(h);

        // A guest that really meant it answers the challenge with an exact reset.
        h.guest(seg(RST).seq(h.g(1)));
        assertThat(h.host.closed).containsExactly(true);
    }

    @Test
    void resetAtTheLastByteOfTheWindowIsChallenged() {
        TcpHarness h = established();
        h.guest(seg(RST).seq(h.g(BUF)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1)));
        assertStillOpen(h);
    }

    @Test
    void outOfWindowResetIsIgnored() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        h.guest(seg(RST).seq(h.g(101 + BUF))); // just past the right edge
        h.guest(seg(RST).seq(h.g(100)));       // just before rcvNxt
        h.guest(seg(RST | ACK).seq(h.g(1)).ack(h.r(1)));
        h.guest(seg(RST).seq(h.g(0x4000_0000)));

        h.assertSent(h.flush());
        assertStillOpen(h);
    }

    @Test
    void withAZeroWindowOnlyTheExactResetCounts() {
        TcpHarness h = established();
        for (int o = 0; o < BUF; o += 1460) h.guest(h.guestData(o, Math.min(1460, BUF - o), 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(BUF + 1)).window(0));

        h.guest(seg(RST).seq(h.g(BUF + 2)));
        h.assertSent(h.flush());
        assertStillOpen(h);

        h.guest(seg(RST).seq(h.g(BUF + 1)));
        assertThat(h.host.closed).containsExactly(true);
    }

    @Test
    void synOnAnEstablishedConnectionGetsAChallengeAck() {
        TcpHarness h = established();
        h.guest(seg(SYN).seq(h.g(1000)).mss(1460)); // in the window
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(1)).len(0).noOptions());
        assertStillOpen(h);

        h.guest(seg(SYN).seq(h.g(0x6000_0000)).mss(1460)); // a new ISN far away
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(1)).len(0));
        assertStillOpen(h);

        h.guest(seg(SYN).seq(h.g(0)).mss(1460)); // its old SYN again
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(1)).len(0));
        assertStillOpen(h);
    }

    @Test
    void synCarryingDataDeliversNothing() {
        TcpHarness h = established();
        h.guest(seg(SYN | ACK).seq(h.g(1)).ack(h.r(1)).payload(TcpHarness.guestStream(0, 100)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1)));
        assertThat(h.toHostBytes()).isEmpty();
        assertStillOpen(h);
    }

    @Test
    void exactResetClosesInCloseWaitAndFinWait2() {
        TcpHarness closeWait = established();
        closeWait.guest(seg(FIN | ACK).seq(closeWait.g(1)).ack(closeWait.r(1)));
        closeWait.flush();
        closeWait.guest(seg(RST).seq(closeWait.g(2)));
        assertThat(closeWait.host.closed).containsExactly(true);

        TcpHarness finWait2 = established();
        finWait2.hostFinishes();
        finWait2.flush();
        finWait2.guest(seg(ACK).seq(finWait2.g(1)).ack(finWait2.r(2)));
        assertThat(finWait2.conn.state()).isEqualTo(State.FIN_WAIT_2);
        finWait2.guest(seg(RST).seq(finWait2.g(1)));
        assertThat(finWait2.host.closed).containsExactly(true);
    }
}
