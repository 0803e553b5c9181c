package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.MS;
import static io.jslirp.tcp.TcpHarness.hostStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static io.jslirp.tcp.TcpHarness.sent;
import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.PSH;
import static io.jslirp.wire.Tcp.RST;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConnection.State;
import io.jslirp.tcp.TcpHarness.Sent;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Host data toward the guest: segmentation (lesson 2), the guest's window, retransmission and its timers. */
class TcpSendTest {
    private static final int MSS = 1460;

    private static void guestAcks(TcpHarness h, long rel, int window) {
        h.guest(seg(ACK).seq(h.g(1)).ack(h.r(rel)).window(window));
    }

    // ---- lesson 2: cork, then flush ----

    @Test
    void hostReadsAreCoalescedIntoFullSegmentsAtTheFlush() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(100);
        h.hostSends(1000);
        h.hostSends(3000);
        h.assertSent(h.drain()); // nothing goes out per host read

        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).ack(h.g(1)).payload(hostStream(0, MSS)).noOptions(),
                sent(ACK).seq(h.r(1 + MSS)).ack(h.g(1)).payload(hostStream(MSS, MSS)),
                sent(ACK | PSH).seq(h.r(1 + 2 * MSS)).ack(h.g(1)).payload(hostStream(2 * MSS, 4100 - 2 * MSS)));
        h.assertSent(h.flush());
    }

    @Test
    void segmentsAreNoLargerThanTheGuestsMss() {
        TcpHarness h = TcpHarness.with().guestMss(536).established();
        h.hostSends(1200);
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).len(536),
                sent(ACK).seq(h.r(537)).len(536),
                sent(ACK | PSH).seq(h.r(1073)).payload(hostStream(1072, 128)));
    }

    @Test
    void withTsoSegmentsCarryWholeMssMultiplesUpTo64KiBAndTheMssTravelsAlong() {
        TcpHarness h = TcpHarness.with().largeSegments().guestWscale(7).established(1000); // window 128,000
        h.hostSends(100_000);
        int large = 44 * MSS; // the most whole MSS pieces within one IPv4 datagram
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).payload(hostStream(0, large)),
                sent(ACK | PSH).seq(h.r(1 + large)).payload(hostStream(large, 100_000 - large)));
        assertThat(h.out.lastSegmentSize).isEqualTo(MSS);
    }

    // ---- lesson 3: one bulk flow does not hold the loop for its whole window ----

    @Test
    void oneFlushSendsAtMostABurstAndSaysWhileTheWindowTakesMore() {
        TcpHarness h = TcpHarness.with().guestWscale(7).established(4000); // window 512,000
        h.hostSends(300_000);
        h.hostFinishes();
        int burst = 65536 / MSS * MSS; // a peek's worth of whole segments
        int offset = 0;
        int flushes = 0;
        boolean fin = false;
        Outcome r;
        do {
            r = h.flushOnce();
            flushes++;
            int bytes = 0;
            for (Sent s : h.drain()) {
                assertThat(s.seq()).isEqualTo(h.r(1 + offset));
                assertThat(s.payload()).isEqualTo(hostStream(offset, s.len()));
                offset += s.len();
                bytes += s.len();
                fin |= s.has(io.jslirp.wire.Tcp.FIN);
            }
            if (r.more()) assertThat(bytes).as("a flush that has more sent its whole burst").isEqualTo(burst);
            else assertThat(bytes).isLessThanOrEqualTo(burst);
        } while (r.more() && flushes < 100);
        assertThat(offset).isEqualTo(300_000);
        assertThat(fin).as("the FIN follows the last byte").isTrue();
        assertThat(flushes).isEqualTo((300_000 + burst - 1) / burst);
        assertThat(h.flushOnce().more()).isFalse();
        assertThat(h.drain()).isEmpty();
    }

    @Test
    void withTsoABurstIsEightLargeSegments() {
        TcpHarness h = TcpHarness.with().largeSegments().guestWscale(7).established(20_000); // window 2,560,000
        h.hostSends(1_200_000);
        int large = 44 * MSS;
        assertThat(h.flushOnce().more()).isTrue();
        List<Sent> first = h.drain();
        assertThat(first).hasSize(8).allSatisfy(s -> assertThat(s.len()).isEqualTo(large));
        assertThat(h.flush().stream().mapToInt(Sent::len).sum()).isEqualTo(1_200_000 - 8 * large);
    }

    @Test
    void besideAnInteractiveExchangeABurstIsTwoLargeSegmentsWithTsoAndAPeekWithout() {
        TcpHarness h = TcpHarness.with().largeSegments().guestWscale(7).established(20_000); // window 2,560,000
        h.hostSends(1_200_000);
        int large = 44 * MSS;
        assertThat(h.flushOnce(true).more()).isTrue();
        assertThat(h.drain()).hasSize(2).allSatisfy(s -> assertThat(s.len()).isEqualTo(large));
        assertThat(h.flushOnce(false).more()).as("alone again: the long burst").isTrue();
        List<Sent> next = h.drain();
        assertThat(next).hasSize(8);
        assertThat(next.getFirst().seq()).isEqualTo(h.r(1 + 2 * large));

        TcpHarness plain = TcpHarness.with().guestWscale(7).established(4000); // window 512,000
        plain.hostSends(300_000);
        assertThat(plain.flushOnce(true).more()).isTrue();
        assertThat(plain.drain().stream().mapToInt(Sent::len).sum()).as("without TSO the burst is a peek's worth either way")
                .isEqualTo(65536 / MSS * MSS);
    }

    @Test
    void aFullWindowIsNotMore() {
        TcpHarness h = TcpHarness.with().guestWscale(2).established(25_000); // window 100,000
        h.hostSends(300_000);
        int burst = 65536 / MSS * MSS;
        assertThat(h.flushOnce().more()).isTrue();
        assertThat(h.drain().stream().mapToInt(Sent::len).sum()).isEqualTo(burst);
        assertThat(h.flushOnce().more()).as("the window is full: the guest's ACK brings the next flush").isFalse();
        assertThat(h.drain().stream().mapToInt(Sent::len).sum()).isEqualTo(100_000 - burst);
        guestAcks(h, 1 + 100_000, 25_000);
        assertThat(h.flushOnce().more()).isTrue();
        assertThat(h.drain().get(0).seq()).isEqualTo(h.r(1 + 100_000));
    }

    @Test
    void guestWithoutMssOptionGetsTheRfcDefault536() {
        TcpHarness h = TcpHarness.with().guestMss(TcpHarness.NONE).established();
        h.hostSends(600);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).len(536), sent(ACK | PSH).seq(h.r(537)).len(64));
    }

    @Test
    void sendingIsLimitedByTheGuestsScaledWindow() {
        // Window field 1000 with the guest's shift 2: 4000 bytes.
        TcpHarness h = TcpHarness.with().guestWscale(2).established(1000);
        h.hostSends(5000);
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).len(MSS),
                sent(ACK).seq(h.r(1 + MSS)).len(MSS),
                sent(ACK).seq(h.r(1 + 2 * MSS)).payload(hostStream(2 * MSS, 4000 - 2 * MSS)));
        h.assertSent(h.flush()); // the window is full

        guestAcks(h, 1 + 4000, 1000);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(4001)).payload(hostStream(4000, 1000)));
    }

    @Test
    void unscaledWindowWhenTheGuestDidNotOfferScaling() {
        TcpHarness h = TcpHarness.with().established(1000);
        h.hostSends(5000);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).len(1000));
    }

    @Test
    void windowCountsBytesInFlight() {
        TcpHarness h = TcpHarness.with().established(3000);
        h.hostSends(2000);
        h.flush();
        h.hostSends(2000);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(2001)).len(1000)); // 2000 in flight of 3000

        guestAcks(h, 1001, 3000); // 1000 acknowledged: 2000 in flight, room for 1000
        // (no PSH: the window ends where the host's bytes might go on, so none can say they stop there)
        h.assertSent(h.flush(), sent(ACK).seq(h.r(3001)).payload(hostStream(3000, 1000)));
    }

    @Test
    void oneSegmentCarriesBothTheDataAndTheAck() {
        TcpHarness h = TcpHarness.with().established();
        h.guest(h.guestData(0, 100, 1));
        h.hostSends(200);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(1)).ack(h.g(101)).payload(hostStream(0, 200)));
    }

    @Test
    void hostBytesAreReadOnlyAsFarAsTheGuestsWindowReaches() {
        TcpHarness h = TcpHarness.with().established(4 * MSS);
        h.hostSends(100_000);
        h.assertSent(h.flush(),
                sent(ACK).seq(h.r(1)).payload(hostStream(0, MSS)),
                sent(ACK).seq(h.r(1 + MSS)).payload(hostStream(MSS, MSS)),
                sent(ACK).seq(h.r(1 + 2 * MSS)).payload(hostStream(2 * MSS, MSS)),
                sent(ACK).seq(h.r(1 + 3 * MSS)).payload(hostStream(3 * MSS, MSS)));
        assertThat(h.conn.unacknowledged()).isEqualTo(4 * MSS);
        assertThat(h.hostQueued()).as("the rest stays in the host socket").isEqualTo(100_000);

        guestAcks(h, 1 + MSS, 4 * MSS);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1 + 4 * MSS)).payload(hostStream(4 * MSS, MSS)));
        assertThat(h.hostQueued()).as("acknowledged bytes leave the socket").isEqualTo(100_000 - MSS);
        assertThat(h.conn.unacknowledged()).isEqualTo(4 * MSS);
    }

    @Test
    void aReorderedOldAckDoesNotShrinkTheWindow() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(3000);
        h.flush();
        guestAcks(h, 1001, 0xffff);
        guestAcks(h, 1, 0); // older than the last: arrived late, says nothing about the window now
        h.hostSends(1000);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(3001)).payload(hostStream(3000, 1000)));
    }

    // ---- retransmission timeout ----

    @Test
    void retransmitsAtTheDeadlineWithExponentialBackoff() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(1000);
        h.flush();
        assertThat(h.timerIn()).isEqualTo(TcpConfig.INITIAL_RTO_NANOS);

        h.onTimer(h.conn.deadline() - 1); // early wakeup: nothing
        h.assertSent(h.drain());

        long rto = TcpConfig.INITIAL_RTO_NANOS;
        for (int i = 0; i < 4; i++) {
            h.assertSent(h.fireTimer(), sent(ACK | PSH).seq(h.r(1)).ack(h.g(1)).payload(hostStream(0, 1000)));
            rto *= 2;
            assertThat(h.timerIn()).isEqualTo(rto);
        }
    }

    @Test
    void givesUpAfterMaxRetransmissions() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(1000);
        h.flush();

        long rto = TcpConfig.INITIAL_RTO_NANOS;
        for (int i = 1; i <= TcpConfig.MAX_RETRANSMISSIONS; i++) {
            assertThat(h.timerIn()).as("wait before retransmission %d", i).isEqualTo(rto);
            h.assertSent(h.fireTimer(), sent(ACK | PSH).seq(h.r(1)).len(1000));
            rto = Math.min(2 * rto, TcpConfig.MAX_RTO_NANOS);
        }
        assertThat(h.host.closed).isEmpty();

        h.assertSent(h.fireTimer(), sent(RST | ACK).seq(h.r(1001)).ack(h.g(1)).window(0).len(0));
        assertThat(h.conn.state()).isEqualTo(State.CLOSED);
        assertThat(h.host.closed).containsExactly(true);
        assertThat(h.timerArmed()).isFalse();
    }

    @Test
    void retransmissionStartsAtTheOldestUnacknowledgedByte() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(3000);
        h.flush();
        h.advanceMillis(50);
        guestAcks(h, 1 + MSS, 0xffff);

        List<Sent> again = h.fireTimer();
        assertThat(again).isNotEmpty();
        h.assertSent(again.subList(0, 1), sent(ACK).seq(h.r(1 + MSS)).payload(hostStream(MSS, MSS)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int seq = h.r(1 + MSS);
        for (Sent s : again) {
            assertThat(s.seq()).isEqualTo(seq);
            bytes.writeBytes(s.payload());
            seq += s.len();
        }
        assertThat(bytes.toByteArray()).isEqualTo(hostStream(MSS, bytes.size()));
    }

    @Test
    void ackOfEverythingStopsTheTimerAndPartialAckRestartsIt() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(2000);
        h.flush();
        h.advanceMillis(400);
        guestAcks(h, 1001, 0xffff);
        assertThat(h.timerIn()).as("restarted for what is still in flight").isLessThanOrEqualTo(TcpConfig.INITIAL_RTO_NANOS)
                .isGreaterThan(TcpConfig.INITIAL_RTO_NANOS - 400 * MS);
        guestAcks(h, 2001, 0xffff);
        assertThat(h.timerArmed()).isFalse();
        assertThat(h.conn.unacknowledged()).isZero();
        assertThat(h.hostQueued()).isZero();
    }

    // ---- RTT estimation ----

    @Test
    void rttSampleLowersTheRto() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(1000);
        h.flush();
        h.advanceMillis(100);
        guestAcks(h, 1001, 0xffff);
        assertThat(h.timerArmed()).isFalse();

        h.hostSends(1000);
        h.flush();
        // RFC 6298: SRTT = 100 ms, RTTVAR = 50 ms, RTO = SRTT + 4 RTTVAR = 300 ms.
        assertThat(h.timerIn()).isEqualTo(300 * MS);
    }

    @Test
    void rtoNeverGoesBelow200Milliseconds() {
        TcpHarness h = TcpHarness.with().established();
        for (int i = 0; i < 10; i++) {
            h.hostSends(1000);
            h.flush();
            h.advanceMillis(1);
            guestAcks(h, 1 + 1000L * (i + 1), 0xffff);
        }
        h.hostSends(1000);
        h.flush();
        assertThat(h.timerIn()).isEqualTo(TcpConfig.MIN_RTO_NANOS);
    }

    @Test
    void ackOfARetransmittedSegmentGivesNoSample() {
        // Karn: the ACK may be for either transmission; the backed-off RTO stays until a clean sample.
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(1000);
        h.flush();
        h.fireTimer();
        h.advanceMillis(10);
        guestAcks(h, 1001, 0xffff);

        h.hostSends(1000);
        h.flush();
        assertThat(h.timerIn()).isEqualTo(2 * TcpConfig.INITIAL_RTO_NANOS);
    }

    // ---- fast retransmit ----

    @Test
    void fastRetransmitAfterThreeDuplicateAcks() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(4 * MSS);
        h.assertSent(h.flush(), sent(ACK).len(MSS), sent(ACK).len(MSS), sent(ACK).len(MSS), sent(ACK | PSH).len(MSS));

        guestAcks(h, 1 + MSS, 0xffff); // segment 2 was lost
        h.assertSent(h.flush());
        guestAcks(h, 1 + MSS, 0xffff);
        h.assertSent(h.flush());
        guestAcks(h, 1 + MSS, 0xffff);
        h.assertSent(h.flush());
        guestAcks(h, 1 + MSS, 0xffff); // third duplicate
        List<Sent> out = new ArrayList<>(h.drain());
        out.addAll(h.flush());
        h.assertSent(out, sent(ACK).seq(h.r(1 + MSS)).ack(h.g(1)).payload(hostStream(MSS, MSS)));

        guestAcks(h, 1 + MSS, 0xffff); // a fourth changes nothing
        h.assertSent(h.flush());
        assertThat(h.conn.state()).isEqualTo(State.ESTABLISHED);
    }

    @Test
    void fastRetransmitOfASegmentShorterThanTheMss() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(500);
        h.flush();
        for (int i = 0; i < 3; i++) guestAcks(h, 1, 0xffff);
        List<Sent> out = new ArrayList<>(h.drain());
        out.addAll(h.flush());
        h.assertSent(out, sent(ACK).seq(h.r(1)).payload(hostStream(0, 500)));
    }

    @Test
    void windowUpdatesAreNotDuplicateAcks() {
        TcpHarness h = TcpHarness.with().established(20000);
        h.hostSends(4 * MSS);
        h.flush();
        guestAcks(h, 1 + MSS, 20000);
        guestAcks(h, 1 + MSS, 21000);
        guestAcks(h, 1 + MSS, 22000);
        guestAcks(h, 1 + MSS, 23000);
        h.assertSent(h.drain());
        h.assertSent(h.flush());
    }

    @Test
    void segmentsCarryingDataAreNotDuplicateAcks() {
        TcpHarness h = TcpHarness.with().established();
        h.hostSends(4 * MSS);
        h.flush();
        guestAcks(h, 1 + MSS, 0xffff);
        for (int i = 0; i < 3; i++) h.guest(h.guestData(i * 10L, 10, 1 + MSS));
        h.assertSent(h.flush(), sent(ACK).seq(h.r(4 * MSS + 1)).ack(h.g(31)).len(0));
    }

    // ---- zero window: persist ----

    @Test
    void zeroWindowIsProbedUntilItOpens() {
        TcpHarness h = TcpHarness.with().established(0);
        h.hostSends(1000);
        h.assertSent(h.flush()); // nothing fits
        assertThat(h.timerIn()).as("persist timer").isEqualTo(TcpConfig.INITIAL_RTO_NANOS);

        long wait = TcpConfig.INITIAL_RTO_NANOS;
        for (int i = 0; i < TcpConfig.MAX_RETRANSMISSIONS + 3; i++) {
            // The probe: an old sequence number, which makes the guest answer with its window.
            h.assertSent(h.fireTimer(), sent(ACK).seq(h.r(0)).ack(h.g(1)).len(0));
            wait = Math.min(2 * wait, TcpConfig.MAX_RTO_NANOS);
            assertThat(h.timerIn()).isEqualTo(wait);
            guestAcks(h, 1, 0);
            h.assertSent(h.flush());
        }
        assertThat(h.conn.state()).as("a guest that answers probes is never given up").isEqualTo(State.ESTABLISHED);

        guestAcks(h, 1, 8000);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(1)).payload(hostStream(0, 1000)));
    }

    @Test
    void windowClosingWhileDataIsInFlightStartsProbing() {
        TcpHarness h = TcpHarness.with().established(2000);
        h.hostSends(3000);
        h.assertSent(h.flush(), sent(ACK).seq(h.r(1)).len(MSS), sent(ACK).seq(h.r(1 + MSS)).len(540));

        guestAcks(h, 2001, 0); // all received, but the guest's buffer is full
        h.assertSent(h.flush());
        h.assertSent(h.fireTimer(), sent(ACK).seq(h.r(2000)).len(0));

        guestAcks(h, 2001, 0xffff);
        h.assertSent(h.flush(), sent(ACK | PSH).seq(h.r(2001)).payload(hostStream(2000, 1000)));
    }
}
