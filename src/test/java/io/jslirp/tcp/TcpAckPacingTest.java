package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.guestStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.FIN;
import static io.jslirp.wire.Tcp.PSH;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * ACK pacing ({@link Receiver#ACK_HOLD_NANOS}): within a one-way run of guest data, an ACK
 * for less than a stride ({@link TcpConnection#ACK_STRIDE_BYTES}, at least two full segments) waits
 * for the segments that complete it, for at most the hold, so that a guest writing small pieces
 * coalesces them (Nagle) into full segments and takes fewer ACKs; everything else is acknowledged
 * in the iteration it arrived in (lesson 4). The guest here sends no timestamps: a full segment is
 * the MSS, 1460, and a stride at MTU 1500 is 8 KiB, five full segments and a part.
 */
class TcpAckPacingTest {
    private static final int SMALL = 1024, FULL = 1460;
    /** Where the run stands after {@link #afterABulkRun}: one small segment short of {@link Receiver#BULK_RUN_BYTES}. */
    private static final long RUN = Receiver.BULK_RUN_BYTES - SMALL;

    /**
     * A connection whose guest has sent a run of {@link #RUN} bytes in 1 KiB segments, one an
     * iteration, into a host socket that takes everything: each was acknowledged
     * at once (a flow's first bytes never wait).
     */
    private static TcpHarness afterABulkRun() {
        return afterABulkRun(TcpHarness.with().guestWscale(7).established());
    }

    private static TcpHarness afterABulkRun(TcpHarness h) {
        h.host.socketRoom = Integer.MAX_VALUE;
        for (long at = 0; at < RUN; at += SMALL) {
            h.guest(h.guestData(at, SMALL, 1));
            h.assertSent(h.flush(), sent(ACK).ack(h.g(at + SMALL + 1)).len(0));
            h.advance(100_000);
        }
        assertThat(h.timerArmed()).isFalse();
        return h;
    }

    @Test
    void aSmallSegmentOfARunWaitsForTheSegmentsThatCompleteAStride() {
        TcpHarness h = afterABulkRun();
        h.guest(h.guestData(RUN, SMALL, 1));
        h.assertSent(h.flush());
        assertThat(h.timerIn()).isEqualTo(Receiver.ACK_HOLD_NANOS);
        assertThat(h.host.taken()).as("the bytes themselves do not wait").hasSize((int) RUN + SMALL);

        long at = RUN + SMALL;
        for (int i = 1; i <= 4; i++, at += FULL) { // 1 KiB and four full segments: 6,864 bytes
            h.advance(100_000);
            h.guest(h.guestData(at, FULL, 1));
            h.assertSent(h.flush());
            assertThat(h.timerIn()).as("the hold runs from the first byte it covers").isEqualTo(Receiver.ACK_HOLD_NANOS - i * 100_000L);
        }

        h.advance(100_000);
        h.guest(h.guestData(at, FULL, 1)); // 8,324 bytes: a stride
        h.assertSent(h.flush(), sent(ACK).ack(h.g(at + FULL + 1)).len(0));
        assertThat(h.timerArmed()).as("no hold left armed").isFalse();
    }

    @Test
    void aHeldAckGoesWhenTheHoldEnds() {
        TcpHarness h = afterABulkRun();
        h.guest(h.guestData(RUN, SMALL, 1));
        h.assertSent(h.flush());
        h.advance(Receiver.ACK_HOLD_NANOS - 1);
        h.assertSent(h.flush());

        h.assertSent(h.fireTimer(), sent(ACK).ack(h.g(RUN + SMALL + 1)).len(0));
        assertThat(h.timerArmed()).isFalse();
    }

    @Test
    void aStrideInOneIterationIsAckedAtOnce() {
        TcpHarness h = afterABulkRun();
        for (int k = 0; k < 6; k++) h.guest(h.guestData(RUN + k * FULL, FULL, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 6 * FULL + 1)).len(0));
    }

    @Test
    void atALargeMssTheStrideIsTwoFullSegments() {
        int mss = 65520 - 40;
        TcpHarness h = afterABulkRun(TcpHarness.with().config(TcpHarness.Builder.fullSize(TcpConfig.forMtu(65520)))
                .guestMss(mss).guestWscale(7).established());
        h.guest(h.guestData(RUN, mss, 1)); // eight times the 8 KiB, yet one segment
        h.assertSent(h.flush());
        assertThat(h.timerIn()).isEqualTo(Receiver.ACK_HOLD_NANOS);
        h.guest(h.guestData(RUN + mss, mss, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 2L * mss + 1)).len(0));
    }

    @Test
    void aPauseEndsTheRun() {
        TcpHarness h = afterABulkRun();
        h.advance(Receiver.RUN_PAUSE_NANOS);
        h.guest(h.guestData(RUN, SMALL, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + SMALL + 1)).len(0));
    }

    @Test
    void dataTowardTheGuestEndsTheRun() {
        TcpHarness h = afterABulkRun();
        h.hostSends(10); // a reply: the flow is an exchange, whose requests are answered at once
        h.assertSent(h.flush(), sent(ACK | PSH).ack(h.g(RUN + 1)).len(10));
        h.guest(h.guestData(RUN, SMALL, 11));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + SMALL + 1)).len(0));
    }

    @Test
    void aFinIsAckedAtOnce() {
        TcpHarness h = afterABulkRun();
        h.guest(seg(ACK | FIN).seq(h.g(RUN + 1)).ack(h.r(1)).payload(guestStream(RUN, 100)));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 100 + 2)).len(0));
    }

    @Test
    void dataBeyondAGapIsAnsweredAtOnce() {
        TcpHarness h = afterABulkRun();
        h.guest(h.guestData(RUN + SMALL, SMALL, 1)); // the segment before it was lost
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 1)).len(0));
        h.guest(h.guestData(RUN, SMALL, 1)); // the gap filled
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 2 * SMALL + 1)).len(0));
    }

    @Test
    void aWindowThatReopensIsAnnouncedAtOnce() {
        int buf = 32 << 10, step = 10 * SMALL; // a stride and more each iteration
        TcpHarness h = afterABulkRun(TcpHarness.with().buffers(buf, buf).established()); // window field in bytes
        h.host.socketRoom = 0; // the host peer stops reading: what comes next fills the buffer
        long at = RUN;
        for (int i = 0; i < 3; i++, at += step) {
            for (int k = 0; k < 10; k++) h.guest(h.guestData(at + k * SMALL, SMALL, 1));
            h.assertSent(h.flush(), sent(ACK).ack(h.g(at + step + 1)).window(buf - (int) (at + step - RUN)).len(0));
        }
        h.guest(h.guestData(at, SMALL, 1)); // 1 KiB, with 1 KiB of the window left
        h.hostWrote(3 * step); // and the host socket took what was buffered, in the same iteration
        h.assertSent(h.flush(), sent(ACK).ack(h.g(at + SMALL + 1)).window(buf - SMALL).len(0));
    }

    @Test
    void aSmallSegmentThatRepeatsDataIsAckedAtOnce() {
        TcpHarness h = afterABulkRun();
        h.guest(h.guestData(RUN - SMALL, SMALL, 1)); // our ACK for it was lost
        h.assertSent(h.flush(), sent(ACK).ack(h.g(RUN + 1)).len(0));
    }
}
