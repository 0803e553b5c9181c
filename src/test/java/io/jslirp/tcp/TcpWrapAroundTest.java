package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.guestStream;
import static io.jslirp.tcp.TcpHarness.hostStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.FIN;
import static io.jslirp.wire.Tcp.PSH;
import static io.jslirp.wire.Tcp.RST;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConnection.State;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A whole connection with initial sequence numbers placed so both directions cross 2^32 (and 2^31). */
class TcpWrapAroundTest {
    private static final int MSS = 1460;
    private static final int BUF = 16384;

    @ParameterizedTest(name = "guest ISN {0}, our ISN {1}")
    @CsvSource({
            "0xffffff6a, 0xfffff830", // both wrap a few hundred / thousand bytes in
            "0xffffffff, 0xffffffff", // the first data byte is sequence number 0
            "0xfffffffe, 0x00000000", // the SYN-ACK itself takes 0
            "0x7fffff6a, 0x7ffff830", // crossing the signed boundary instead
    })
    void fullConnectionAcrossTheWrap(String guestIsn, String ourIsn) {
        int irs = Integer.parseUnsignedInt(guestIsn.substring(2), 16);
        int iss = Integer.parseUnsignedInt(ourIsn.substring(2), 16);
        TcpHarness h = TcpHarness.with().buffers(BUF, 1 << 16).guestIsn(irs).iss(iss).connecting();

        h.hostConnected();
        h.assertSent(h.drain(), sent(SYN | ACK).seq(iss).ack(irs + 1));
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)));
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);

        // Guest data across the wrap, one ACK.
        h.guest(h.guestData(0, 100, 1));
        h.guest(h.guestData(100, 100, 1));
        h.guest(h.guestData(200, 100, 1));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(301)).window(BUF - 300));

        // Out of order, overlap, keepalive, in-window RST, all relative to a wrapped rcvNxt.
        h.guest(h.guestData(400, 100, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(301)));
        h.guest(h.guestData(250, 150, 1)); // fills the gap: the data kept beyond it counts too
        h.assertSent(h.flush(), sent(ACK).ack(h.g(501)));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 500));
        h.guest(seg(ACK).seq(h.g(500)).ack(h.r(1)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(501)));
        h.guest(seg(RST).seq(h.g(600)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(501)));
        h.guest(seg(RST).seq(h.g(501 + BUF)));
        h.assertSent(h.flush());
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);

        // Host data across the wrap, with a loss repaired by fast retransmit.
        h.hostSends(4 * MSS);
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).payload(hostStream(0, MSS)),
                sent(ACK).seq(h.r(1 + MSS)).payload(hostStream(MSS, MSS)),
                sent(ACK).seq(h.r(1 + 2 * MSS)).payload(hostStream(2 * MSS, MSS)),
                sent(ACK | PSH).seq(h.r(1 + 3 * MSS)).payload(hostStream(3 * MSS, MSS)));
        for (int i = 0; i < 4; i++) h.guest(seg(ACK).seq(h.g(501)).ack(h.r(1 + MSS)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1 + MSS)).payload(hostStream(MSS, MSS)));
        h.guest(seg(ACK).seq(h.g(501)).ack(h.r(1 + 4 * MSS)));
        assertThat(h.timerArmed()).isFalse();
        assertThat(h.hostQueued()).isZero();

        // RTO across the wrap.
        h.hostSends(100);
        h.flush();
        h.assertSent(h.fireTimer(), sent(ACK | PSH).seq(h.r(1 + 4 * MSS)).payload(hostStream(4 * MSS, 100)));
        h.guest(seg(ACK).seq(h.g(501)).ack(h.r(101 + 4 * MSS)));
        assertThat(h.timerArmed()).isFalse();

        // Close: guest first, then the host.
        h.hostWrote(500);
        h.guest(seg(FIN | ACK).seq(h.g(501)).ack(h.r(101 + 4 * MSS)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(502)).window(BUF));
        assertThat(h.conn.state()).isEqualTo(State.CLOSE_WAIT);
        h.hostFinishes();
        h.assertSent(h.flush(), sent(FIN | ACK).seq(h.r(101 + 4 * MSS)).ack(h.g(502)));
        h.guest(seg(ACK).seq(h.g(502)).ack(h.r(102 + 4 * MSS)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
    }

    @ParameterizedTest(name = "guest ISN {0}")
    @CsvSource({"0xfffffff0", "0x7ffffff0"})
    void hostRefusedAcksTheWrappedIsn(String guestIsn) {
        int irs = Integer.parseUnsignedInt(guestIsn.substring(2), 16);
        TcpHarness h = TcpHarness.with().guestIsn(irs).connecting();
        h.hostRefused();
        h.assertSent(h.drain(), sent(RST | ACK).ack(irs + 1));
    }
}
