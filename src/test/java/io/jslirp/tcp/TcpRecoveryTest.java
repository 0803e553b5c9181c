package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.guestStream;
import static io.jslirp.tcp.TcpHarness.hostStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Timestamps (RFC 7323), SACK blocks toward the guest (RFC 2018) and NewReno recovery (RFC 6582). */
class TcpRecoveryTest {
    private static final int MSS = 1460;
    private static final int BUF = 1 << 16;

    @Test
    void timestampsAreNegotiatedOnlyWhenOfferedAndEchoTheGuestsLatestTsVal() {
        TcpHarness plain = TcpHarness.with().connecting();
        plain.hostConnected();
        assertThat(plain.single(plain.drain()).hasTimestamps()).isFalse();

        TcpHarness h = TcpHarness.with().guestTimestamps(1000).buffers(BUF, BUF).connecting();
        h.hostConnected();
        TcpHarness.Sent synAck = h.single(h.drain());
        assertThat(synAck.flags()).isEqualTo(SYN | ACK);
        assertThat(synAck.hasTimestamps()).isTrue();
        assertThat(synAck.tsEcr()).isEqualTo(1000);

        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).timestamps(1005, synAck.tsVal()));
        h.guest(h.guestData(0, 100, 1).timestamps(1010, synAck.tsVal()));
        TcpHarness.Sent ack = h.single(h.flush());
        assertThat(ack.hasTimestamps()).isTrue();
        assertThat(ack.tsEcr()).as("echoes the newest in-order TSval").isEqualTo(1010);
        assertThat(ack.tsVal() - synAck.tsVal()).as("our clock ticks in ms").isEqualTo(0);

        h.advanceMillis(7);
        h.hostSends(MSS);
        TcpHarness.Sent data = h.flush().getFirst();
        assertThat(data.tsVal() - synAck.tsVal()).isEqualTo(7);
    }

    @Test
    void timestampsComeOutOfThePayloadSoSegmentsStillFitTheMtu() {
        TcpHarness h = TcpHarness.with().guestTimestamps(1).buffers(BUF, BUF).established();
        h.hostSends(3000);
        List<TcpHarness.Sent> sent = h.flush();
        assertThat(sent).extracting(TcpHarness.Sent::len).containsExactly(MSS - 12, MSS - 12, 3000 - 2 * (MSS - 12));
        assertThat(sent.getFirst().payload()).isEqualTo(hostStream(0, MSS - 12));
    }

    @Test
    void duplicateAcksCarrySackBlocksLatestFirstWhenTheGuestPermitsThem() {
        TcpHarness h = TcpHarness.with().guestSackPermitted().buffers(BUF, BUF).established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();
        h.guest(h.guestData(200, 100, 1));
        TcpHarness.Sent first = h.single(h.flush());
        assertThat(first.ack()).isEqualTo(h.g(101));
        assertThat(first.sack()).containsExactly(h.g(201), h.g(301));

        h.guest(h.guestData(500, 100, 1));
        TcpHarness.Sent second = h.single(h.flush());
        assertThat(second.sack()).containsExactly(h.g(501), h.g(601), h.g(201), h.g(301));

        h.guest(h.guestData(100, 100, 1));
        TcpHarness.Sent filled = h.single(h.flush());
        assertThat(filled.ack()).isEqualTo(h.g(301));
        assertThat(filled.sack()).containsExactly(h.g(501), h.g(601));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 300));

        TcpHarness noSack = TcpHarness.with().buffers(BUF, BUF).established();
        noSack.guest(noSack.guestData(200, 100, 1));
        assertThat(noSack.single(noSack.flush()).sack()).isEmpty();
    }

    @Test
    void dataKeptBeyondAGapSurvivesTheHostDrainingTheBuffer() {
        TcpHarness h = TcpHarness.with().buffers(BUF, BUF).established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();
        h.guest(h.guestData(200, 100, 1));
        h.flush();
        h.hostWrote(100); // the host socket takes everything in order: the buffer is empty
        h.guest(h.guestData(100, 100, 1));
        h.flush();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(100, 200));
    }

    @Test
    void outOfOrderStateIsBoundedButNothingIsLost() {
        TcpHarness h = TcpHarness.with().buffers(BUF, BUF).established();
        // Twice as many separate islands as ranges are kept: the extra ones are dropped, and
        // retransmitted later by the guest; the stream stays intact.
        for (int i = 0; i < 2 * OutOfOrder.MAX_RANGES; i++) h.guest(h.guestData(200L * (i + 1), 100, 1));
        h.flush();
        for (long from = 0; from < 200L * (2 * OutOfOrder.MAX_RANGES + 1); from += 100) h.guest(h.guestData(from, 100, 1));
        h.flush();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 200 * (2 * OutOfOrder.MAX_RANGES + 1)));
    }

    @Test
    void theWindowIsWhatTheHostSocketTakesPlusTheSlack() {
        TcpConfig config = new TcpConfig(1460, 1 << 20, 1 << 20, 1 << 14, 2 * TcpHarness.SECOND, TcpConfig.DEFAULT_BUFFER_BUDGET);
        int shift = config.windowShift();
        TcpHarness h = TcpHarness.with().config(config).guestWscale(7).connecting();
        h.conn.hostRoom(100_000); // as the host side measures it once connected
        h.hostConnected();
        assertThat(h.single(h.drain()).window()).as("a SYN-ACK's window is never scaled").isEqualTo(0xffff);
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(0xffff));

        // 16 KiB from the guest wait for the flush's write: the window is what is left of room and slack.
        for (long from = 0; from < 1 << 14; from += 1024) h.guest(h.guestData(from, 1024, 1));
        TcpHarness.Sent ack = h.single(h.flush());
        assertThat((long) ack.window() << shift).isEqualTo(((100_000L + TcpConnection.SLACK - (1 << 14)) >> shift) << shift);
        long rightEdge = (1 << 14) + ((long) ack.window() << shift);

        // The socket took them and has that much less room: the right edge stays, nothing to tell.
        h.hostWrote(1 << 14);
        h.conn.hostRoom(100_000 - (1 << 14));
        h.assertSent(h.flush());

        // The host peer acknowledged: the socket has room again, and the guest hears of it at once.
        h.conn.hostRoom(1 << 19);
        TcpHarness.Sent update = h.single(h.flush());
        assertThat((long) update.window() << shift).isEqualTo((((1L << 19) + TcpConnection.SLACK) >> shift) << shift)
                .isGreaterThan(rightEdge - (1 << 14));

        // A socket with no room at all still leaves the guest the slack.
        h.conn.hostRoom(0);
        for (long from = 1 << 14; from < 1 << 15; from += 1024) h.guest(h.guestData(from, 1024, 1));
        TcpHarness.Sent held = h.single(h.flush());
        assertThat((long) held.window() << shift).as("never shrunk below what was offered")
                .isGreaterThanOrEqualTo(((1L << 19) + TcpConnection.SLACK - (1 << 14)) >> shift << shift);
        assertThat(h.conn.toHost().size()).as("what the socket refuses waits in toHost").isEqualTo(1 << 14);
    }

    @Test
    void sackBlocksFromTheGuestSteerRecoveryToTheGapsOnly() {
        TcpHarness h = TcpHarness.with().guestSackPermitted().buffers(BUF, BUF).established();
        h.hostSends(10 * MSS);
        assertThat(h.flush()).hasSize(10);
        // Segments 1 and 5 were lost. The guest ACKs segment 0, then SACKs what arrived after each gap.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)));
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + 3 * MSS)));
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + 4 * MSS)));
        assertThat(h.flush()).isEmpty();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + 5 * MSS)));
        TcpHarness.Sent first = h.single(h.flush());
        assertThat(first.seq()).as("the first gap").isEqualTo(h.r(1 + MSS));
        // A further duplicate ACK, now SACKing beyond the second gap: that gap goes next, before any ACK moves.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 6 * MSS), h.r(1 + 10 * MSS), h.r(1 + 2 * MSS), h.r(1 + 5 * MSS)));
        TcpHarness.Sent second = h.single(h.flush());
        assertThat(second.seq()).as("the second gap, skipping the SACKed segments").isEqualTo(h.r(1 + 5 * MSS));
        assertThat(second.payload()).isEqualTo(hostStream(5 * MSS, MSS));
        // Nothing else is missing: more duplicate ACKs resend nothing.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 6 * MSS), h.r(1 + 10 * MSS), h.r(1 + 2 * MSS), h.r(1 + 5 * MSS)));
        assertThat(h.flush()).isEmpty();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + 10 * MSS)));
        assertThat(h.flush()).isEmpty();
        assertThat(h.timerArmed()).isFalse();
    }

    @Test
    void aLostRetransmissionIsResentWithoutWaitingForTheRto() {
        TcpHarness h = TcpHarness.with().guestSackPermitted().buffers(BUF, BUF).established();
        h.hostSends(6 * MSS);
        h.flush();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)));
        for (int i = 2; i <= 4; i++) h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + i * MSS)));
        assertThat(h.single(h.flush()).seq()).isEqualTo(h.r(1 + MSS));
        // The retransmission is lost as well; duplicate ACKs keep coming.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + 5 * MSS)));
        assertThat(h.flush()).as("too soon to call the retransmission lost").isEmpty();
        h.advanceMillis(5);
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + 6 * MSS)));
        TcpHarness.Sent again = h.single(h.flush());
        assertThat(again.seq()).isEqualTo(h.r(1 + MSS));
    }

    @Test
    void withNoMoreDuplicateAcksARecoveryTimerResendsTheFirstHoleLongBeforeTheRto() {
        TcpHarness h = TcpHarness.with().guestSackPermitted().buffers(BUF, BUF).established();
        h.hostSends(6 * MSS);
        h.flush();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)));
        for (int i = 2; i <= 4; i++) h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)).sack(h.r(1 + 2 * MSS), h.r(1 + i * MSS)));
        long sentAt = h.now;
        assertThat(h.single(h.flush()).seq()).isEqualTo(h.r(1 + MSS));
        // Nothing more arrives (the window is full, the retransmission was lost): the recovery
        // timer resends it after a few milliseconds, not after the 200 ms minimum RTO.
        TcpHarness.Sent probe = h.single(h.fireTimer());
        assertThat(probe.seq()).isEqualTo(h.r(1 + MSS));
        assertThat(h.now - sentAt).isLessThan(50 * TcpHarness.MS);
        // Everything acknowledged: the recovery timer is gone.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + 6 * MSS)));
        assertThat(h.flush()).isEmpty();
        assertThat(h.timerArmed()).isFalse();
    }

    @Test
    void partialAcksDuringRecoveryResendTheNextHoleAtOnce() {
        TcpHarness h = TcpHarness.with().buffers(BUF, BUF).established();
        h.hostSends(6 * MSS);
        assertThat(h.flush()).hasSize(6);
        // Segments 1 and 3 (0-based) were lost: an ACK for segment 0, then three duplicates.
        for (int i = 0; i < 4; i++) h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + MSS)));
        TcpHarness.Sent fast = h.single(h.flush());
        assertThat(fast.seq()).isEqualTo(h.r(1 + MSS));
        // The retransmission fills hole 1; the ACK stops at hole 3: resend it now, not at the RTO.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + 3 * MSS)));
        TcpHarness.Sent next = h.single(h.flush());
        assertThat(next.seq()).isEqualTo(h.r(1 + 3 * MSS));
        assertThat(next.payload()).isEqualTo(hostStream(3 * MSS, MSS));
        // Everything acknowledged: recovery over, nothing more to send.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1 + 6 * MSS)));
        assertThat(h.flush()).isEmpty();
        assertThat(h.timerArmed()).isFalse();
    }
}
