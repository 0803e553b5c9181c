package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.NONE;
import static io.jslirp.tcp.TcpHarness.SECOND;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.RST;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConnection.State;
import io.jslirp.tcp.TcpHarness.Sent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The three-way handshake with the guest, gated on the host connect. */
class TcpHandshakeTest {

    @Test
    void noSynAckBeforeTheHostConnectSucceeds() {
        TcpHarness h = TcpHarness.with().connecting();
        assertThat(h.conn.state()).isEqualTo(State.CONNECTING);
        h.assertSent(h.flush());

        // The guest retransmits its SYN while the host connect is still in progress: still nothing.
        h.advance(SECOND);
        h.guest(seg(SYN).seq(h.g(0)).mss(1460));
        h.assertSent(h.flush());
        assertThat(h.conn.state()).isEqualTo(State.CONNECTING);
        assertThat(h.timerArmed()).as("no timer of ours runs before the host answers").isFalse();
    }

    @Test
    void hostConnectedAnswersWithSynAck() {
        TcpHarness h = TcpHarness.with().buffers(16384, 16384).connecting();
        h.hostConnected();

        h.assertSent(h.drain(), sent(SYN | ACK).seq(h.r(0)).ack(h.g(1)).window(16384).len(0).mss(1460).wscale(NONE));
        assertThat(h.conn.state()).isEqualTo(State.SYN_RECEIVED);
        assertThat(h.timerIn()).as("SYN-ACK retransmission timer").isEqualTo(TcpConfig.INITIAL_RTO_NANOS);
        h.assertSent(h.flush()); // nothing more at the end of the iteration
    }

    @ParameterizedTest
    @ValueSource(ints = {576, 1500, 9000, 65520})
    void synAckAnnouncesMtuMinus40EvenToAGuestWithASmallerMss(int mtu) {
        TcpHarness h = TcpHarness.with().config(TcpConfig.forMtu(mtu)).guestMss(536).connecting();
        h.hostConnected();
        Sent synAck = h.single(h.drain());
        assertThat(synAck.mss()).isEqualTo(mtu - 40).isEqualTo(h.config.mss());
    }

    @Test
    void windowScaleOnlyWhenTheGuestOffersIt() {
        TcpConfig oneMiB = TcpHarness.Builder.fullSize(TcpConfig.forMtu(1500)); // 1 MiB receive buffer: shift 5
        assertThat(oneMiB.windowShift()).isEqualTo(5);

        TcpHarness offered = TcpHarness.with().config(oneMiB).guestWscale(7).connecting();
        offered.hostConnected();
        offered.assertSent(offered.drain(),
                sent(SYN | ACK).seq(offered.r(0)).ack(offered.g(1)).window(0xffff).mss(1460).wscale(5));

        TcpHarness notOffered = TcpHarness.with().config(oneMiB).guestWscale(NONE).connecting();
        notOffered.hostConnected();
        notOffered.assertSent(notOffered.drain(),
                sent(SYN | ACK).seq(notOffered.r(0)).ack(notOffered.g(1)).window(0xffff).mss(1460).wscale(NONE));
    }

    @Test
    void aWindowLargerThanASynAckCanOfferIsToldWithTheFirstAckNotInAFrameOfItsOwn() {
        TcpHarness h = TcpHarness.with().guestWscale(7).connecting();
        h.conn.hostRoom(4 << 20); // as the NAT measures the host socket at its connect
        h.hostConnected();
        assertThat(h.single(h.drain()).window()).as("never scaled in a SYN").isEqualTo(0xffff);
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(0xffff));
        h.assertSent(h.flush());
        h.conn.hostRoom(4 << 20); // measured again (the socket signalled room)
        h.assertSent(h.flush()); // the guest may send 64 KiB and has sent nothing: nothing to tell it yet
        h.host.socketRoom = Integer.MAX_VALUE;
        h.guest(h.guestData(0, 100, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(101)).window(h.config.receiveBuffer() >>> 5).len(0));
    }

    @Test
    void windowScaleZeroIsStillAnOffer() {
        // A guest offering shift 0 still negotiates scaling, so we must answer with our shift.
        TcpHarness h = TcpHarness.with().guestWscale(0).connecting();
        h.hostConnected();
        assertThat(h.single(h.drain()).wscale()).isEqualTo(h.config.windowShift());
    }

    @Test
    void retransmittedGuestSynResendsTheSynAckExactlyOnce() {
        TcpHarness h = TcpHarness.with().buffers(16384, 16384).connecting();
        h.hostConnected();
        h.drain();

        h.advanceMillis(1000);
        h.guest(seg(SYN).seq(h.g(0)).mss(1460));
        List<Sent> out = new ArrayList<>(h.drain());
        out.addAll(h.flush());
        h.assertSent(out, sent(SYN | ACK).seq(h.r(0)).ack(h.g(1)).window(16384).mss(1460).wscale(NONE));
        assertThat(h.conn.state()).isEqualTo(State.SYN_RECEIVED);
    }

    @Test
    void ackOfTheSynAckEstablishes() {
        TcpHarness h = TcpHarness.with().connecting();
        h.hostConnected();
        h.drain();
        h.hostSends(100);
        h.assertSent(h.flush()); // no host data before the guest is connected

        h.advanceMillis(3);
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(1000));

        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
        assertThat(h.timerArmed()).as("SYN-ACK timer stopped").isFalse();
        // No ACK for an ACK; the host's bytes go now.
        h.assertSent(h.flush(), sent(ACK | io.jslirp.wire.Tcp.PSH).seq(h.r(1)).ack(h.g(1)).payload(TcpHarness.hostStream(0, 100)));
        assertThat(h.host.closed).isEmpty();
    }

    @Test
    void handshakeAckMayCarryData() {
        TcpHarness h = TcpHarness.with().buffers(16384, 16384).connecting();
        h.hostConnected();
        h.drain();

        h.guest(h.guestData(0, 100, 1));

        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
        assertThat(h.toHostBytes()).isEqualTo(TcpHarness.guestStream(0, 100));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(101)).window(16384 - 100).len(0));
    }

    @Test
    void unacceptableAckInSynReceivedIsReset() {
        TcpHarness h = TcpHarness.with().connecting();
        h.hostConnected();
        h.drain();

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1000)));

        // RFC 9293 3.10.7.4: <SEQ=SEG.ACK><CTL=RST>, and the connection stays in SYN-RECEIVED.
        List<Sent> out = new ArrayList<>(h.drain());
        out.addAll(h.flush());
        h.assertSent(out, sent(RST).seq(h.r(1000)).len(0));
        assertThat(h.conn.state()).isEqualTo(State.SYN_RECEIVED);
        assertThat(h.host.closed).isEmpty();
    }

    @Test
    void synAckRetransmittedWithBackoffThenGivenUp() {
        TcpHarness h = TcpHarness.with().buffers(16384, 16384).connecting();
        h.hostConnected();
        h.drain();

        long rto = TcpConfig.INITIAL_RTO_NANOS;
        for (int i = 1; i <= TcpConfig.MAX_RETRANSMISSIONS; i++) {
            assertThat(h.timerIn()).as("wait before retransmission %d", i).isEqualTo(rto);
            h.assertSent(h.fireTimer(), sent(SYN | ACK).seq(h.r(0)).ack(h.g(1)).mss(1460));
            rto = Math.min(rto * 2, TcpConfig.MAX_RTO_NANOS);
        }
        assertThat(h.host.closed).isEmpty();

        h.assertSent(h.fireTimer(), sent(RST | ACK).seq(h.r(1)).ack(h.g(1)).window(0).len(0));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(true);
    }

    @Test
    void hostRefusedResetsTheGuestAndCloses() {
        TcpHarness h = TcpHarness.with().connecting();

        h.hostRefused();

        h.assertSent(h.drain(), sent(RST | ACK).seq(0).ack(h.g(1)).window(0).len(0).noOptions());
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);

        // Whatever else arrives for it is ignored; the flow's owner removes it.
        h.guest(seg(SYN).seq(h.g(0)));
        h.hostRefused();
        h.hostConnected();
        h.assertSent(h.flush());
        assertThat(h.host.closed).hasSize(1);
    }

    @Test
    void guestResetWhileConnectingCloses() {
        TcpHarness h = TcpHarness.with().connecting();
        h.guest(seg(RST).seq(h.g(1)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(true);

        h.hostConnected();
        h.assertSent(h.flush());
    }

    @Test
    void guestResetInSynReceivedCloses() {
        TcpHarness h = TcpHarness.with().connecting();
        h.hostConnected();
        h.drain();

        h.guest(seg(RST).seq(h.g(1)));

        h.assertSent(h.flush());
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(true);
        assertThat(h.timerArmed()).isFalse();
    }
}
