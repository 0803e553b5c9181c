package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.guestStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.PSH;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConnection.State;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Tcp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Guest data toward the host: acknowledgment policy (lesson 4: no delayed ACK, at most one ACK per
 * iteration), the honest receive window (lesson 3) and window updates when it reopens (lesson 1).
 */
class TcpReceiveTest {
    private static final int BUF = 16384;
    private static final int MSS = 1460;

    /** 16 KiB buffers, no window scaling: the window field is the free space in bytes. */
    private static TcpHarness established() {
        return TcpHarness.with().buffers(BUF, BUF).established();
    }

    /** Sends guest stream bytes [from, from+len) in MSS-sized segments within one iteration. */
    private static void guestSendsInSegments(TcpHarness h, long from, int len) {
        for (long o = from; o < from + len; o += MSS) {
            h.guest(h.guestData(o, (int) Math.min(MSS, from + len - o), 1));
        }
    }

    // ---- acknowledgments ----

    @Test
    void oneAckPerFlushHoweverManySegmentsArrived() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.guest(h.guestData(100, 100, 1));
        h.guest(h.guestData(200, 100, 1));
        h.assertSent(h.drain()); // nothing before the end of the iteration

        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(301)).window(BUF - 300).len(0).noOptions());
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 300));

        h.assertSent(h.flush()); // nothing left to acknowledge
    }

    @Test
    void dataIsAckedInTheSameIterationWithoutADelayedAckTimer() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 1, 1));

        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(2)).window(BUF - 1).len(0));
        assertThat(h.timerArmed()).as("no delayed-ACK (or any other) timer").isFalse();
    }

    @Test
    void everyIterationWithNewDataGetsItsOwnAck() {
        TcpHarness h = established();
        for (int i = 0; i < 5; i++) {
            h.guest(h.guestData(i * 10L, 10, 1));
            h.assertSent(h.flush(), sent(ACK).ack(h.g(1 + (i + 1) * 10L)));
        }
    }

    @Test
    void pureAcksAreNotAcked() {
        TcpHarness h = established();
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(5000));
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(6000));
        h.assertSent(h.flush());
    }

    @Test
    void keepaliveIsAnswered() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        // Linux: seq = rcvNxt - 1, no data.
        h.guest(seg(ACK).seq(h.g(100)).ack(h.r(1)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(101)).window(BUF - 100).len(0));

        // BSD / Windows: seq = rcvNxt - 1 with one garbage byte, which must not reach the host.
        h.guest(seg(ACK).seq(h.g(100)).ack(h.r(1)).payload(new byte[] {0x42}));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(101)).window(BUF - 100).len(0));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 100));
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
    }

    @Test
    void outOfOrderDataGetsADuplicateAckAndCountsOnceTheGapIsFilled() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        h.guest(h.guestData(200, 100, 1)); // 100..199 were lost
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(101)).window(BUF - 100).len(0));
        assertThat(h.toHostBytes()).as("nothing past the gap reaches the host").isEqualTo(guestStream(0, 100));

        // The gap is filled: the data kept beyond it is acknowledged and delivered too.
        h.guest(h.guestData(100, 100, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(301)).window(BUF - 300));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 300));
    }

    @Test
    void everyOutOfOrderSegmentGetsItsOwnDuplicateAckSoTheGuestCanFastRetransmit() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        // One iteration, three segments after a hole: three duplicate ACKs, not one.
        h.guest(h.guestData(200, 100, 1));
        h.guest(h.guestData(300, 100, 1));
        h.guest(h.guestData(400, 100, 1));
        h.assertSent(h.flush(),
                sent(ACK).ack(h.g(101)).len(0),
                sent(ACK).ack(h.g(101)).len(0),
                sent(ACK).ack(h.g(101)).len(0));
    }

    @Test
    void windowCrossingOneMssFromBelowIsAReopening() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF - 1000);
        h.assertSent(h.flush(), sent(ACK).window(1000));

        // 1000 -> 1500: grew by less than an MSS, but a sender treats a sub-MSS window as closed.
        h.hostWrote(500);
        h.assertSent(h.flush(), sent(ACK).ack(h.g(BUF - 1000 + 1)).window(1500).len(0));
    }

    @Test
    void overlappingRetransmissionIsTrimmed() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        h.guest(h.guestData(50, 100, 1)); // bytes 50..149: half old, half new
        h.assertSent(h.flush(), sent(ACK).ack(h.g(151)).window(BUF - 150));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 150));
    }

    @Test
    void duplicateSegmentIsAckedButNotBufferedTwice() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 100, 1));
        h.flush();

        h.guest(h.guestData(0, 100, 1));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(101)).window(BUF - 100));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 100));
    }

    @Test
    void dataBeyondTheWindowIsAckedAndDropped() {
        TcpHarness h = established();
        h.guest(h.guestData(BUF + 1000, 100, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1)).window(BUF));
        assertThat(h.toHostBytes()).isEmpty();
    }

    @Test
    void segmentWithoutAckFlagIsDropped() {
        TcpHarness h = established();
        h.guest(seg(PSH).seq(h.g(1)).payload(guestStream(0, 100)));
        assertThat(h.toHostBytes()).isEmpty();
        h.assertSent(h.flush());
    }

    @Test
    void ackForDataNeverSentIsAnsweredAndTheSegmentIgnored() {
        TcpHarness h = established();
        h.hostSends(100);
        h.flush();

        // RFC 9293 3.10.7.4: SEG.ACK > SND.NXT -> send an ACK, drop the segment, return.
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(5000)));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(101)).ack(h.g(1)).len(0));

        h.guest(h.guestData(0, 50, 5000));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(101)).ack(h.g(1)).len(0));
        assertThat(h.toHostBytes()).as("data of a segment with a bogus ACK").isEmpty();

        // Nothing was taken as acknowledged: the data is still there to retransmit.
        h.assertSent(h.fireTimer(), sent(ACK | PSH).seq(h.r(1)).ack(h.g(1)).payload(TcpHarness.hostStream(0, 100)));
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
    }

    // ---- the receive window ----

    @Test
    void windowShrinksByWhatIsBuffered() {
        TcpHarness h = established();
        h.guest(h.guestData(0, 1000, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1001)).window(BUF - 1000));

        h.guest(h.guestData(1000, 1460, 1));
        h.guest(h.guestData(2460, 540, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(3001)).window(BUF - 3000));
        assertThat(h.conn.toHost().size()).isEqualTo(3000);
    }

    @Test
    void scaledWindowFieldIsFreeSpaceShifted() {
        TcpConfig cfg = new TcpConfig(1460, 1 << 17, 1 << 17, 1 << 17, 2 * TcpHarness.SECOND, TcpConfig.DEFAULT_BUFFER_BUDGET);
        assertThat(cfg.windowShift()).isEqualTo(2);
        TcpHarness h = TcpHarness.with().config(cfg).guestWscale(7).established();

        h.guest(h.guestData(0, 1000, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(1001)).window(((1 << 17) - 1000) >>> 2));
    }

    @Test
    void zeroWindowWhenToHostIsFull() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(BUF + 1)).window(0).len(0));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, BUF));

        // The guest's zero-window probe: answered, its byte not taken.
        h.guest(h.guestData(BUF, 1, 1));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(BUF + 1)).window(0).len(0));
        assertThat(h.conn.toHost().size()).isEqualTo(BUF);
    }

    @Test
    void onlyWhatFitsIsTakenFromASegmentThatOverrunsTheBuffer() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF - 1000);
        h.flush();

        h.guest(h.guestData(BUF - 1000, 1460, 1));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(BUF + 1)).window(0));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, BUF));
    }

    // ---- large segments straight to the host socket ----

    /** The default 1 MiB buffers with window scaling (our shift 5), and a host socket with room for room bytes. */
    private static TcpHarness withHostRoom(int room) {
        TcpHarness h = TcpHarness.with().guestWscale(7).established();
        h.host.socketRoom = room;
        return h;
    }

    @Test
    void aLargeInOrderSegmentGoesStraightToTheHostSocket() {
        TcpHarness h = withHostRoom(Integer.MAX_VALUE);
        h.guest(h.guestData(0, 40000, 1));

        assertThat(h.host.taken()).isEqualTo(guestStream(0, 40000));
        assertThat(h.toHostBytes()).isEmpty();
        h.assertSent(h.flush(), sent(ACK).ack(h.g(40001)).window(h.config.receiveBuffer() >>> 5).len(0));
    }

    @Test
    void whatTheHostSocketDoesNotTakeIsBuffered() {
        TcpHarness h = withHostRoom(10000);
        h.guest(h.guestData(0, 40000, 1));

        assertThat(h.host.taken()).isEqualTo(guestStream(0, 10000));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(10000, 30000));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(40001)).window((h.config.receiveBuffer() - 30000) >>> 5).len(0));
    }

    /**
     * A buffer that drained gives its growth back to the budget all connections share, so a
     * thousand connections that each buffered once do not hold it while they idle; its next bytes
     * take a buffer of the size it had, in one step.
     */
    @Test
    void aDrainedBufferGivesItsGrowthBackToTheBudgetAndTakesItsSizeAgain() {
        TcpHarness h = TcpHarness.with().config(TcpConfig.forMtu(1500)).guestWscale(7).established(); // buffers start at 4 KiB
        h.host.socketRoom = 10000;
        h.guest(h.guestData(0, 40000, 1));
        assertThat(h.buffers.reserved()).as("grown from its first size to hold 30,000 bytes").isPositive();
        h.hostWrote(30000);
        h.flush();
        assertThat(h.buffers.inUse()).isZero();
        assertThat(h.buffers.reserved()).as("drained: none of the budget held").isZero();

        long peakBefore = h.buffers.peak();
        h.host.socketRoom = 0;
        guestSendsInSegments(h, 40000, 30000); // segment by segment: a 4 KiB buffer would grow (and copy) three times
        assertThat(h.toHostBytes()).isEqualTo(guestStream(40000, 30000));
        assertThat(h.buffers.peak()).as("one block of the old size, not a copy per doubling").isEqualTo(peakBefore);
    }

    /**
     * The window offers only what the buffer can hold: its size, and what the budget all buffers
     * share can still give it. With the budget taken by other connections' buffers, the guest is
     * offered the first 4 KiB, and all it sends within that is taken, none refused to be sent again.
     */
    @Test
    void withTheBudgetTakenTheWindowOffersWhatTheBufferHolds() {
        TcpHarness h = TcpHarness.with().config(TcpConfig.forMtu(1500).withBuffers(1 << 20, 60 << 10)).connecting();
        h.host.socketRoom = 0;
        RingBuffer others = new RingBuffer(h.buffers, 4 << 10, 64 << 10);
        while (others.grow()) {
            // to 64 KiB: 60 KiB, the whole budget
        }
        assertThat(h.buffers.unreserved()).isZero();
        h.hostConnected();
        h.assertSent(h.drain(), sent(Tcp.SYN | ACK).window(4 << 10));
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(1)).window(0xffff));
        guestSendsInSegments(h, 0, 4 << 10);
        h.assertSent(h.flush(), sent(ACK).ack(h.g((4 << 10) + 1)).window(0).len(0));
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 4 << 10));

        others.close(); // their budget back: the next window may offer it
        h.hostWrote(4 << 10);
        h.assertSent(h.flush(), sent(ACK).ack(h.g((4 << 10) + 1)).window(0xffff).len(0)); // (no window scaling here)
    }

    @Test
    void smallSegmentsAfterTheIterationsFirstAndWhatFollowsBufferedBytesWaitInTheBuffer() {
        TcpHarness h = withHostRoom(Integer.MAX_VALUE);
        h.guest(h.guestData(0, MSS, 1)); // the iteration's first: straight to the socket, no buffer taken
        assertThat(h.host.taken()).isEqualTo(guestStream(0, MSS));
        assertThat(h.buffers.inUse()).isZero();
        h.guest(h.guestData(MSS, MSS, 1)); // small, after it: written with others at the flush (lesson 2)
        h.guest(h.guestData(2 * MSS, 40000, 1)); // large, but behind bytes still buffered

        assertThat(h.host.taken()).isEmpty();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(MSS, MSS + 40000));

        // The next iteration's first small segment goes straight again once the buffer is drained.
        h.hostWrote(MSS + 40000);
        h.flush();
        h.guest(h.guestData(2 * MSS + 40000, 100, 1));
        assertThat(h.host.taken()).isEqualTo(guestStream(2 * MSS + 40000, 100));
    }

    @Test
    void aSegmentThatClosesAGapJoinsTheBytesBeyondItInTheBuffer() {
        TcpHarness h = withHostRoom(Integer.MAX_VALUE);
        h.guest(h.guestData(40000, 20000, 1)); // beyond a gap: kept out of order
        h.flush();
        h.guest(h.guestData(0, 40000, 1));

        assertThat(h.host.taken()).isEmpty();
        assertThat(h.toHostBytes()).isEqualTo(guestStream(0, 60000));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(60001)).len(0));
    }

    /**
     * Bytes beyond a gap may wait in a buffer only while all the connections' buffers hold less than
     * an eighth of the budget: past that, thousands of connections that lost frames at once would
     * keep what their guests resend anyway. Not kept, they are not acknowledged either.
     */
    @Test
    void dataBeyondAGapTakesNoBufferOnceTheBuffersHoldAnEighthOfTheBudget() {
        TcpHarness h = withHostRoom(Integer.MAX_VALUE);
        long eighth = h.config.bufferBudget() / 8;
        RingBuffer others = new RingBuffer(h.buffers, (int) eighth, (int) eighth); // what other connections hold
        MemorySegment one = Arena.ofAuto().allocate(1);
        assertThat(others.append(one, 0, 1)).isEqualTo(1);
        assertThat(h.buffers.inUse()).isEqualTo(eighth);

        h.guest(h.guestData(40000, 20000, 1));               // beyond a gap: not kept
        h.assertSent(h.drain(), sent(ACK).ack(h.g(1)).len(0)); // the duplicate ACK, for the gap
        assertThat(h.buffers.inUse()).as("no buffer taken").isEqualTo(eighth);
        h.guest(h.guestData(0, 40000, 1));                   // the gap: straight to the socket
        assertThat(h.host.taken()).isEqualTo(guestStream(0, 40000));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(40001)).len(0)); // not past what was kept

        others.discard(1);
        others.release();                                    // the others drained: gaps may wait again
        h.guest(h.guestData(60000, 1000, 1));                // kept this time
        assertThat(h.buffers.inUse()).as("a buffer taken for it").isPositive();
        h.assertSent(h.drain(), sent(ACK).ack(h.g(40001)).len(0)); // its duplicate ACK
        h.guest(h.guestData(40000, 20000, 1));               // closes the gap: joins it in the buffer
        assertThat(h.toHostBytes()).isEqualTo(guestStream(40000, 21000));
        h.assertSent(h.flush(), sent(ACK).ack(h.g(61001)).len(0));
    }

    // ---- lesson 1: window updates ----

    @Test
    void windowUpdateAsSoonAsTheWindowReopensFromZero() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF);
        h.flush();

        h.hostWrote(100); // even a small drain: the guest is stuck until it hears of it
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(BUF + 1)).window(100).len(0));
        h.assertSent(h.flush()); // once
    }

    @Test
    void windowUpdateAfterOneMssWasFreedButNotForATinyDrain() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, 10000);
        h.assertSent(h.flush(), sent(ACK).ack(h.g(10001)).window(BUF - 10000));

        h.hostWrote(1000);
        h.assertSent(h.flush());
        h.hostWrote(459); // 1459 freed since the last advertisement: still below one MSS
        h.assertSent(h.flush());
        h.hostWrote(1); // 1460: one MSS
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).ack(h.g(10001)).window(BUF - 10000 + MSS).len(0));
        h.assertSent(h.flush());
    }

    @Test
    void severalDrainsInOneIterationGiveOneWindowUpdate() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF);
        h.flush();

        h.hostWrote(4000);
        h.hostWrote(4000);
        h.hostWrote(4000);
        h.assertSent(h.flush(), sent(ACK).ack(h.g(BUF + 1)).window(12000));
    }

    @Test
    void windowUpdateAfterOneMssWithAScaledWindow() {
        // The default configuration: 1 MiB buffer, our shift 5, so the window is in units of 32 bytes.
        TcpHarness h = TcpHarness.with().guestWscale(7).established();
        int buf = h.config.receiveBuffer();
        guestSendsInSegments(h, 0, 3 * MSS);
        h.assertSent(h.flush(), sent(ACK).ack(h.g(3 * MSS + 1)).window((buf - 3 * MSS) >>> 5));

        h.hostWrote(100);
        h.assertSent(h.flush());
        h.hostWrote(MSS - 100); // one MSS freed since the last advertisement
        h.assertSent(h.flush(), sent(ACK).ack(h.g(3 * MSS + 1)).window((buf - 2 * MSS) >>> 5));
    }

    @Test
    void windowUpdateIsCarriedByDataWhenThereIsSome() {
        TcpHarness h = established();
        guestSendsInSegments(h, 0, BUF);
        h.flush();

        h.hostWrote(5000);
        h.hostSends(10);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(1)).ack(h.g(BUF + 1)).window(5000).len(10));
    }
}
