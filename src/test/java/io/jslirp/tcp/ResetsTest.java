package io.jslirp.tcp;

import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.FIN;
import static io.jslirp.wire.Tcp.PSH;
import static io.jslirp.wire.Tcp.RST;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpHarness.FakeOutput;
import io.jslirp.tcp.TcpHarness.Sent;
import io.jslirp.wire.build.FrameBuilder;
import org.junit.jupiter.api.Test;

/** {@link Resets#answer}: the reset for a segment that belongs to no connection (RFC 9293 3.10.7.1). */
class ResetsTest {
    private static final int GUEST = TcpHarness.GUEST;
    private static final int REMOTE = TcpHarness.REMOTE;

    private final FakeOutput out = new FakeOutput();

    /** The guest sent seg to REMOTE; what does the stack answer? */
    private Sent answer(FrameBuilder seg) {
        Resets.answer(TcpHarness.read(seg), out);
        assertThat(out.sent).hasSize(1);
        Sent r = out.sent.getFirst();
        assertThat(r.source()).isEqualTo(REMOTE);
        assertThat(r.destination()).isEqualTo(GUEST);
        assertThat(r.sourcePort()).isEqualTo(TcpHarness.REMOTE_PORT);
        assertThat(r.destinationPort()).isEqualTo(TcpHarness.GUEST_PORT);
        assertThat(r.window()).isZero();
        assertThat(r.len()).isZero();
        assertThat(r.mss()).isEqualTo(TcpHarness.NONE);
        return r;
    }

    @Test
    void segmentWithAckIsResetAtItsAckNumber() {
        Sent r = answer(TcpHarness.seg(ACK | PSH).seq(1000).ack(5000).payload(new byte[10]));
        assertThat(r.flags()).isEqualTo(RST);
        assertThat(r.seq()).isEqualTo(5000);
        assertThat(r.ack()).isZero();
    }

    @Test
    void synWithoutAckIsResetAndAcknowledged() {
        Sent r = answer(TcpHarness.seg(SYN).seq(1000).mss(1460).windowScale(7)); // 28-byte header, no payload
        assertThat(r.flags()).isEqualTo(RST | ACK);
        assertThat(r.seq()).isZero();
        assertThat(r.ack()).isEqualTo(1001);
    }

    @Test
    void ackCountsPayloadAndFin() {
        Sent r = answer(TcpHarness.seg(FIN).seq(2000).payload(new byte[10]));
        assertThat(r.flags()).isEqualTo(RST | ACK);
        assertThat(r.ack()).isEqualTo(2011);

        out.sent.clear();
        Sent bare = answer(TcpHarness.seg(0).seq(3000).payload(new byte[5]));
        assertThat(bare.ack()).isEqualTo(3005);
    }

    @Test
    void acknowledgmentWrapsAround() {
        Sent r = answer(TcpHarness.seg(SYN).seq(0xffff_ffff));
        assertThat(r.ack()).isZero();
    }

    @Test
    void resetsAreNeverAnswered() {
        for (int flags : new int[] {RST, RST | ACK, RST | SYN}) {
            Resets.answer(TcpHarness.read(TcpHarness.seg(flags).seq(1).ack(2)), out);
        }
        assertThat(out.sent).isEmpty();
    }
}
