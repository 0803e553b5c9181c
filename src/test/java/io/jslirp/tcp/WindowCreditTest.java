package io.jslirp.tcp;

import io.jslirp.wire.Tcp;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jslirp.tcp.TcpHarness.MS;
import static io.jslirp.tcp.TcpHarness.Sent;
import static io.jslirp.tcp.TcpHarness.seg;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The window credit (admission of the guest's sending by window) over real connections sharing
 * one credit of a single unit, the NAT's part played here: its flushes ({@link WindowCredit#iteration},
 * with the link drained or not) and the turns it serves ({@link WindowCredit#serve}).
 */
class WindowCreditTest {
    /** The window each connection's buffer allows: 8 KiB, so a few segments spend it. */
    private static final int WINDOW = 8192;
    private static final int MSS = 1460;

    private final WindowCredit credit = new WindowCredit(1);
    private long iteration;
    private long now = TcpHarness.START;

    @org.junit.jupiter.api.BeforeEach
    void firstFlush() {
        flushBegins(false);
    }

    /** A connection sharing the credit, after the handshake; its SYN-ACK's window is checked by the caller. */
    private TcpHarness open(List<Sent> synAck) {
        TcpHarness h = TcpHarness.with().buffers(WINDOW, WINDOW).credit(credit).connecting();
        h.hostConnected();
        List<Sent> sent = h.drain();
        assertThat(sent).hasSize(1);
        assertThat(sent.getFirst().flags()).isEqualTo(Tcp.SYN | Tcp.ACK);
        synAck.addAll(sent);
        h.guest(seg(Tcp.ACK).seq(h.g(1)).ack(h.r(1)).window(0xffff));
        assertThat(h.conn.state()).isEqualTo(TcpConnection.State.ESTABLISHED);
        return h;
    }

    private int synAckWindow(TcpHarness[] out) {
        List<Sent> synAck = new java.util.ArrayList<>();
        out[0] = open(synAck);
        return synAck.getFirst().window();
    }

    /** The NAT's flush begins: the link left frames unread (backlogged) or not. */
    private void flushBegins(boolean backlogged) {
        credit.iteration(++iteration, backlogged, now);
    }

    /** The guest sends len bytes at from of its stream; the host socket takes them (room comes back at once). Returns the flush's segments. */
    private static List<Sent> guestSends(TcpHarness h, long from, int len) {
        h.guest(h.guestData(from, len, 1));
        h.hostWrote(len);
        return h.flush();
    }

    /** The credit's figures for the status report, by name. */
    private java.util.Map<String, Long> figures() {
        java.util.Map<String, Long> figures = new java.util.HashMap<>();
        credit.figures(figures::put);
        return figures;
    }

    @Test
    void underTheCreditTheWindowIsWhatTheBufferAllows() {
        TcpHarness[] a = new TcpHarness[1];
        assertThat(synAckWindow(a)).isEqualTo(WINDOW);
        assertThat(credit.held()).isEqualTo(1);
        // Its ACKs widen the window again as data goes to the host: nobody waits.
        List<Sent> acks = guestSends(a[0], 0, MSS);
        assertThat(acks).hasSize(1);
        assertThat(acks.getFirst().window()).isEqualTo(WINDOW);
    }

    @Test
    void aConnectionBeyondTheCreditIsOfferedNoWindowAndGetsItsTurnWhenTheHolderSpendsItsWindow() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1];
        assertThat(synAckWindow(a)).isEqualTo(WINDOW);
        assertThat(synAckWindow(b)).as("no unit free: a zero window").isZero();
        assertThat(credit.waiting()).isEqualTo(1);
        assertThat(b[0].flush()).as("nothing until its turn").isEmpty();

        // While b waits, a does not widen its window: what it was offered runs down.
        flushBegins(false);
        assertThat(guestSends(a[0], 0, MSS).getFirst().window()).isEqualTo(WINDOW - MSS);
        assertThat(credit.serve()).as("a is busy: no turn yet").isNull();
        for (int sent = MSS; sent < WINDOW; sent += MSS) {
            int len = Math.min(MSS, WINDOW - sent);
            List<Sent> acks = guestSends(a[0], sent, len);
            assertThat(acks.getLast().window()).isEqualTo(WINDOW - sent - len);
        }
        // Spent: a's unit comes back and a waits behind b; b's turn comes, with a window update.
        assertThat(credit.held()).isZero();
        assertThat(credit.serve()).isSameAs(b[0]);
        List<Sent> update = b[0].flush();
        assertThat(update).hasSize(1);
        assertThat(update.getFirst().flags()).isEqualTo(Tcp.ACK);
        assertThat(update.getFirst().window()).isEqualTo(WINDOW);
        assertThat(credit.held()).isEqualTo(1);
        assertThat(credit.waiting()).isEqualTo(1);
        assertThat(credit.serve()).as("b holds the unit now").isNull();
    }

    @Test
    void anIdleHolderGivesItsUnitBackOnceTheLinkWasDrained() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1];
        synAckWindow(a);
        flushBegins(false);
        guestSends(a[0], 0, 100); // a used its window, and has sent all it had
        assertThat(synAckWindow(b)).isZero();

        flushBegins(true);
        assertThat(credit.serve()).as("what a's last ACK let the guest send may still wait unread in the link").isNull();
        flushBegins(false);
        assertThat(credit.serve()).as("the link was read to its end after a's last ACK: a is idle").isSameAs(b[0]);
        assertThat(credit.reclaimed()).isEqualTo(1);
        assertThat(figures()).containsEntry("tcp_window_reclaimed", 1L).containsEntry("tcp_window_holders", 1L);
        assertThat(b[0].flush().getFirst().window()).isEqualTo(WINDOW);
        // a's window stays open (a window never shrinks), uncounted; it does not widen while b holds the unit.
        assertThat(guestSends(a[0], 100, 100).getFirst().window()).isEqualTo(WINDOW - 100);
    }

    @Test
    void anIdleHolderGivesItsUnitBackAfterATimeEvenWhileTheLinkStaysBacklogged() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1];
        synAckWindow(a);
        flushBegins(true);
        guestSends(a[0], 0, 100);
        synAckWindow(b);
        now += WindowCredit.IDLE_NANOS - MS;
        flushBegins(true);
        assertThat(credit.serve()).isNull();
        now += MS;
        flushBegins(true);
        assertThat(credit.serve()).isSameAs(b[0]);
    }

    @Test
    void aHolderThatHasNotSentYetKeepsItsUnitLonger() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1];
        synAckWindow(a); // connected, its first bytes still to come (all 10,000 connections of a burst are opened first)
        synAckWindow(b);
        for (int i = 0; i < 3; i++) {
            flushBegins(false);
            now += WindowCredit.IDLE_NANOS;
            assertThat(credit.serve()).isNull();
        }
        now = TcpHarness.START + WindowCredit.UNUSED_NANOS;
        flushBegins(false);
        assertThat(credit.serve()).isSameAs(b[0]);
    }

    @Test
    void aConnectionThatEndsGivesItsUnitBackAndLosesItsTurn() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1], c = new TcpHarness[1];
        synAckWindow(a);
        synAckWindow(b);
        synAckWindow(c);
        assertThat(credit.waiting()).isEqualTo(2);
        b[0].guest(seg(Tcp.RST).seq(b[0].g(1)));
        assertThat(b[0].conn.state()).isEqualTo(TcpConnection.State.CLOSED);
        a[0].hostReset();
        assertThat(a[0].conn.state()).isEqualTo(TcpConnection.State.CLOSED);
        assertThat(credit.held()).isZero();
        assertThat(figures()).as("b ended: only c waits").containsEntry("tcp_window_holders", 0L).containsEntry("tcp_window_waiting", 1L)
                .containsEntry("tcp_window_waits", 2L);
        assertThat(credit.serve()).as("b ended: c's turn").isSameAs(c[0]);
        assertThat(c[0].flush().getFirst().window()).isEqualTo(WINDOW);
        assertThat(credit.waiting()).isZero();
    }

    @Test
    void aGuestThatFinishedHoldsNoUnit() {
        TcpHarness[] a = new TcpHarness[1], b = new TcpHarness[1];
        synAckWindow(a);
        synAckWindow(b);
        a[0].guest(seg(Tcp.FIN | Tcp.ACK).seq(a[0].g(1)).ack(a[0].r(1)));
        a[0].flush();
        assertThat(credit.serve()).isSameAs(b[0]);
    }

    @Test
    void unlimitedCreditNeverHoldsAWindowBack() {
        WindowCredit unlimited = WindowCredit.unlimited();
        for (int i = 0; i < 1000; i++) {
            TcpHarness h = TcpHarness.with().buffers(WINDOW, WINDOW).credit(unlimited).connecting();
            h.hostConnected();
            assertThat(h.drain().getFirst().window()).isEqualTo(WINDOW);
        }
        assertThat(unlimited.waiting()).isZero();
    }
}
