package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpHarness.FakeOutput;
import io.jslirp.tcp.TcpHarness.Sent;
import io.jslirp.util.BufferPool;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import org.junit.jupiter.api.Test;

/** The segments a connection builds: the SYN-ACK's options, the window and options every ACK carries, a bare reset. */
class SegmentWriterTest {
    private static final int IRS = 0x1000_0000;
    private static final int ISS = 0x5000_0000;
    private static final long NOW = 3_600_000_000_000L;

    private final FakeOutput out = new FakeOutput();
    private Receiver receiver;

    private SegmentWriter writer(int wscale, boolean timestamps, boolean sack) {
        TcpOptions syn = new TcpOptions();
        syn.mss = 1460;
        syn.windowScale = wscale;
        syn.hasTimestamp = timestamps;
        syn.tsVal = 4242;
        syn.sackPermitted = sack;
        TcpConfig config = TcpConfig.forMtu(1500);
        receiver = new Receiver(IRS, syn, config, new BufferPool(config.bufferBudget()), new Timers());
        SegmentWriter w = new SegmentWriter(out, new FlowAddresses(TcpHarness.GUEST, TcpHarness.GUEST_PORT, TcpHarness.REMOTE,
                TcpHarness.REMOTE_PORT), receiver, Sender.sendMss(config, syn));
        w.now(NOW);
        return w;
    }

    @Test
    void theSynAckOffersWhatTheGuestsSynDid() {
        writer(7, true, true).sendSynAck(ISS, 1460);
        Sent s = out.sent.getFirst();
        assertThat(s.flags()).isEqualTo(Tcp.SYN | Tcp.ACK);
        assertThat(s.seq()).isEqualTo(ISS);
        assertThat(s.ack()).isEqualTo(IRS + 1);
        assertThat(s.mss()).isEqualTo(1460);
        assertThat(s.wscale()).isEqualTo(TcpConfig.forMtu(1500).windowShift());
        assertThat(s.hasTimestamps()).isTrue();
        assertThat(s.tsVal()).isEqualTo((int) (NOW / 1_000_000L));
        assertThat(s.tsEcr()).isEqualTo(4242);
        assertThat(s.window()).as("never scaled in a SYN").isEqualTo(0xffff);
        assertThat(s.source()).isEqualTo(TcpHarness.REMOTE);
        assertThat(s.destination()).isEqualTo(TcpHarness.GUEST);
        assertThat(s.sourcePort()).isEqualTo(TcpHarness.REMOTE_PORT);
        assertThat(s.destinationPort()).isEqualTo(TcpHarness.GUEST_PORT);
    }

    @Test
    void aSynAckToAPlainSynOffersNothingMore() {
        writer(-1, false, false).sendSynAck(ISS, 1460);
        Sent s = out.sent.getFirst();
        assertThat(s.wscale()).isEqualTo(TcpHarness.NONE);
        assertThat(s.hasTimestamps()).isFalse();
    }

    @Test
    void anAckCarriesTheScaledWindowAndTellsTheReceiver() {
        SegmentWriter w = writer(7, true, false);
        receiver.ackDue();
        w.send(ISS + 1, IRS + 1, Tcp.ACK);
        Sent s = out.sent.getFirst();
        int shift = receiver.rcvShift();
        assertThat((long) s.window() << shift).isEqualTo(receiver.advertisableWindow());
        assertThat(s.hasTimestamps()).isTrue();
        assertThat(receiver.ackPending()).as("the ACK went").isFalse();
        assertThat(receiver.acceptable(IRS + 1 + (s.window() << shift) - 1, 1)).as("the guest may send up to the window's edge").isTrue();
        assertThat(receiver.acceptable(IRS + 1 + (s.window() << shift), 1)).isFalse();
    }

    @Test
    void aResetCarriesNoOptionsAndNoWindow() {
        SegmentWriter w = writer(7, true, true);
        receiver.close(); // a reset may follow the close, when the buffers are gone
        w.send(ISS + 1, IRS + 1, Tcp.RST | Tcp.ACK);
        Sent s = out.sent.getFirst();
        assertThat(s.flags()).isEqualTo(Tcp.RST | Tcp.ACK);
        assertThat(s.window()).isZero();
        assertThat(s.hasTimestamps()).isFalse();
    }
}
