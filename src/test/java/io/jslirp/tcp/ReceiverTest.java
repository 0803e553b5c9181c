package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.util.BufferPool;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpOptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The receiving half alone: acceptability, where the guest's payload goes (offered to the host,
 * buffered, kept beyond a gap), the SACK blocks and window our segments carry, and ACK pacing.
 */
class ReceiverTest {
    private static final int IRS = 0x1000_0000;
    private static final int BUF = 1 << 16;
    private static final int MSS = 1460;
    private static final long MS = 1_000_000L;
    private static final long NOW = 3_600_000 * MS;

    private final Timers timers = new Timers();
    /** How many bytes the host socket takes from the next direct write; what it was given, and how many writes. */
    private int socketRoom = Integer.MAX_VALUE;
    private long written;
    private int writes;
    private final HostSink socket = (d, o, n) -> {
        writes++;
        int took = Math.min(n, socketRoom);
        written += took;
        return took;
    };
    private final MemorySegment data = Arena.ofAuto().allocate(BUF);

    ReceiverTest() {
        for (int i = 0; i < BUF; i++) data.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
    }

    private Receiver receiver(boolean sack) {
        return receiver(sack, BUF, -1);
    }

    /** A receiver whose buffer grows to buffer bytes, for a guest that offered window scaling (wscale, -1 for none). */
    private Receiver receiver(boolean sack, int buffer, int wscale) {
        TcpOptions syn = new TcpOptions();
        syn.mss = MSS;
        syn.sackPermitted = sack;
        syn.windowScale = wscale;
        TcpConfig config = new TcpConfig(MSS, buffer, buffer, buffer, 2_000 * MS, TcpConfig.DEFAULT_BUFFER_BUDGET);
        return new Receiver(IRS, syn, config, new BufferPool(config.bufferBudget()), timers);
    }

    /** Guest stream bytes [from, from + len) (from 0 = the first data byte): returns what receive decided. */
    private int receive(Receiver r, MemorySegment data, int from, int len) {
        return r.receive(data, from, IRS + 1 + from, len, socket);
    }

    /** The SACK blocks an ACK sent now would carry. */
    private static int[] sackBlocks(Receiver r) {
        MemorySegment f = Arena.ofAuto().allocate(128);
        int hdr = r.appendOptions(f, 0, Tcp.MIN_HEADER_LENGTH, 1);
        Tcp.write(f, 0, new TcpHeader().ports(80, 40000).seq(0).ack(r.rcvNxt()).flags(Tcp.ACK).window(0).length(hdr));
        TcpOptions o = new TcpOptions();
        assertThat(Tcp.parseOptions(f, 0, o)).isTrue();
        int[] edges = new int[2 * o.sackBlocks];
        for (int i = 0; i < edges.length; i++) edges[i] = o.sackEdges[i] - IRS - 1;
        return edges;
    }

    @Test
    void segmentsAreAcceptableWithinTheWindowOrWhenTheyBringNewBytes() {
        Receiver r = receiver(false);
        r.ackSent(r.rcvNxt(), 1000);
        int next = IRS + 1;
        assertThat(r.acceptable(next, 0)).isTrue();
        assertThat(r.acceptable(next + 999, 1)).isTrue();
        assertThat(r.acceptable(next + 1000, 1)).as("beyond the window").isFalse();
        assertThat(r.acceptable(next - 10, 10)).as("all old").isFalse();
        assertThat(r.acceptable(next - 10, 11)).as("old, with one new byte").isTrue();
        r.ackSent(r.rcvNxt(), 0);
        assertThat(r.acceptable(next, 500)).as("at rcvNxt even with a zero window").isTrue();
        assertThat(r.acceptable(next + 1, 0)).isFalse();
    }

    @Test
    void theFirstInOrderPayloadOfAnIterationGoesToTheHostTheNextSmallOnesAreBuffered() {
        Receiver r = receiver(false);
        socketRoom = 60; // the socket takes part: the rest is buffered
        assertThat(receive(r, data, 0, 100)).isEqualTo(Receiver.TAKEN);
        assertThat(writes).isEqualTo(1);
        assertThat(written).isEqualTo(60);
        assertThat(r.rcvNxt()).isEqualTo(IRS + 1 + 100);
        assertThat(r.toHost().size()).isEqualTo(40);
        assertThat(r.ackPending()).isTrue();
        socketRoom = Integer.MAX_VALUE;
        assertThat(receive(r, data, 100, 100)).as("bytes wait already").isEqualTo(Receiver.TAKEN);
        assertThat(writes).isEqualTo(1);
        assertThat(r.toHost().size()).isEqualTo(140);
        byte[] held = new byte[140];
        r.toHost().peek(0, MemorySegment.ofArray(held), 0, held.length);
        assertThat(held).isEqualTo(data.asSlice(60, 140).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void largePayloadsGoToTheHostEvenAfterAnotherInTheSameIteration() {
        Receiver r = receiver(false);
        receive(r, data, 0, 100);
        receive(r, data, 100, 100);
        assertThat(writes).isEqualTo(1);
        r.deliveredToHost(100);
        receive(r, data, 200, 16 << 10);
        assertThat(writes).isEqualTo(2);
        receive(r, data, 200 + (16 << 10), 10);
        assertThat(writes).as("small, and not the iteration's first").isEqualTo(2);
        r.deliveredToHost(10);
        r.iterationEnded();
        receive(r, data, 210 + (16 << 10), 10);
        assertThat(writes).isEqualTo(3);
        assertThat(written).as("all but the buffered ones").isEqualTo(110 + (16 << 10));
        assertThat(r.toHost().isEmpty()).isTrue();
    }

    @Test
    void dataBeyondAGapIsKeptReportedLatestFirstAndJoinedWhenTheGapFills() {
        Receiver r = receiver(true);
        r.ackSent(r.rcvNxt(), BUF);
        assertThat(receive(r, data, 200, 100)).isEqualTo(Receiver.BEYOND_GAP);
        assertThat(receive(r, data, 500, 100)).isEqualTo(Receiver.BEYOND_GAP);
        assertThat(sackBlocks(r)).containsExactly(500, 600, 200, 300);
        assertThat(receive(r, data, 0, 200)).as("in order, but bytes wait beyond it").isEqualTo(Receiver.TAKEN);
        assertThat(r.rcvNxt() - IRS - 1).isEqualTo(300);
        assertThat(sackBlocks(r)).containsExactly(500, 600);
        byte[] held = new byte[r.toHost().size()];
        r.toHost().peek(0, MemorySegment.ofArray(held), 0, held.length);
        assertThat(held).isEqualTo(data.asSlice(0, 300).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void noSackBlocksForAGuestThatDidNotPermitThem() {
        Receiver r = receiver(false);
        r.ackSent(r.rcvNxt(), BUF);
        assertThat(receive(r, data, 200, 100)).isEqualTo(Receiver.BEYOND_GAP);
        assertThat(sackBlocks(r)).isEmpty();
    }

    @Test
    void repeatedDataOnlyAsksForAnAck() {
        Receiver r = receiver(false);
        receive(r, data, 0, 100);
        r.ackSent(r.rcvNxt(), BUF);
        assertThat(receive(r, data, 0, 100)).isEqualTo(Receiver.TAKEN);
        assertThat(r.ackPending()).isTrue();
        assertThat(r.rcvNxt() - IRS - 1).isEqualTo(100);
    }

    @Test
    void theWindowIsTheHostSocketsRoomAndTheSlackWithinTheBuffer() {
        assertThat(receiver(false).advertisableWindow()).as("unscaled: 16 bits").isEqualTo(0xffff);
        Receiver r = receiver(false, 1 << 20, 0);
        assertThat(r.rcvShift()).as("the least that fits 1 MiB in 16 bits").isEqualTo(5);
        assertThat(r.advertisableWindow()).isEqualTo(1 << 20);
        r.hostRoom(1000);
        assertThat(r.windowSpace()).isEqualTo(1000 + Receiver.SLACK);
        assertThat(r.advertisableWindow()).as("in scale units").isEqualTo((1000 + Receiver.SLACK) >> 5 << 5);
        assertThat(r.windowNarrowedBy(1000)).isTrue();
        assertThat(r.windowNarrowedBy((1 << 20) - Receiver.SLACK)).as("the slack covers the rest of the buffer").isFalse();
    }

    @Test
    void aWindowThatReopensIsAnnouncedAtTheFlush() {
        Receiver r = receiver(false);
        socketRoom = 0; // the socket takes nothing: 100 bytes wait
        receive(r, data, 0, 100);
        r.ackSent(r.rcvNxt(), 0); // the guest was told the window is closed
        r.checkWindow();
        assertThat(r.ackPending()).as("nothing changed since").isFalse();
        r.deliveredToHost(100);
        r.checkWindow();
        assertThat(r.ackPending()).isTrue();
    }

    @Test
    void aFinIsTakenOnce() {
        Receiver r = receiver(false);
        assertThat(r.receiveFin()).isTrue();
        assertThat(r.guestFinished()).isTrue();
        assertThat(r.rcvNxt()).isEqualTo(IRS + 2);
        r.ackSent(r.rcvNxt(), BUF);
        assertThat(r.receiveFin()).isFalse();
        assertThat(r.rcvNxt()).isEqualTo(IRS + 2);
        assertThat(r.ackPending()).as("a repeated FIN is acknowledged again").isTrue();
    }

    /** Streams a bulk run in segments of MSS, each acknowledged: where ACK pacing begins. */
    private long bulkRun(Receiver r) {
        long now = NOW;
        int at = 0;
        while (at + MSS < Receiver.BULK_RUN_BYTES) {
            r.receive(data, 0, r.rcvNxt(), MSS, socket);
            r.deliveredToHost(r.toHost().size());
            at += MSS;
            r.trackRun(now);
            assertThat(r.ackNow(now)).as("a run's first bytes are acknowledged at once").isTrue();
            r.ackSent(r.rcvNxt(), BUF);
            r.iterationEnded();
            now += MS / 10;
        }
        return now;
    }

    @Test
    void withinABulkRunAnAckShortOfAStrideWaitsForTheHoldOrAStride() {
        Receiver r = receiver(false);
        long now = bulkRun(r);
        r.iterationEnded();
        r.receive(data, 0, r.rcvNxt(), MSS, socket);
        r.trackRun(now);
        assertThat(r.ackNow(now)).isFalse();
        assertThat(timers.ackHold()).isEqualTo(now + Receiver.ACK_HOLD_NANOS);
        assertThat(r.ackNow(now + Receiver.ACK_HOLD_NANOS - 1)).isFalse();
        assertThat(r.ackNow(now + Receiver.ACK_HOLD_NANOS)).isTrue();
        r.ackSent(r.rcvNxt(), BUF);
        assertThat(timers.ackHold()).isEqualTo(Timers.NEVER);
        r.iterationEnded();
        r.receive(data, 0, r.rcvNxt(), Receiver.ACK_STRIDE_BYTES, socket);
        r.trackRun(now);
        assertThat(r.ackNow(now)).as("a stride is acknowledged at once").isTrue();
    }

    @Test
    void dataTowardTheGuestEndsTheRun() {
        Receiver r = receiver(false);
        long now = bulkRun(r);
        r.dataSent();
        r.iterationEnded();
        r.receive(data, 0, r.rcvNxt(), MSS, socket);
        r.trackRun(now);
        assertThat(r.ackNow(now)).isTrue();
    }
}
