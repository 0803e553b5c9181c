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
import org.junit.jupiter.api.Test;

/** Orderly close in every order, and aborts from the host side. */
class TcpCloseTest {
    private static final int MSS = 1460;
    private static final long TIME_WAIT = 2 * TcpHarness.SECOND;

    private static TcpHarness established() {
        return TcpHarness.with().buffers(16384, 16384).established();
    }

    // ---- the guest closes first ----

    @Test
    void guestFinIsAHalfClose() {
        TcpHarness h = established();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(2)).len(0));
        assertThat(h.conn.state()).isEqualTo(State.CLOSE_WAIT);
        assertThat(h.conn.guestFinished()).isTrue();
        assertThat(h.host.closed).isEmpty();

        // Host data still flows toward the guest.
        h.hostSends(2000);
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).ack(h.g(2)).payload(hostStream(0, MSS)),
                sent(ACK | PSH).seq(h.r(1 + MSS)).ack(h.g(2)).payload(hostStream(MSS, 2000 - MSS)));
        h.guest(seg(ACK).seq(h.g(2)).ack(h.r(2001)));
        h.assertSent(h.flush());

        // The host peer finishes too: FIN after the data.
        h.hostFinishes();
        h.assertSent(h.flush(), sent(FIN | ACK).seq(h.r(2001)).ack(h.g(2)).len(0));
        assertThat(h.conn.state()).isEqualTo(State.LAST_ACK);

        h.guest(seg(ACK).seq(h.g(2)).ack(h.r(2002)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
        h.assertSent(h.flush());
        assertThat(h.timerArmed()).isFalse();
    }

    @Test
    void finWithDataFinishesAfterTheData() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1).flags(FIN | ACK));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(102)).window(16384 - 100));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 100));
        assertThat(h.conn.guestFinished()).isTrue();
        assertThat(h.conn.state()).isEqualTo(State.CLOSE_WAIT);
    }

    @Test
    void finBeyondAHoleIsNotAcceptedAndGetsADuplicateAck() {
        TcpHarness h = established();
        h.guest(seg(FIN | ACK).seq(h.g(101)).ack(h.r(1))); // 100 bytes before it were lost
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(1)).len(0));
        assertThat(h.conn.guestFinished()).isFalse();
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);

        h.guest(h.guestData(0, 100, 1));
        h.guest(seg(FIN | ACK).seq(h.g(101)).ack(h.r(1)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(102)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSE_WAIT);
    }

    @Test
    void finBeyondAFullBufferIsNotAccepted() {
        TcpHarness h = TcpHarness.with().buffers(1000, 16384).established();
        h.guest(h.guestData(0, 1200, 1).flags(FIN | ACK));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1001)).window(0));
        assertThat(h.conn.guestFinished()).as("200 bytes before the FIN were not taken").isFalse();
    }

    @Test
    void retransmittedGuestFinIsAckedAgain() {
        TcpHarness h = established();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        h.flush();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(2)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSE_WAIT);
    }

    @Test
    void ourFinInLastAckIsRetransmitted() {
        TcpHarness h = established();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        h.hostFinishes();
        h.assertSent(h.flush(), sent(FIN | ACK).seq(h.r(1)).ack(h.g(2)));
        assertThat(h.conn.state()).isEqualTo(State.LAST_ACK);

        h.assertSent(h.fireTimer(), sent(FIN | ACK).seq(h.r(1)).ack(h.g(2)));
        h.guest(seg(ACK).seq(h.g(2)).ack(h.r(2)));
        assertThat(h.host.closed).containsExactly(false);
    }

    // ---- the host closes first ----

    @Test
    void hostFinishesFirst() {
        TcpHarness h = established();
        h.hostFinishes();
        h.assertSent(h.flush(), sent(FIN | ACK).seq(h.r(1)).ack(h.g(1)).len(0));
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_1);
        int peeks = h.host.peeks;
        h.assertSent(h.flush());
        assertThat(h.host.peeks).as("nothing is read past the host's end").isEqualTo(peeks);

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(2)));
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_2);
        h.assertSent(h.flush());
        assertThat(h.timerArmed()).isFalse();

        // The guest may go on sending: its half is still open.
        h.guest(h.guestData(0, 300, 2));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(301)).window(16384 - 300));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 300));
        h.hostWrote(300);

        h.guest(seg(FIN | ACK).seq(h.g(301)).ack(h.r(2)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(302)));
        assertThat(h.conn.state()).isEqualTo(State.TIME_WAIT);
        assertThat(h.conn.guestFinished()).isTrue();
        assertThat(h.timerIn()).isEqualTo(TIME_WAIT);

        // TIME_WAIT answers a retransmitted FIN (our ACK was lost).
        h.advanceMillis(500);
        h.guest(seg(FIN | ACK).seq(h.g(301)).ack(h.r(2)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(302)));
        assertThat(h.host.closed).isEmpty();

        h.assertSent(h.fireTimer());
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
    }

    @Test
    void finFollowsTheLastDataSegment() {
        TcpHarness h = established();
        h.hostSends(3000);
        h.hostFinishes();
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).len(MSS),
                sent(ACK).seq(h.r(1 + MSS)).len(MSS),
                sent(ACK | PSH | FIN).seq(h.r(1 + 2 * MSS)).payload(hostStream(2 * MSS, 3000 - 2 * MSS)));
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_1);

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(3001))); // the data, not the FIN
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_1);
        h.assertSent(h.fireTimer(), sent(FIN | ACK).seq(h.r(3001)).len(0));

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(3002)));
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_2);
    }

    @Test
    void finWaitsUntilTheWindowTakesTheLastByte() {
        TcpHarness h = TcpHarness.with().buffers(16384, 16384).established(2000);
        h.hostSends(3000);
        h.hostFinishes();
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).len(MSS), sent(ACK).seq(h.r(1 + MSS)).len(2000 - MSS));
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(2001)).window(2000));
        h.assertSent(h.flush(), sent(ACK | PSH | FIN).seq(h.r(2001)).payload(hostStream(2000, 1000)));
        assertThat(h.conn.state()).isEqualTo(State.FIN_WAIT_1);
    }

    @Test
    void simultaneousClose() {
        TcpHarness h = established();
        h.hostFinishes();
        h.assertSent(h.flush(), sent(FIN | ACK).seq(h.r(1)).ack(h.g(1)));

        // The guest's FIN crossed ours: it does not acknowledge our FIN yet.
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSING);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(2)).len(0));

        h.guest(seg(ACK).seq(h.g(2)).ack(h.r(2)));
        assertThat(h.conn.state()).isEqualTo(State.TIME_WAIT);
        assertThat(h.timerIn()).isEqualTo(TIME_WAIT);
        h.assertSent(h.fireTimer());
        assertThat(h.host.closed).containsExactly(false);
    }

    @Test
    void ourFinIsRetransmittedInClosing() {
        TcpHarness h = established();
        h.hostFinishes();
        h.flush();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(1)));
        h.flush();
        h.assertSent(h.fireTimer(), sent(FIN | ACK).seq(h.r(1)).ack(h.g(2)));
        assertThat(h.conn.state()).isEqualTo(State.CLOSING);
    }

    @Test
    void guestFinThatAcksOurFinGoesStraightToTimeWait() {
        TcpHarness h = established();
        h.hostFinishes();
        h.flush();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(2)));
        assertThat(h.conn.state()).isEqualTo(State.TIME_WAIT);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(2)));
        h.fireTimer();
        assertThat(h.host.closed).containsExactly(false);
    }

    @Test
    void aNewSynBeyondTheOldSequenceReopensATimeWaitConnection() {
        TcpHarness h = established();
        h.hostFinishes();
        h.flush();
        h.guest(seg(FIN | ACK).seq(h.g(1)).ack(h.r(2)));
        h.flush();
        assertThat(h.conn.state()).isEqualTo(State.TIME_WAIT);
        // The guest reused its port at once (RFC 1122 4.2.2.13): only a SYN beyond what this connection received.
        assertThat(h.conn.reopenedBy(TcpHarness.read(seg(SYN).seq(h.g(1000))))).isTrue();
        assertThat(h.conn.reopenedBy(TcpHarness.read(seg(SYN).seq(h.g(0))))).isFalse();
        assertThat(h.conn.reopenedBy(TcpHarness.read(seg(SYN | ACK).seq(h.g(1000))))).isFalse();
        h.retire();
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
        h.assertSent(h.flush());
    }

    @Test
    void onlyTimeWaitIsReopenedByASyn() {
        TcpHarness h = established();
        assertThat(h.conn.reopenedBy(TcpHarness.read(seg(SYN).seq(h.g(100_000))))).isFalse();
    }

    // ---- an orderly close never drops guest data the host has not taken yet ----

    @Test
    void lastAckDoesNotCloseBeforeTheGuestsDataReachedTheHost() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 500, 1).flags(FIN | ACK));
        h.flush();
        h.hostFinishes();
        h.flush();
        h.guest(seg(ACK).seq(h.g(502)).ack(h.r(2))); // both directions done on the wire

        assertThat(h.host.closed).as("500 bytes still wait for the host socket").isEmpty();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 500));

        h.hostWrote(200);
        h.flush();
        assertThat(h.host.closed).isEmpty();
        h.hostWrote(300);
        h.flush();
        assertThat(h.host.closed).containsExactly(false);
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void timeWaitDoesNotCloseBeforeTheGuestsDataReachedTheHost() {
        TcpHarness h = established();
        h.hostFinishes();
        h.flush();
        h.guest(h.guestData(0, 500, 2).flags(FIN | ACK));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2)).ack(h.g(502)));
        assertThat(h.conn.state()).isEqualTo(State.TIME_WAIT);

        h.fireTimer();
        assertThat(h.host.closed).as("500 bytes still wait for the host socket").isEmpty();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 500));

        h.hostWrote(500);
        h.flush();
        assertThat(h.host.closed).containsExactly(false);
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
    }

    // ---- aborts from the host side ----

    @Test
    void hostResetResetsTheGuest() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.hostSends(300);
        h.flush();

        h.hostReset();

        h.assertSent(h.drain(), sent(RST | ACK).seq(h.r(301)).ack(h.g(101)).window(0).len(0));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
        assertThat(h.timerArmed()).isFalse();

        // Late events are ignored.
        h.hostReset();
        h.guest(h.guestData(100, 100, 1));
        h.assertSent(h.flush());
        assertThat(h.host.closed).hasSize(1);
    }

    @Test
    void hostResetInFinWait2ResetsTheGuest() {
        TcpHarness h = established();
        h.hostFinishes();
        h.flush();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(2)));
        h.hostReset();
        h.assertSent(h.drain(), sent(RST | ACK).seq(h.r(2)).ack(h.g(1)));
        assertThat(h.host.closed).containsExactly(false);
    }

    @Test
    void hostResetBeforeTheConnectCompletedCloses() {
        TcpHarness h = TcpHarness.with().connecting();
        h.hostReset();
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(false);
    }
}
