package io.jslirp.tcp;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.function.ObjLongConsumer;

/**
 * How many connections may hold a window open to the guest at once, all connections of a link
 * together (both IP versions): admission of the guest's sending by window, so that a burst waits
 * in the guest's socket buffers, where no timer runs, and not in the link's queues.
 *
 * <h2>Why</h2>
 * A guest's frames wait in the link's queues until the stack reads them; a tap drops what does not
 * fit (8 queues of 1,000 frames), and a frame that waits longer than the guest's retransmission
 * timeout (about 200 ms) is sent again even when it is not dropped. When ten thousand connections
 * each send their first 16 KiB at once, the windows they were offered let all of it go into the
 * queues at once: most of it was dropped or timed out, and the guest resent two thirds of its
 * segments (docs/benchmarks.md, "Connection bursts"). A window the guest has not been offered, it
 * does not use: the bytes stay in its socket buffer, and it waits for our window update (or probes
 * a zero window), neither of which it counts as a retransmission.
 *
 * <h2>The rule</h2>
 * A connection <em>holds</em> a unit while the window it was offered is at least an MSS and it
 * counts as active. At most {@code units} hold at once ({@link #UNITS}: 128 connections' windows,
 * each a few frames of a tap's queues when it comes at once). A connection that would widen its
 * window beyond what it was offered may do so when it holds a unit already and nobody waits, or
 * when a unit is free and nobody waits; otherwise its window stays where it is (it never shrinks,
 * RFC 9293 3.8.6) and, once that window is spent (under an MSS) while its host socket would take
 * more, it <em>waits</em>: first come, first served ({@link #serve}), with a window update sent to
 * it by the NAT's flush. While others wait, nobody widens ahead of them, so every connection gets
 * its turn, a window at a time.
 *
 * <p>A unit comes back when the window is spent, when the connection ends or the guest finished
 * sending, or when the connection is <em>idle</em>: no new byte from it since an iteration in
 * which the link had nothing left unread ({@link #iteration}), or for {@link #IDLE_NANOS} while
 * the link stays backlogged. The guest answers a window update at once (the tap hands our frame to
 * its TCP inside our write), so what an update let it send was read by then; a connection that
 * sent nothing since has nothing to send, and its open window stays open uncounted (as every
 * window is without this rule) so that thousands of idle connections (a pool of keep-alive
 * connections) never keep others waiting. A connection that has not sent its first byte keeps its
 * unit for {@link #UNUSED_NANOS}: a program that opens its connections first and then writes on
 * all of them (a connection pool filled at start) would otherwise have every window handed out
 * while it opens them, and the burst would come from all at once. Idle holders are looked for
 * only when a unit is wanted and none is free, once per iteration.
 *
 * <p>Below {@link #UNITS} open windows nothing changes: a connection's window is what its host
 * socket and buffer allow (see {@link Receiver}). Single-threaded (the event loop's); the NAT
 * drives it ({@link #iteration} and {@link #serve} at its flush), the receivers report to it.
 */
public final class WindowCredit {
    /** Connections that may hold a window open at once, by default. */
    public static final int UNITS = 128;

    private final int units;
    /** Units held, or granted to a waiter whose update has not gone yet. */
    private int held;
    /** Connections waiting for a unit, first come first served (one that ended is skipped when its turn comes). */
    private final ArrayDeque<Receiver> waiters = new ArrayDeque<>();
    /** The receivers holding a unit (each knows its index here), looked through for idle ones. */
    private final ArrayList<Receiver> holders = new ArrayList<>();
    /** A holder that has not sent a byte yet gives its unit back only after this long without one. */
    static final long UNUSED_NANOS = 250_000_000L;
    /** A holder gives its unit back after this long without a byte, even while the link stays backlogged. */
    static final long IDLE_NANOS = 100_000_000L;
    /** The NAT's flushes so far, and the last one at which the link had nothing left unread; the time of the last. */
    private long iteration, drained = Long.MIN_VALUE, now;
    /** The iteration in which idle holders were last looked for. */
    private long swept = Long.MIN_VALUE;
    /** Units taken back because their connection was idle, ever. */
    private long reclaimed;
    /** Times a connection began to wait for a unit, ever. */
    private long waits;

    /** A credit of units open windows. */
    public WindowCredit(int units) {
        if (units <= 0) throw new IllegalArgumentException("window credit must be positive: " + units);
        this.units = units;
    }

    /** A credit that never limits (a link whose frames wait without loss, and tests of one connection). */
    public static WindowCredit unlimited() {
        return new WindowCredit(Integer.MAX_VALUE);
    }

    /**
     * The NAT's flush begins: the iteration number, and whether the link left frames unread in it
     * (a queue whose batch stopped at its budget). Without such, every frame a window update let the
     * guest send before this iteration has been read.
     */
    public void iteration(long n, boolean linkBacklogged, long now) {
        iteration = n;
        this.now = now;
        if (!linkBacklogged) drained = n;
    }

    /**
     * The next waiting connection given a unit, or null when none waits or no unit is free: its
     * owner ({@link TcpConnection#attach}) is flushed, and its window update goes (the unit counts
     * from now on).
     */
    public Object serve() {
        Receiver r = firstWaiter();
        if (r == null || !unitFree()) return null;
        waiters.poll();
        r.waiting = false;
        r.granted = true;
        held++;
        r.windowGranted();
        return r.owner;
    }

    /**
     * A unit for the SYN of a connection we open toward the guest (a forwarded port's), whose
     * window it offers before the connection exists: taken when nobody waits and one is free, and
     * counted from now on, until the connection made takes it over ({@link Receiver#offeredInSyn})
     * or {@link #unreserve} gives it back (the guest never answered). Without one the SYN offers
     * no window, and the connection waits its turn once made.
     */
    public boolean reserve() {
        if (firstWaiter() != null || !unitFree()) return false;
        held++;
        return true;
    }

    /** Gives back a unit {@link #reserve} took for a SYN whose connection was never made. */
    public void unreserve() {
        held--;
    }

    /**
     * The credit's figures for the status report: units held now ({@code tcp_window_holders}),
     * connections waiting for one now ({@code tcp_window_waiting}), times a connection began to
     * wait ({@code tcp_window_waits}) and units taken back from idle holders
     * ({@code tcp_window_reclaimed}), ever.
     */
    public void figures(ObjLongConsumer<String> sink) {
        long waitingNow = 0;
        for (Receiver r : waiters) if (!r.ended) waitingNow++;
        sink.accept("tcp_window_holders", held);
        sink.accept("tcp_window_waiting", waitingNow);
        sink.accept("tcp_window_waits", waits);
        sink.accept("tcp_window_reclaimed", reclaimed);
    }

    /** Units held now (for tests). */
    public int held() {
        return held;
    }

    /** Connections waiting for a unit now (some may have ended): the most turns a flush can serve. */
    public int waiting() {
        return waiters.size();
    }

    /** Units taken back from idle connections, ever (for tests). */
    public long reclaimed() {
        return reclaimed;
    }

    // ---- the receivers ----

    /** Whether r may offer a window beyond what it offered already. */
    boolean mayWiden(Receiver r) {
        if (r.granted) return true;
        Receiver first = firstWaiter();
        if (first != null && first != r) return false; // others wait: nobody widens ahead of them
        return r.holding || unitFree();
    }

    /**
     * r sent an ACK: moved, it acknowledged new bytes (or a FIN) of the guest's since its last;
     * widened, its window reaches further than before; open, that window is at least an MSS and the
     * guest may still send. Takes or returns r's unit, and makes r wait when its window is spent
     * while its host socket would take more (wantsMore).
     */
    void acked(Receiver r, boolean moved, boolean widened, boolean open, boolean wantsMore) {
        if (open) {
            if (r.waiting) { // its turn came without waiting for serve (a unit was free)
                r.waiting = false;
                if (waiters.peek() == r) waiters.poll();
                else waiters.remove(r);
            }
            if (r.granted) {
                r.granted = false;
                hold(r);
            } else if (!r.holding && (moved || widened)) {
                held++;
                hold(r);
            } else if (r.holding && (moved || widened)) {
                r.activeIn = iteration + 1;
                r.activeAt = now;
            }
            if (moved) r.used = true;
            return;
        }
        if (r.granted) {
            r.granted = false;
            held--;
        }
        if (r.holding) release(r);
        if (wantsMore && (firstWaiter() != null || !unitFree())) await(r); // (else its window widens at once)
    }

    /** r's window could not widen (see {@link #mayWiden}) while its host socket would take more: it waits, if it does not already. */
    void refused(Receiver r) {
        if (!r.holding && !r.granted) await(r);
    }

    /** r's connection ended: its unit comes back, and its turn is skipped. */
    void forget(Receiver r) {
        if (r.granted) {
            r.granted = false;
            held--;
        }
        if (r.holding) release(r);
        r.ended = true;
    }

    private void await(Receiver r) {
        if (r.waiting || r.ended) return;
        r.waiting = true;
        waiters.add(r);
        waits++;
    }

    private void hold(Receiver r) {
        r.holding = true;
        r.activeIn = iteration + 1; // (an iteration after this one's: see iteration)
        r.activeAt = now;
        r.holderIndex = holders.size();
        holders.add(r);
    }

    private void release(Receiver r) {
        r.holding = false;
        held--;
        Receiver last = holders.removeLast();
        if (last != r) {
            holders.set(r.holderIndex, last);
            last.holderIndex = r.holderIndex;
        }
        r.holderIndex = -1;
    }

    /** The first waiter whose connection has not ended, or null. */
    private Receiver firstWaiter() {
        Receiver r;
        while ((r = waiters.peek()) != null && r.ended) {
            waiters.poll();
            r.waiting = false;
        }
        return r;
    }

    /** Whether a unit is free, after taking back those of idle holders when none is (once an iteration). */
    private boolean unitFree() {
        if (held < units) return true;
        if (swept == iteration) return false;
        swept = iteration;
        for (int i = holders.size() - 1; i >= 0; i--) {
            Receiver r = holders.get(i);
            long idle = now - r.activeAt;
            if (r.used ? r.activeIn < drained || idle >= IDLE_NANOS : idle >= UNUSED_NANOS) { // (later holders, visited already, fill the gap)
                release(r);
                reclaimed++;
            }
        }
        return held < units;
    }
}
