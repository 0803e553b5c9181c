package io.jslirp.tcp;

import io.jslirp.util.BufferPool;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Seq;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;

import java.lang.foreign.MemorySegment;

/**
 * The receiving half of a connection: the guest's bytes toward the host. It decides which guest
 * segments are acceptable, takes their payload (offered to the host socket first, else buffered in
 * {@link #toHost()}, data beyond a gap kept in the buffer's free space), what window the guest is
 * offered, which SACK blocks our ACKs carry, and when an ACK is due or may wait (ACK pacing).
 *
 * <p>The window offered to the guest is what the host socket can still take ({@link #hostRoom})
 * plus {@link #SLACK}, so toHost holds bytes only while the socket refuses them, and out-of-order
 * data.
 */
final class Receiver {
    /**
     * In-order guest payloads from this size on are offered to the host socket before any copy:
     * a syscall costs less than copying that much (a guest with TSO sends up to 64 KiB per
     * segment). So is the first in-order payload of a loop iteration whatever its size, so that a
     * flow that gets one segment an iteration (most of thousands of flows, every interactive one)
     * holds no buffer; the smaller ones that follow it in the same iteration are buffered and
     * written together at the flush (lesson 2).
     */
    private static final int DIRECT_WRITE_MIN = 16 << 10;
    /**
     * What the window offered to the guest may exceed the host socket's free space by (lesson 3's
     * "small bounded stack buffer"): enough for a TSO segment, so that a sender the host socket
     * holds back still fills the socket to its limit (and so learns when it drains: EPOLLOUT).
     */
    static final int SLACK = 64 << 10;
    /**
     * ACK pacing for a guest that streams (lesson 4 refined, issue 20): within a run of at least
     * {@link #BULK_RUN_BYTES} in-order bytes from the guest, with nothing sent its way meanwhile,
     * an ACK that would cover less than a stride ({@link #ACK_STRIDE_BYTES}, and at least two
     * full-size segments, as a Linux receiver acknowledges every second one) waits for the
     * segments that complete it, for at most this long. A guest's Nagle then coalesces small
     * writes into full-size segments, and a guest that pays for every frame it takes pays for
     * fewer ACKs: busybox nc writes 1 KiB at a time, and a VM under TCG (whose every frame costs it
     * far more than it costs us), each 1 KiB acknowledged at once, sent one frame per write and
     * took far longer to upload at MTU 65520; at MTU 1500, an ACK every two segments instead of
     * every stride made its upload slower too. Everything else is acknowledged in the
     * iteration it came in: a stride or more, a FIN, data beyond a gap, repeated data, a window
     * that grew by an MSS, a flow's first bytes and those after a pause or after data toward the
     * guest.
     */
    static final long ACK_HOLD_NANOS = 1_000_000L;
    /** In-order bytes a run takes from the guest before its ACKs are paced (a request, a reply, a flow's start: never). */
    static final int BULK_RUN_BYTES = 64 << 10;
    /** The least a paced ACK covers (see {@link #ACK_HOLD_NANOS}): at MTU 1500, every sixth segment. */
    static final int ACK_STRIDE_BYTES = 8 << 10;
    /** A pause in the guest's data this long ends its run. */
    static final long RUN_PAUSE_NANOS = 10_000_000L;

    /** {@link #receive} result: the payload was taken (written to the host, buffered, or old). */
    static final int TAKEN = 0;
    /** {@link #receive} result: the payload lay beyond a gap; a duplicate ACK is due at once. */
    static final int BEYOND_GAP = 1;

    /**
     * Stands for toHost until the guest's bytes first need buffering: most connections never
     * buffer any (the host socket takes them at once), and thousands of them would each hold a
     * buffer object that never holds a byte. Nothing is ever written to it; {@link #makeRoom}
     * replaces it first.
     */
    private static final RingBuffer NO_BUFFER = new RingBuffer(new BufferPool(1), 1, 1);

    private final TcpConfig config;
    private final BufferPool buffers;
    private final Timers timers;
    /** The window credit all connections of the link share (admission of the guest's sending, see {@link WindowCredit}). */
    private final WindowCredit credit;
    // The credit's state of this connection (WindowCredit keeps it): holding a unit, granted one
    // whose window update has not gone, waiting in its queue, ended; where it is in the holders;
    // the iteration from which on an idle holder gives its unit back; the owner the NAT flushes.
    boolean holding, granted, waiting, ended, used;
    int holderIndex = -1;
    long activeIn, activeAt;
    Object owner;
    private RingBuffer toHost = NO_BUFFER;

    private final int irs;
    private int rcvNxt;
    private final boolean windowScaling;
    private final int rcvShift;
    private int advertisedRightEdge;
    private boolean ackPending;
    private boolean guestFinished;
    /** In-order bytes went to the host socket directly in this loop iteration (until the flush). */
    private boolean wroteDirectly;
    /**
     * What the host socket can still take, as the host side last measured it or knows at least
     * ({@link #hostRoom}); no window goes beyond an int's worth.
     */
    private int hostRoom = Integer.MAX_VALUE;
    /** The host socket took bytes or has more room: the flush sees whether the guest must hear of the window. */
    private boolean windowCheck;
    /** Most bytes toHost may hold: its maximum, or less once the pool's budget refused it more. */
    private int toHostLimit;
    /** The guest's data received beyond a gap (none until the first gap: most connections never see one). */
    private OutOfOrder outOfOrder = OutOfOrder.NONE;

    /** RFC 7323 timestamps: every segment but a RST carries them, echoing the guest's TSval. */
    private final boolean timestamps;
    /** The guest takes SACK blocks (RFC 2018): our ACKs report data received ahead of a gap. */
    private final boolean sackPermitted;
    private int tsRecent;
    private int lastAckSent;

    /** The guest's current run of in-order data: where it began, where the last flush saw it end, and when. */
    private int runStart, runEnd;
    private long runSeenAt = Long.MIN_VALUE / 2;
    /** Bytes that closed (part of) a gap arrived since the last ACK. */
    private boolean filledGap;

    /** The receiving half for a guest whose SYN (or SYN-ACK) had sequence number guestIsn and options synOptions. */
    Receiver(int guestIsn, TcpOptions synOptions, TcpConfig config, BufferPool buffers, Timers timers) {
        this(guestIsn, synOptions, config, buffers, timers, WindowCredit.unlimited());
    }

    /** As above, the connection one of those that share credit. */
    Receiver(int guestIsn, TcpOptions synOptions, TcpConfig config, BufferPool buffers, Timers timers, WindowCredit credit) {
        this.config = config;
        this.buffers = buffers;
        this.timers = timers;
        this.credit = credit;
        this.irs = guestIsn;
        this.rcvNxt = guestIsn + 1;
        this.advertisedRightEdge = this.lastAckSent = rcvNxt; // nothing offered or acknowledged yet
        this.runStart = this.runEnd = rcvNxt;
        this.windowScaling = synOptions.windowScale >= 0;
        this.rcvShift = windowScaling ? config.windowShift() : 0;
        this.timestamps = synOptions.hasTimestamp;
        this.tsRecent = synOptions.tsVal;
        this.sackPermitted = synOptions.sackPermitted;
        this.toHostLimit = config.receiveBuffer();
    }

    int rcvNxt() {
        return rcvNxt;
    }

    /** The sequence number of the guest's SYN. */
    int irs() {
        return irs;
    }

    RingBuffer toHost() {
        return toHost;
    }

    boolean timestamps() {
        return timestamps;
    }

    boolean sackPermitted() {
        return sackPermitted;
    }

    int tsRecent() {
        return tsRecent;
    }

    /** Our window-scale shift, or -1 when the guest does not scale windows. */
    int windowScale() {
        return windowScaling ? rcvShift : -1;
    }

    int rcvShift() {
        return rcvShift;
    }

    boolean guestFinished() {
        return guestFinished;
    }

    boolean ackPending() {
        return ackPending;
    }

    /** An ACK is due at the next flush (a challenge ACK, a duplicate, the handshake's last). */
    void ackDue() {
        ackPending = true;
    }

    /** Whether this segment of the guest's is one it may already have sent before, newer by sequence number or timestamp. */
    boolean newerThanReceived(int seq, TcpOptions opts) {
        return Seq.gt(seq, rcvNxt) || (timestamps && opts.hasTimestamp && opts.tsVal - tsRecent > 0);
    }

    /**
     * RFC 9293 acceptability, with two allowances: a segment at exactly rcvNxt is processed even
     * with a zero window (its ACK and FIN count; data beyond the buffer is dropped), and a
     * retransmission that starts before rcvNxt but brings new bytes is trimmed, not refused.
     */
    boolean acceptable(int seq, int segLen) {
        if (seq == rcvNxt) return true;
        int wnd = Math.max(advertisedRightEdge - rcvNxt, 0);
        if (segLen == 0) return Seq.inWindow(seq, rcvNxt, wnd);
        return Seq.lt(seq, rcvNxt) ? Seq.gt(seq + segLen, rcvNxt) : Seq.inWindow(seq, rcvNxt, wnd);
    }

    /** Takes the guest's TSval to echo when the segment covers our last ACK (RFC 7323 section 4.3). */
    void noteTimestamp(TcpOptions opts, int seq, int segLen) {
        if (timestamps && opts.hasTimestamp && Seq.le(seq, lastAckSent) && Seq.le(lastAckSent, seq + segLen)) {
            tsRecent = opts.tsVal;
        }
    }

    // ---- the guest's data ----

    /**
     * Takes len bytes of payload at payloadOff of s, with sequence number seq: in-order bytes go to
     * the host socket first (a large payload, or the iteration's first) or are buffered. Returns
     * {@link #BEYOND_GAP} or {@link #TAKEN}.
     */
    int receive(MemorySegment s, long payloadOff, int seq, int len, HostSink host) {
        int skip = rcvNxt - seq;
        if (skip < 0) {
            // Ahead of a gap: keep it in the buffer's free space, and send a duplicate ACK (with SACK
            // blocks) per segment at once, so the guest resends just the gap. When all buffers
            // together hold an eighth of the budget (thousands of flows losing frames at once), a
            // buffer is not taken for it: the guest resends it with the gap.
            if (toHost.holdsMemory() || buffers.takesGaps()) {
                makeRoom(toHost.size() - skip + len); // past what it holds, as writeAhead counts
                int stored = toHost.writeAhead(-skip, s, payloadOff, len);
                if (stored > 0) {
                    if (outOfOrder == OutOfOrder.NONE) outOfOrder = new OutOfOrder(OutOfOrder.MAX_RANGES);
                    outOfOrder.add(seq, seq + stored);
                }
            }
            return BEYOND_GAP;
        }
        if (skip >= len) {
            ackPending = true;
            return TAKEN;
        }
        if ((len - skip >= DIRECT_WRITE_MIN || !wroteDirectly) && toHost.isEmpty() && outOfOrder.isEmpty()) {
            wroteDirectly = true;
            int n = Math.clamp(host.write(s, payloadOff + skip, len - skip), 0, len - skip);
            rcvNxt += n;
            skip += n; // what the socket did not take is buffered
        }
        buffer(s, payloadOff + skip, len - skip);
        return TAKEN;
    }

    /** Buffers in-order guest bytes toward the host (as many as fit), with what they make contiguous. */
    private void buffer(MemorySegment s, long offset, int len) {
        int n = 0;
        if (len > 0) { // (a segment the host socket took whole takes no memory)
            makeRoom(toHost.size() + len);
            n = toHost.append(s, offset, len);
        }
        rcvNxt += n;
        if (!outOfOrder.isEmpty()) {
            filledGap = true; // what the guest resent: the ACK that ends its recovery goes at once
            int gained = outOfOrder.advance(rcvNxt);
            toHost.commitWrite(gained);
            rcvNxt += gained;
        }
        ackPending = true;
    }

    /**
     * The guest's FIN, in order: true when it is the first (the guest finished), false for a
     * repeated one. Either way an ACK is due.
     */
    boolean receiveFin() {
        ackPending = true;
        if (guestFinished) return false;
        guestFinished = true;
        rcvNxt++;
        return true;
    }

    /**
     * Grows toHost toward bytes of capacity (within the window the guest was offered), a buffer
     * that gave its memory back first to the size it had; when the pool's budget refuses, windows
     * from now on stay within what toHost has.
     */
    private void makeRoom(int bytes) {
        if (toHost == NO_BUFFER) toHost = new RingBuffer(buffers, firstCapacity(), config.receiveBuffer());
        toHost.resume(toHostLimit);
        while (toHost.capacity() < Math.min(bytes, toHostLimit)) {
            if (!toHost.grow()) {
                toHostLimit = toHost.capacity();
                return;
            }
        }
    }

    // ---- the window ----

    /** See {@link TcpConnection#hostRoom}. */
    void hostRoom(long bytes) {
        hostRoom = Math.clamp(bytes, 0, Integer.MAX_VALUE);
        windowCheck = true;
    }

    /** See {@link TcpConnection#windowNarrowedBy}. */
    boolean windowNarrowedBy(long hostRoom) {
        return hostRoom + SLACK < holdable();
    }

    /** The host side wrote n bytes of {@link #toHost()} to the host socket. */
    void deliveredToHost(int n) {
        if (n > 0) toHost.discard(n);
        windowCheck = true;
    }

    /**
     * At the flush, after the host socket took bytes or gained room: lesson 1, when the window
     * reopens from zero, or grows by a segment beyond what the guest was told, tell the guest in
     * this iteration, not when its persist timer fires. Except while the guest has sent no byte
     * and still has the whole 64 KiB a SYN-ACK can offer (a SYN's window is never scaled): the
     * larger window is then told with its first data's ACK, not in a frame of its own to every new
     * connection (half of the connections of a connect-request-close run got one).
     */
    void checkWindow() {
        if (!windowCheck) return;
        windowCheck = false;
        // Compare the space freed, not the window rounded down to the scale unit, with the MSS, or
        // a drain of one MSS could go unannounced.
        int advertised = Math.max(advertisedRightEdge - rcvNxt, 0);
        int window = advertisableWindow();
        int space = Math.min(windowSpace(), 0xffff << rcvShift);
        // A window under one MSS counts as closed for the guest's sender (silly-window avoidance),
        // so crossing one MSS is a reopening too.
        boolean reopened = advertised == 0 || (advertised < config.mss() && window >= config.mss());
        boolean untouchedSynWindow = rcvNxt == irs + 1 && advertised >= 0xffff;
        if (window > advertised && (reopened || (space - advertised >= config.mss() && !untouchedSynWindow))) {
            ackPending = true;
        } else if (advertised < config.mss() && wantsMore(advertised) && !credit.mayWiden(this)) {
            credit.refused(this); // spent, and the host would take more: its turn comes (WindowCredit)
        }
    }

    /**
     * Our SYN toward the guest (a connection we opened) offered window bytes: the window does not
     * shrink from there. unit: the credit's unit reserved for that SYN ({@link WindowCredit#reserve})
     * is still out, and this connection takes it over as a granted one; else its window is open
     * uncounted, as an idle connection's is, until the guest sends.
     */
    void offeredInSyn(int window, boolean unit) {
        advertisedRightEdge = rcvNxt + window;
        granted = unit;
    }

    /** A unit of the credit was granted: the window may widen, and the guest must hear of it. */
    void windowGranted() {
        windowCheck = true;
    }

    /** Whether the host side would take at least an MSS beyond the offered window, and the guest may still send. */
    private boolean wantsMore(int offered) {
        return !guestFinished && windowSpace() - offered >= config.mss();
    }

    /** The window our SYN-ACK offers: what the buffers allow, up to 64 KiB (a SYN's window is never scaled), within the credit. */
    int synWindow() {
        int offered = Math.max(advertisedRightEdge - rcvNxt, 0); // a SYN-ACK sent again offers what the first did, at least
        int space = Math.max(Math.min(windowSpace(), 0xffff), offered);
        return space > offered && !credit.mayWiden(this) ? offered : space;
    }

    /**
     * Bytes the guest may send beyond rcvNxt: the host socket's room and the slack, within what
     * toHost may hold: its limit, and its size now with what the budget all buffers share can still
     * give it (lesson 3: a window the buffer cannot grow to would have the guest's bytes refused and
     * sent again).
     */
    int windowSpace() {
        long space = Math.min((long) hostRoom + SLACK, holdable()) - toHost.size();
        return (int) Math.max(space, 0);
    }

    /** The most toHost may hold: its limit, and its size now with what the budget can still give it. */
    private long holdable() {
        return Math.min(toHostLimit, capacity() + buffers.unreserved());
    }

    /** What toHost starts with. */
    private int firstCapacity() {
        return config.firstBuffer();
    }

    /** toHost's capacity, also before it exists. */
    private int capacity() {
        return toHost == NO_BUFFER ? firstCapacity() : toHost.capacity();
    }

    /** The window our next segment offers, in bytes (a multiple of the scale unit). */
    int advertisableWindow() {
        // Never less than what the guest was offered already: a window does not shrink (RFC 9293
        // 3.8.6); toHost takes what the host socket then refuses.
        int offered = Math.max(advertisedRightEdge - rcvNxt, 0);
        int space = Math.max(windowSpace(), Math.min(offered, toHostLimit - toHost.size()));
        if (space > offered && !credit.mayWiden(this)) space = offered; // others' turn first (WindowCredit)
        return (Math.min(space, 0xffff << rcvShift) >>> rcvShift) << rcvShift;
    }

    // ---- our segments ----

    /** Appends the options every segment but a reset carries (timestamps, SACK blocks) to a header of hdr bytes; returns its length. */
    int appendOptions(MemorySegment f, long off, int hdr, int tsVal) {
        if (timestamps) hdr = Tcp.appendTimestamps(f, off, hdr, tsVal, tsRecent);
        if (sackPermitted && !outOfOrder.isEmpty()) {
            int blocks = outOfOrder.sackBlocks(Tcp.MAX_SACK_BLOCKS_WITH_TIMESTAMPS);
            hdr = Tcp.appendSack(f, off, hdr, outOfOrder.sackEdges(), blocks);
        }
        return hdr;
    }

    /** A segment acknowledging ack and offering window bytes went to the guest. */
    void ackSent(int ack, int window) {
        int edge = rcvNxt + window;
        boolean widened = Seq.gt(edge, advertisedRightEdge);
        boolean moved = ack != lastAckSent;
        advertisedRightEdge = edge;
        boolean open = window >= config.mss() && !guestFinished;
        credit.acked(this, moved, widened, open, !open && wantsMore(window));
        lastAckSent = ack;
        ackPending = false;
        timers.stopAckHold();
        filledGap = false;
    }

    /** Data went toward the guest: an exchange, not a one-way run. */
    void dataSent() {
        runStart = runEnd = rcvNxt;
    }

    // ---- ACK pacing ----

    /** A loop iteration ended (the flush): the next one's first in-order payload goes to the host socket directly again. */
    void iterationEnded() {
        wroteDirectly = false;
    }

    /** At the flush: follows the guest's run of in-order data; a pause of {@link #RUN_PAUSE_NANOS} starts a new one. */
    void trackRun(long now) {
        if (rcvNxt == runEnd) return;
        if (now - runSeenAt >= RUN_PAUSE_NANOS) runStart = runEnd;
        runEnd = rcvNxt;
        runSeenAt = now;
    }

    /** Whether an ACK goes at this flush: one is pending and may not wait (see {@link #ACK_HOLD_NANOS}). */
    boolean ackNow(long now) {
        return ackPending && !holdAck(now);
    }

    /** What a paced ACK covers: {@link #ACK_STRIDE_BYTES}, and two full-size segments (our MSS less the options each carries). */
    private int ackStride() {
        return Math.max(ACK_STRIDE_BYTES, 2 * (config.mss() - (timestamps ? Tcp.TIMESTAMPS_LENGTH : 0)));
    }

    /** Whether the pending ACK waits; arms its deadline when it starts to. */
    private boolean holdAck(long now) {
        int fresh = rcvNxt - lastAckSent;
        boolean hold = fresh > 0 && fresh < ackStride()
                && rcvNxt - runStart >= BULK_RUN_BYTES
                && !guestFinished && outOfOrder.isEmpty() && !filledGap
                && advertisedRightEdge - rcvNxt >= advertisableWindow() / 2; // the guest still has most of its window
        if (!hold) return false;
        return now < timers.holdAckUntil(now + ACK_HOLD_NANOS);
    }

    /** An empty buffer gives its memory back until the next byte: idle connections cost none. */
    void releaseIfIdle() {
        if (toHost != NO_BUFFER && toHost.isEmpty() && outOfOrder.isEmpty()) {
            toHost.release();
            toHostLimit = toHost.maxCapacity(); // the budget may have room again by the next byte
        }
    }

    void close() {
        credit.forget(this);
        if (toHost != NO_BUFFER) toHost.close();
    }
}
