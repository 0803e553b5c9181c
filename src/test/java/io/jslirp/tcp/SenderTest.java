package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpHarness.FakeHost;
import io.jslirp.tcp.TcpHarness.FakeOutput;
import io.jslirp.tcp.TcpHarness.Sent;
import io.jslirp.util.BufferPool;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * The sending half alone, over the fake host socket and output of {@link TcpHarness}: what goes
 * out of the peeked host bytes within the guest's window, bursts, the FIN, retransmissions.
 */
class SenderTest {
    private static final int ISS = 0x5000_0000;
    private static final int RCV_NXT = 0x1000_0001;
    private static final int MSS = 1460;
    private static final long NOW = 3_600_000_000_000L;

    private final FakeOutput out = new FakeOutput();
    private final FakeHost host = new FakeHost();
    private final RttEstimator rtt = new RttEstimator();

    /** An established sender toward a guest with this (unscaled) window; large for an output with TSO. */
    private Sender sender(long window, boolean large) {
        out.large = large;
        TcpOptions syn = new TcpOptions();
        syn.mss = MSS;
        TcpConfig config = TcpConfig.forMtu(1500);
        Timers timers = new Timers();
        Receiver receiver = new Receiver(RCV_NXT - 1, syn, config, new BufferPool(config.bufferBudget()), timers);
        SegmentWriter writer = new SegmentWriter(out, new FlowAddresses(TcpHarness.GUEST, TcpHarness.GUEST_PORT,
                TcpHarness.REMOTE, TcpHarness.REMOTE_PORT), receiver, Sender.sendMss(config, syn));
        writer.now(NOW);
        Sender s = new Sender(ISS, 0, Sender.sendMss(config, syn), host, writer, rtt);
        s.established(window);
        return s;
    }

    private List<Sent> sent() {
        List<Sent> l = List.copyOf(out.sent);
        out.sent.clear();
        return l;
    }

    @Test
    void sendsWhatTheWindowTakesInSegmentsWithPshOnTheLast() {
        Sender s = sender(3000, false);
        host.produced = 10_000;
        assertThat(s.send(RCV_NXT, false)).isEqualTo(Sender.SENT);
        List<Sent> segs = sent();
        assertThat(segs).extracting(Sent::len).containsExactly(MSS, MSS, 3000 - 2 * MSS);
        assertThat(segs).extracting(Sent::seq).containsExactly(ISS + 1, ISS + 1 + MSS, ISS + 1 + 2 * MSS);
        assertThat(segs).allMatch(x -> x.ack() == RCV_NXT && x.has(Tcp.ACK));
        assertThat(segs).as("the window cut the peek, not the host's data: no PSH").noneMatch(x -> x.has(Tcp.PSH));
        assertThat(segs.getLast().payload()).isEqualTo(TcpHarness.hostStream(2 * MSS, 3000 - 2 * MSS));
        assertThat(s.known()).isEqualTo(3000);
        assertThat(s.hostBytesRead()).isEqualTo(3000);
        assertThat(s.inFlight()).isTrue();
        assertThat(rtt.timing()).as("the first segment is timed").isTrue();
        assertThat(s.send(RCV_NXT, false)).as("the window is full").isZero();
    }

    @Test
    void theLastSegmentOfWhatTheHostHadCarriesPsh() {
        Sender s = sender(65535, false);
        host.produced = 2000;
        s.send(RCV_NXT, false);
        List<Sent> segs = sent();
        assertThat(segs).extracting(x -> x.has(Tcp.PSH)).containsExactly(false, true);
    }

    @Test
    void aBurstEndsAFlushAndSaysMoreIsDue() {
        Sender s = sender(1 << 30, true);
        host.produced = 4 << 20;
        int r = s.send(RCV_NXT, false);
        assertThat(r).isEqualTo(Sender.SENT | Sender.MORE);
        int burst = sent().stream().mapToInt(Sent::len).sum();
        assertThat(burst).isGreaterThanOrEqualTo(8 * 64_000).isLessThanOrEqualTo(8 * 65_536);
        assertThat(s.send(RCV_NXT, true)).isEqualTo(Sender.SENT | Sender.MORE);
        int shortBurst = sent().stream().mapToInt(Sent::len).sum();
        assertThat(shortBurst).as("beside an interactive exchange").isLessThan(burst / 3);
    }

    @Test
    void theFinFollowsTheLastByteOnce() {
        Sender s = sender(65535, false);
        host.produced = 100;
        host.finished = true;
        s.hostShutdown();
        assertThat(s.send(RCV_NXT, false)).isEqualTo(Sender.SENT | Sender.FIN_SENT);
        Sent last = sent().getLast();
        assertThat(last.has(Tcp.FIN)).isTrue();
        assertThat(last.len()).isEqualTo(100);
        assertThat(s.sndNxt()).isEqualTo(ISS + 1 + 101);
        s.acknowledge(ISS + 1 + 101);
        assertThat(s.finAcked()).isTrue();
        assertThat(host.front).isEqualTo(100);
        assertThat(s.send(RCV_NXT, false)).isZero();
        assertThat(sent()).isEmpty();
    }

    @Test
    void anAcknowledgmentDropsTheBytesFromTheHostStream() {
        Sender s = sender(65535, false);
        host.produced = 5000;
        s.send(RCV_NXT, false);
        sent();
        s.acknowledge(ISS + 1 + 2000);
        assertThat(host.front).isEqualTo(2000);
        assertThat(s.known()).isEqualTo(3000);
        assertThat(s.sndUna()).isEqualTo(ISS + 1 + 2000);
        assertThat(s.idle()).isFalse();
        s.acknowledge(ISS + 1 + 5000);
        assertThat(s.inFlight()).isFalse();
    }

    @Test
    void aRetransmissionIsPeekedAgainAndOnlyWhileItsBytesWait() {
        Sender s = sender(65535, false);
        host.produced = 5000;
        s.send(RCV_NXT, false);
        sent();
        s.retransmit(ISS + 1 + MSS, MSS, RCV_NXT);
        Sent again = sent().getFirst();
        assertThat(again.seq()).isEqualTo(ISS + 1 + MSS);
        assertThat(again.payload()).isEqualTo(TcpHarness.hostStream(MSS, MSS));
        s.acknowledge(ISS + 1 + 2 * MSS);
        s.retransmit(ISS + 1 + MSS, MSS, RCV_NXT);
        assertThat(sent()).as("acknowledged meanwhile").isEmpty();
        s.retransmit(ISS + 1 + 4000, 1001, RCV_NXT);
        assertThat(sent()).as("beyond what was read").isEmpty();
    }

    @Test
    void goingBackSendsAgainFromTheOldestUnacknowledgedByte() {
        Sender s = sender(65535, false);
        host.produced = 3000;
        s.send(RCV_NXT, false);
        sent();
        s.goBack();
        assertThat(s.send(RCV_NXT, false)).isEqualTo(Sender.SENT);
        List<Sent> segs = sent();
        assertThat(segs.getFirst().seq()).isEqualTo(ISS + 1);
        assertThat(segs.stream().mapToInt(Sent::len).sum()).isEqualTo(3000);
        assertThat(s.hostBytesRead()).as("read once, sent twice").isEqualTo(3000);
    }

    @Test
    void aFailedHostStreamIsReported() {
        Sender s = sender(65535, false);
        host.produced = 3000;
        host.failed = true;
        assertThat(s.send(RCV_NXT, false)).isEqualTo(Sender.FAILED);
    }

    @Test
    void aZeroWindowHoldsTheBytesBackForTheProbe() {
        Sender s = sender(0, false);
        host.produced = 3000;
        assertThat(s.send(RCV_NXT, false)).isZero();
        assertThat(s.windowClosed()).isTrue();
        s.probe(RCV_NXT);
        Sent probe = sent().getFirst();
        assertThat(probe.seq()).as("an old sequence number").isEqualTo(ISS);
        assertThat(probe.len()).isZero();
    }

    @Test
    void anEmptyPeekWaitsForTheHostToSignal() {
        Sender s = sender(65535, false);
        s.send(RCV_NXT, false);
        assertThat(host.peeks).isEqualTo(1);
        s.send(RCV_NXT, false);
        assertThat(host.peeks).as("no new data signalled").isEqualTo(1);
        host.produced = 10;
        s.hostReadable();
        s.send(RCV_NXT, false);
        assertThat(host.peeks).isEqualTo(2);
        assertThat(sent()).hasSize(1);
    }
}
