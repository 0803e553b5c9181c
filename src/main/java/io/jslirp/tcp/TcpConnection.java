package io.jslirp.tcp;

import io.jslirp.util.BufferPool;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Seq;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;

import java.lang.foreign.MemorySegment;

/**
 * The guest-facing half of one NATed TCP flow: the guest connected to a remote address and we
 * play that remote. Pure logic: it is driven by the guest's segments, by what the host side
 * reports, and by a clock passed in as {@code now} (nanoseconds); it never calls the OS, and it
 * calls nobody back.
 *
 * <p>Each event method returns what its caller must do, as bits: {@link #SEND_NOW} (segments are
 * due at once, an ACK for data beyond a gap, a retransmission or a reset: call {@link #sendNow}),
 * {@link #HOST_BYTES} (in-order guest bytes of the segment are for the host socket: offer them,
 * then report how many it took with {@link #hostTook}), {@link #CLOSED} (the connection is over
 * and its buffers are released; with {@link #RESET_HOST} the host peer must see a reset). Segments
 * go out only when the caller asks: {@link #sendNow} or {@link #flush}.
 *
 * <p>Data from the guest goes to the host socket: a large in-order segment at once when nothing
 * waits ({@link #HOST_BYTES}), smaller ones through {@link #toHost()}, where they coalesce until
 * the host side writes them at the end of the iteration and calls {@link #deliveredToHost}. The
 * window offered to the guest is what the host socket can still take ({@link #hostRoom}) plus
 * {@link #SLACK}, so toHost holds bytes only while the socket refuses them, and out-of-order
 * data. Data from the host stays in the host socket ({@link HostStream}) until the guest
 * acknowledges it: segments toward the guest, retransmissions too, are peeked from there. The
 * host side calls {@link #flush} once per event-loop iteration, after all input was processed, so
 * small pieces coalesce into full segments and at most one pure ACK goes out per iteration.
 */
public final class TcpConnection {
    public enum State { CONNECTING, SYN_RECEIVED, ESTABLISHED, CLOSE_WAIT, LAST_ACK, FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT, CLOSED }

    /** Result bit: segments are due at once (before the next input): call {@link #sendNow}. */
    public static final int SEND_NOW = 1;
    /**
     * Result bit of {@link #onSegment}: {@link #hostBytesLength()} in-order bytes at
     * {@link #hostBytesOffset()} of the segment are for the host; the caller offers them to the host
     * socket and must then call {@link #hostTook} (with 0 if it took none), which finishes the segment.
     */
    public static final int HOST_BYTES = 2;
    /** Result bit: the connection is over; its buffers are released. */
    public static final int CLOSED = 4;
    /** Result bit, with {@link #CLOSED}: the guest reset it (or it was given up): the host peer must see a reset too. */
    public static final int RESET_HOST = 8;
    /**
     * Result bit of {@link #flush}: it sent its burst ({@link #burst}) toward the guest and the
     * guest's window takes more: flush it again in the next loop iteration, after the connections
     * that have something new (lesson 3: one bulk flow must not make a reply wait for its whole window).
     */
    public static final int MORE = 16;

    private static final int DEFAULT_GUEST_MSS = 536;
    /**
     * In-order guest payloads from this size on are offered to the host socket before any copy
     * ({@link #HOST_BYTES}): a syscall costs less than copying that much (a guest
     * with TSO sends up to 64 KiB per segment). So is the first in-order payload of a loop
     * iteration whatever its size, so that a flow that gets one segment an iteration (most of
     * thousands of flows, every interactive one) holds no buffer; the smaller ones that follow
     * it in the same iteration are buffered and written together at the flush (lesson 2).
     */
    private static final int DIRECT_WRITE_MIN = 16 << 10;
    /** The most ranges of ours the guest's SACK blocks are remembered as. */
    private static final int SACKED_RANGES = 32;
    /**
     * What the window offered to the guest may exceed the host socket's free space by (lesson 3's
     * "small bounded stack buffer"): enough for a TSO segment, so that a sender the host socket
     * holds back still fills the socket to its limit (and so learns when it drains: EPOLLOUT).
     */
    public static final int SLACK = 64 << 10;
    /**
     * ACK pacing for a guest that streams (lesson 4 refined, issue 20): within a run of at least
     * {@link #BULK_RUN_BYTES} in-order bytes from the guest, with nothing sent its way meanwhile,
     * an ACK that would cover less than a stride ({@link #ACK_STRIDE_BYTES}, and at least two
     * full-size segments, as a Linux receiver acknowledges every second one) waits for the
     * segments that complete it, for at most this long. A guest's Nagle then coalesces small
     * writes into full-size segments, and a guest that pays for every frame it takes pays for
     * fewer ACKs: busybox nc writes 1 KiB at a time, and a VM under TCG (whose every frame costs it
     * far more than it costs us), each 1 KiB acknowledged at once, sent one frame per write and
     * took twice as long to upload at MTU 65520; at MTU 1500, an ACK every two segments instead
     * of every stride took it 1.2 to 1.4 times as long. Everything else is acknowledged in the
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
    /** The most one flush sends toward the guest on one connection (see {@link #burst}). */
    private static final int BURST_LIMIT = 512 << 10;

    public final int guestAddress, guestPort, remoteAddress, remotePort;
    private final TcpConfig config;
    private final TcpOutput out;
    private final RingBuffer toHost;
    private final BufferPool buffers;
    /** Where the bytes toward the guest wait until acknowledged (the host socket). */
    private final HostStream host;

    private State state = State.CONNECTING;

    // Receive side (guest -> us).
    private final int irs;
    private int rcvNxt;
    private final boolean windowScaling;
    private final int rcvShift;
    private int advertisedRightEdge;
    private boolean ackPending;
    private boolean guestFinished;
    /** In-order bytes went to the host socket directly in this loop iteration (until the flush). */
    private boolean wroteDirectly;
    /** What the host socket can still take, as the host side last measured it or knows at least ({@link #hostRoom}). */
    private long hostRoom = Integer.MAX_VALUE;
    /** The host socket took bytes or has more room: the flush sees whether the guest must hear of the window. */
    private boolean windowCheck;
    /** Most bytes toHost may hold: its maximum, or less once the pool's budget refused it more. */
    private int toHostLimit;
    /** The guest's data received beyond a gap (none until the first gap: most connections never see one). */
    private OutOfOrder outOfOrder = OutOfOrder.NONE;
    /** The SACK blocks of our next ACK, allocated with the first. */
    private int[] sackEdges;

    // Options the guest's SYN offered.
    /** RFC 7323 timestamps: every segment but a RST carries them, echoing the guest's TSval. */
    private final boolean timestamps;
    /** The guest takes SACK blocks (RFC 2018): our ACKs report data received ahead of a gap. */
    private final boolean sackPermitted;
    private int tsRecent;
    private int lastAckSent;

    // Send side (us -> guest).
    private final int iss;
    private int sndUna, sndNxt, sndMax;
    private long sndWnd;
    private final int sndShift;
    private final int sendMss;
    /** Most payload one segment handed to the output carries: sendMss, or about 64 KiB with TSO. */
    private final int sendLimit;
    /** Most bytes one peek takes: whole segments of sendLimit within {@link HostStream#MAX_PEEK}, so no runt follows each. */
    private final int peekLimit;
    /**
     * Most payload bytes one flush sends toward the guest: a peek's worth (44 frames at MTU 1500),
     * or 8 segments where they are large (TSO, MTU 65520), within {@link #BURST_LIMIT}: a write
     * costs about the same per frame whatever its size, so this takes about as long. A guest's
     * window can be megabytes; sent in one flush, it would hold every other connection's next
     * segment back for the milliseconds its writes take.
     */
    private final int burst;
    /**
     * The burst while an interactive exchange goes on beside bulk traffic ({@link #flush(long, boolean)}):
     * a peek's worth, or 2 segments where they are large. With TSO a burst of 8 made a reply wait
     * behind up to 512 KiB of writes toward the guest (round trips beside a download: p99 1.2–1.5 ms,
     * against 0.7–0.9 ms with 2), while alone a flow moves more per write with 8.
     */
    private final int shortBurst;
    /** Bytes beyond sndUna known to wait in the host stream (peeked at least once). */
    private int known;
    /** Bytes of the host stream peeked so far: sent to the guest at least once. */
    private long hostBytesRead;
    /** Whether the host stream may hold bytes beyond known: it signalled new data since a peek came back short. */
    private boolean hostReadable = true;
    /** The host's end of stream has arrived (it follows the bytes queued now). */
    private boolean hostShutdown;
    /** The host's stream ended at sequence number hostEnd (where our FIN goes). */
    private boolean hostEnded;
    private int hostEnd;
    private boolean finSent;
    private int finSeq;
    private boolean finAcked;
    private int dupAcks;
    /** NewReno fast recovery (RFC 6582): until sndUna passes recover, each partial ACK resends the next hole. */
    private boolean inRecovery;
    private int recover;
    /** Ranges above sndUna the guest reported in SACK blocks; recovery resends only what lies between them. */
    private OutOfOrder sacked = OutOfOrder.NONE;
    /** Where this recovery's next retransmission starts (past what it already resent). */
    private int retransmitNext;
    /** When the segment at sndUna was last sent in this recovery. */
    private long firstHoleSentAt;
    /**
     * During recovery: when to resend sndUna's segment if it is still missing. With the window
     * full no duplicate ACKs clock recovery on, so a lost retransmission would otherwise wait
     * for the RTO.
     */
    private long recoveryProbeAt = Long.MAX_VALUE;
    private int recoveryProbes;
    /** Both directions finished on the wire, but guest data still waits in toHost for the host socket. */
    private boolean closeWhenDrained;

    // Timers: one deadline serves retransmission, zero-window persist and TIME_WAIT.
    private long deadline = Long.MAX_VALUE;
    /** When a held ACK goes ({@link #ACK_HOLD_NANOS}), or Long.MAX_VALUE. */
    private long ackAt = Long.MAX_VALUE;
    /** The guest's current run of in-order data: where it began, where the last flush saw it end, and when. */
    private int runStart, runEnd;
    /** Bytes that closed (part of) a gap arrived since the last ACK. */
    private boolean filledGap;
    private long runSeenAt = Long.MIN_VALUE / 2;
    private long rto = TcpConfig.INITIAL_RTO_NANOS;
    private long srtt = -1, rttvar;
    private int retransmissions;
    private boolean timing;
    private int timedSeq;
    private long timedAt;
    /** The clock at the latest event, for the timestamps of segments sent while handling it. */
    private long now;

    // What the current event leaves the caller to do (result bits), and the segments it made due
    // at once, sent by sendNow (or at the latest by the flush).
    private int result;
    /** Whether any of the following is due. */
    private boolean due;
    private boolean synAckDue, probeDue;
    /** Pure ACKs due: one for each segment that arrived beyond a gap, so the guest counts duplicate ACKs. */
    private int acksDue;
    /** A retransmission due: resendLength bytes from sequence number resendFrom. */
    private int resendFrom, resendLength;
    /** A reset due (its flags, 0 for none), with its sequence and acknowledgment numbers. */
    private int resetFlags, resetSeq, resetAck;
    /** The segment whose in-order bytes wait for {@link #hostTook} ({@link #HOST_BYTES}), else null. */
    private MemorySegment pendingSegment;
    private long pendingOffset;
    private int pendingLength, pendingFlags, pendingSeq, pendingPayload;

    /** A connection for a guest SYN (already validated) whose host connect is now in progress. */
    public TcpConnection(int guestAddress, int guestPort, int remoteAddress, int remotePort, int guestIsn,
                         TcpOptions synOptions, int iss, TcpConfig config, BufferPool buffers, TcpOutput out, HostStream host) {
        this.guestAddress = guestAddress;
        this.guestPort = guestPort;
        this.remoteAddress = remoteAddress;
        this.remotePort = remotePort;
        this.config = config;
        this.out = out;
        this.host = host;
        this.irs = guestIsn;
        this.rcvNxt = guestIsn + 1;
        this.runStart = this.runEnd = rcvNxt;
        this.windowScaling = synOptions.windowScale >= 0;
        this.sndShift = windowScaling ? synOptions.windowScale : 0;
        this.rcvShift = windowScaling ? config.windowShift() : 0;
        this.timestamps = synOptions.hasTimestamp;
        this.tsRecent = synOptions.tsVal;
        this.sackPermitted = synOptions.sackPermitted;
        // Payload per segment: the MSS counts no options, so timestamps come out of it (RFC 6691).
        this.sendMss = Math.min(config.mss(), synOptions.mss > 0 ? synOptions.mss : DEFAULT_GUEST_MSS)
                - (timestamps ? Tcp.TIMESTAMPS_LENGTH : 0);
        // With TSO the link cuts large segments into sendMss pieces for the guest; a whole number of
        // them, within the largest IPv4 datagram (header options up to 40 bytes).
        int largest = 0xffff - Ipv4.MIN_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH - 40;
        this.sendLimit = out.largeSegments() ? Math.max(largest / sendMss, 1) * sendMss : sendMss;
        this.peekLimit = HostStream.MAX_PEEK / sendLimit * sendLimit;
        this.burst = Math.max(peekLimit, Math.min(8 * sendLimit, BURST_LIMIT));
        this.shortBurst = Math.max(peekLimit, Math.min(2 * sendLimit, BURST_LIMIT));
        this.iss = iss;
        this.sndUna = iss;
        this.sndNxt = iss;
        this.sndMax = iss;
        this.toHost = new RingBuffer(buffers, Math.min(config.initialBuffer(), config.receiveBuffer()), config.receiveBuffer());
        this.toHostLimit = config.receiveBuffer();
        this.buffers = buffers;
    }

    /**
     * Sends, from remote to the guest, the SYN of a connection jslirp opens toward the guest (a
     * forwarded port), offering what our SYN-ACK offers: MSS from the MTU, window scaling,
     * timestamps and SACK. The guest's SYN-ACK then makes the connection ({@link #openedToGuest}).
     */
    public static void sendSyn(TcpOutput out, TcpConfig config, int remoteAddress, int remotePort,
                               int guestAddress, int guestPort, int iss, long now) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        int hdr = Tcp.writeSynOptions(f, off, config.mss(), config.windowShift());
        hdr = Tcp.appendTimestamps(f, off, hdr, (int) (now / 1_000_000L), 0);
        hdr = Tcp.appendSackPermitted(f, off, hdr);
        int window = Math.min(Math.min(config.initialBuffer(), config.receiveBuffer()), 0xffff);
        Tcp.write(f, off, remotePort, guestPort, iss, 0, Tcp.SYN, window, hdr);
        out.sendTcp(remoteAddress, guestAddress, hdr);
    }

    /**
     * The connection of a SYN sent with {@link #sendSyn} that the guest answered with a SYN-ACK
     * (sequence guestIsn, options synAckOptions, window synAckWindow): established, and the
     * handshake's last ACK goes out at the next flush.
     */
    public static TcpConnection openedToGuest(int guestAddress, int guestPort, int remoteAddress, int remotePort,
                                              int guestIsn, TcpOptions synAckOptions, int synAckWindow, int iss,
                                              TcpConfig config, BufferPool buffers, TcpOutput out, HostStream host) {
        TcpConnection c = new TcpConnection(guestAddress, guestPort, remoteAddress, remotePort, guestIsn, synAckOptions,
                iss, config, buffers, out, host);
        c.state = State.ESTABLISHED;
        c.sndUna = iss + 1;
        c.sndNxt = iss + 1;
        c.sndMax = iss + 1;
        c.sndWnd = synAckWindow; // a SYN-ACK's window is never scaled
        c.ackPending = true;
        return c;
    }

    public State state() {
        return state;
    }

    /** Guest data accepted and waiting for the host socket. */
    public RingBuffer toHost() {
        return toHost;
    }

    /** Bytes of the host stream read (peeked) so far: each went to the guest at least once. */
    public long hostBytesRead() {
        return hostBytesRead;
    }

    /** Bytes read from the host stream (peeked) that the guest has not acknowledged yet. */
    public int unacknowledged() {
        return known;
    }

    /** True once the guest sent FIN and every byte before it was accepted: shut down host writing when toHost is empty. */
    public boolean guestFinished() {
        return guestFinished;
    }

    /**
     * Whether the connection waits for the host's next bytes with none of the earlier ones
     * unacknowledged: the host socket's queue is empty, so its next readiness is an answer.
     */
    public boolean awaitingHostData() {
        return (state == State.ESTABLISHED || state == State.CLOSE_WAIT) && !hostEnded && !hostShutdown && known == 0;
    }

    /** Next time {@link #onTimer} must run, or Long.MAX_VALUE. */
    public long deadline() {
        return Math.min(Math.min(deadline, recoveryProbeAt), ackAt);
    }

    // ---- events from the host side ----

    /**
     * Whether a new SYN from the guest on this connection's addresses starts a new connection:
     * this one is in TIME_WAIT and the SYN is beyond everything it received, by sequence number or
     * by a newer timestamp (RFC 1122 4.2.2.13, RFC 6191), as a guest reusing its port at once
     * sends. The caller then retires this connection ({@link #retire}) and opens the new one.
     */
    public boolean reopenedBy(int flags, int seq, TcpOptions opts) {
        if (state != State.TIME_WAIT || (flags & (Tcp.SYN | Tcp.ACK | Tcp.RST)) != Tcp.SYN) return false;
        return Seq.gt(seq, rcvNxt) || (timestamps && opts.hasTimestamp && opts.tsVal - tsRecent > 0);
    }

    /** Ends the connection at once, sending nothing (a new one took over its addresses). Returns {@link #CLOSED}. */
    public int retire() {
        close(false);
        return takeResult();
    }

    /** The host connect succeeded: answer the guest's SYN (due at once). */
    public int hostConnected(long now) {
        if (state != State.CONNECTING) return 0;
        this.now = now;
        state = State.SYN_RECEIVED;
        synAckDue();
        return takeResult();
    }

    /** The host connect failed: reset the guest's connection attempt at once. */
    public int hostRefused() {
        if (state != State.CONNECTING) return 0;
        resetDue(0, rcvNxt, Tcp.RST | Tcp.ACK);
        close(false);
        return takeResult();
    }

    /**
     * The host connect failed with an error the guest learns from an ICMP message (sent by the
     * caller, quoting {@link #guestInitialSequence()}): end the attempt without a segment.
     */
    public int hostUnreachable() {
        if (state != State.CONNECTING) return 0;
        close(false);
        return takeResult();
    }

    /** The sequence number of the guest's SYN. */
    public int guestInitialSequence() {
        return irs;
    }

    /** The host stream has new bytes (the socket became readable): the flush peeks them. */
    public void hostReadable() {
        hostReadable = true;
    }

    /** The host peer closed its writing side: its end follows the bytes queued now, and FIN goes after them. */
    public void hostShutdown() {
        hostShutdown = true;
        hostReadable = true;
    }

    /**
     * The host socket can take bytes more now (its free send space, measured after a write or
     * when it drained, or a bound below it that already fills the window): the window offered to the guest follows, and when that reopens it or grows
     * it by a segment beyond what the guest was told, the next flush tells the guest (lesson 1).
     */
    public void hostRoom(long bytes) {
        hostRoom = Math.max(bytes, 0);
        windowCheck = true;
    }

    /**
     * Whether a host socket that takes hostRoom more bytes offers the guest less than toHost can
     * hold: only then does its exact room matter to the window (see {@link #windowSpace}).
     */
    public boolean windowNarrowedBy(long hostRoom) {
        return hostRoom + SLACK < holdable();
    }

    /** The host peer reset the connection (or the host socket failed): reset the guest. */
    public int hostReset() {
        resetGuest(false);
        return takeResult();
    }

    private void resetGuest(boolean resetHost) {
        if (state == State.CLOSED) return;
        if (state != State.CONNECTING) resetDue(sndNxt, rcvNxt, Tcp.RST | Tcp.ACK);
        close(resetHost);
    }

    /** The host side wrote n bytes of {@link #toHost()} to the host socket. */
    public void deliveredToHost(int n) {
        toHost.discard(n);
        windowCheck = true;
    }

    private void windowMayHaveGrown() {
        if (state == State.CLOSED || state == State.CONNECTING || state == State.SYN_RECEIVED) return;
        // Lesson 1: when the window reopens from zero, or grows by a segment beyond what the guest
        // was told, tell the guest in this iteration, not when its persist timer fires.
        // Compare the space freed, not the window rounded down to the scale unit, with the MSS, or
        // a drain of one MSS could go unannounced.
        int advertised = Math.max(advertisedRightEdge - rcvNxt, 0);
        int window = advertisableWindow();
        int space = Math.min(windowSpace(), 0xffff << rcvShift);
        // A window under one MSS counts as closed for the guest's sender (silly-window avoidance),
        // so crossing one MSS is a reopening too.
        boolean reopened = advertised == 0 || (advertised < config.mss() && window >= config.mss());
        if (window > advertised && (reopened || space - advertised >= config.mss())) {
            ackPending = true;
        }
    }

    // ---- segments from the guest ----

    /**
     * Processes one segment from the guest for this flow: len bytes of TCP header and payload at
     * off; opts are its parsed options. Returns what the caller must do (see the class comment).
     */
    public int onSegment(MemorySegment s, long off, int len, TcpOptions opts, long now) {
        segment(s, off, len, opts, now);
        return takeResult();
    }

    private void segment(MemorySegment s, long off, int len, TcpOptions opts, long now) {
        int flags = Tcp.flags(s, off);
        int seq = Tcp.seq(s, off);
        int ack = Tcp.ack(s, off);
        int hdr = Tcp.headerLength(s, off);
        int payload = len - hdr;
        this.now = now;

        if (state == State.CLOSED) return;
        if (state == State.CONNECTING) {
            if ((flags & Tcp.RST) != 0 && seq == rcvNxt) close(true);
            return; // SYN retransmissions wait for the host connect
        }
        if (state == State.SYN_RECEIVED && (flags & (Tcp.SYN | Tcp.ACK)) == Tcp.SYN && seq == irs) {
            synAckDue(); // our SYN-ACK was lost
            return;
        }

        int segLen = payload + ((flags & Tcp.SYN) != 0 ? 1 : 0) + ((flags & Tcp.FIN) != 0 ? 1 : 0);
        if (!acceptable(seq, segLen)) {
            if ((flags & Tcp.RST) == 0) ackPending = true; // also answers keepalives and window probes
            return;
        }
        if (timestamps && opts.hasTimestamp && Seq.le(seq, lastAckSent) && Seq.le(lastAckSent, seq + segLen)) {
            tsRecent = opts.tsVal; // RFC 7323 section 4.3
        }
        if ((flags & Tcp.RST) != 0) {
            // RFC 5961: only an exact RST closes; one merely in the window gets a challenge ACK.
            if (seq == rcvNxt) close(true);
            else ackPending = true;
            return;
        }
        if ((flags & Tcp.SYN) != 0) {
            ackPending = true; // RFC 5961 challenge ACK
            return;
        }
        if ((flags & Tcp.ACK) == 0) return;

        if (state == State.SYN_RECEIVED) {
            if (Seq.gt(ack, sndUna) && Seq.le(ack, sndMax)) {
                state = State.ESTABLISHED;
                sndUna = iss + 1;
                stopTimer();
                retransmissions = 0;
            } else {
                resetDue(ack, 0, Tcp.RST);
                return;
            }
        }
        if (!processAck(ack, Tcp.window(s, off), payload, opts, now)) return;
        if (state == State.CLOSED) return;

        if (payload > 0 && receiveData(s, off + hdr, seq, payload)) {
            pendingFlags = flags; // the rest of the segment waits for hostTook
            pendingSeq = seq;
            pendingPayload = payload;
            result |= HOST_BYTES;
            return;
        }
        finishSegment(flags, seq, payload);
    }

    /** The segment's FIN, once its data is taken. */
    private void finishSegment(int flags, int seq, int payload) {
        if ((flags & Tcp.FIN) != 0) {
            if (seq + payload == rcvNxt) {
                receiveFin(now);
            } else {
                ackPending = true; // a FIN beyond a hole or a full buffer: a duplicate ACK says what is missing
                if (state == State.TIME_WAIT && !closeWhenDrained) deadline = now + config.timeWaitNanos();
            }
        }
    }

    /** Where the in-order bytes of {@link #HOST_BYTES} start in the segment given to {@link #onSegment}. */
    public long hostBytesOffset() {
        return pendingOffset;
    }

    /** How many in-order bytes {@link #HOST_BYTES} offers. */
    public int hostBytesLength() {
        return pendingLength;
    }

    /**
     * The host socket took n of the {@link #HOST_BYTES} (0 to n all): the rest is buffered, and
     * the segment's processing finishes. Returns what the caller must do.
     */
    public int hostTook(int n) {
        if (pendingSegment == null) throw new IllegalStateException("no in-order bytes were offered");
        MemorySegment s = pendingSegment;
        pendingSegment = null;
        n = Math.clamp(n, 0, pendingLength);
        rcvNxt += n;
        buffer(s, pendingOffset + n, pendingLength - n);
        finishSegment(pendingFlags, pendingSeq, pendingPayload);
        return takeResult();
    }

    /**
     * RFC 9293 acceptability, with two allowances: a segment at exactly rcvNxt is processed even
     * with a zero window (its ACK and FIN count; data beyond the buffer is dropped), and a
     * retransmission that starts before rcvNxt but brings new bytes is trimmed, not refused.
     */
    private boolean acceptable(int seq, int segLen) {
        if (seq == rcvNxt) return true;
        int wnd = Math.max(advertisedRightEdge - rcvNxt, 0);
        if (segLen == 0) return Seq.inWindow(seq, rcvNxt, wnd);
        return Seq.lt(seq, rcvNxt) ? Seq.gt(seq + segLen, rcvNxt) : Seq.inWindow(seq, rcvNxt, wnd);
    }

    /** False when the segment must be dropped (RFC 9293 3.10.7.4: it acknowledges something never sent). */
    private boolean processAck(int ack, int window, int payload, TcpOptions opts, long now) {
        if (Seq.gt(ack, sndMax)) {
            ackPending = true; // acknowledges something never sent: answer, and ignore its data and FIN
            return false;
        }
        int tsEcr = timestamps && opts.hasTimestamp ? opts.tsEcr : 0;
        for (int i = 0; i < opts.sackBlocks; i++) {
            int left = opts.sackEdges[2 * i], right = opts.sackEdges[2 * i + 1];
            // Only blocks above the cumulative ACK and within what was sent (not D-SACK, not bogus).
            if (Seq.gt(left, ack) && Seq.lt(left, right) && Seq.le(right, sndMax)) {
                if (sacked == OutOfOrder.NONE) sacked = new OutOfOrder(SACKED_RANGES);
                sacked.add(left, right);
            }
        }
        long newWnd = (long) window << sndShift;
        if (Seq.lt(ack, sndUna)) return true;
        if (Seq.gt(ack, sndUna)) {
            int acked = Math.min(ack - sndUna, known);
            if (acked > 0) host.acknowledged(acked);
            known -= acked;
            if (finSent && Seq.gt(ack, finSeq)) finAcked = true;
            sndUna = ack;
            sacked.advance(sndUna);
            if (Seq.lt(sndNxt, sndUna)) sndNxt = sndUna;
            if (tsEcr != 0) {
                sampleRtt(Math.max(0, (now / 1_000_000L - (tsEcr & 0xffffffffL)) & 0xffffffffL) * 1_000_000L);
                timing = false;
            } else if (timing && Seq.ge(ack, timedSeq)) {
                sampleRtt(now - timedAt);
                timing = false;
            }
            dupAcks = 0;
            if (inRecovery) {
                recoveryProbes = 0;
                if (Seq.ge(ack, recover)) endRecovery();
                else retransmitPartialAck(now); // the next hole, at once
            }
            retransmissions = 0;
            sndWnd = newWnd;
            if (sndNxt != sndUna) deadline = now + rto;
            else stopTimer();
            if (finAcked) onFinAcked(now);
        } else {
            boolean dup = payload == 0 && newWnd == sndWnd && sndNxt != sndUna;
            sndWnd = newWnd;
            if (dup && ++dupAcks == 3 && !inRecovery) {
                // Fast retransmit of the first unacknowledged segment, then recovery (RFC 6582,
                // guided by the guest's SACK blocks when it sends them).
                inRecovery = true;
                recover = sndMax;
                retransmitNext = sndUna;
                timing = false;
                retransmitNextHole(now);
            } else if (dup && inRecovery) {
                // The guest still lacks sndUna's segment a round trip after it was resent while
                // later data keeps arriving: that retransmission was lost too, resend it now
                // instead of waiting for the RTO. Otherwise each duplicate ACK clocks out the next
                // SACK hole.
                if (now - firstHoleSentAt > lostRetransmissionDelay()) resend(sndUna, now);
                else if (!sacked.isEmpty()) retransmitNextHole(now);
            }
        }
        return true;
    }

    /**
     * Resends one segment of the first range the guest lacks: from sndUna, or past what this
     * recovery already resent, skipping what the guest SACKed. Without SACK information only the
     * first unacknowledged segment is resent (NewReno).
     */
    private void retransmitNextHole(long now) {
        int from = sndUna;
        if (!sacked.isEmpty()) {
            if (Seq.gt(retransmitNext, from)) from = retransmitNext;
            from = sacked.skipCovered(from);
            if (!Seq.lt(from, sacked.highestEnd())) return; // nothing below the highest SACK is missing
        }
        resend(from, now);
    }

    /** Resends one segment from seq (up to the next SACKed range), and notes how far this recovery got. */
    private void resend(int from, long now) {
        int len = Math.min(Math.min(sendMss, sndUna + known - from), sacked.gapAfter(from, Integer.MAX_VALUE));
        if (len <= 0) return;
        resendFrom = from; // due at once (sendNow)
        resendLength = len;
        due();
        if (Seq.gt(from + len, retransmitNext)) retransmitNext = from + len;
        if (from == sndUna) {
            firstHoleSentAt = now;
            recoveryProbeAt = now + Math.min(rto, lostRetransmissionDelay() << Math.min(recoveryProbes, 16));
        }
    }

    private void endRecovery() {
        inRecovery = false;
        recoveryProbeAt = Long.MAX_VALUE;
        recoveryProbes = 0;
    }

    /**
     * After a partial ACK the byte at sndUna is missing (NewReno). When this recovery already
     * resent past it (walking SACK holes in order), the next hole goes instead.
     */
    private void retransmitPartialAck(long now) {
        if (Seq.gt(retransmitNext, sndUna) && !sacked.isEmpty()) {
            firstHoleSentAt = now; // resent earlier in this recovery: give it a round trip from here
            retransmitNextHole(now);
        } else {
            retransmitNext = sndUna;
            resend(sndUna, now);
        }
    }

    /** How long after a retransmission a still-reported hole means the retransmission was lost too. */
    private long lostRetransmissionDelay() {
        return Math.max(2 * Math.max(srtt, 0), 2_000_000L);
    }

    private void onFinAcked(long now) {
        switch (state) {
            case FIN_WAIT_1 -> state = State.FIN_WAIT_2;
            case CLOSING -> enterTimeWait(now);
            case LAST_ACK -> finish();
            default -> { }
        }
    }

    /**
     * Both directions are finished on the wire. Closing hands the flow back and frees the buffers,
     * so wait until the host socket has taken every byte the guest sent (checked in {@link #flush}).
     */
    private void finish() {
        if (toHost.isEmpty()) {
            close(false);
        } else {
            closeWhenDrained = true;
            stopTimer();
        }
    }

    /** Takes a segment's payload; true when in-order bytes are offered to the host first ({@link #HOST_BYTES}). */
    private boolean receiveData(MemorySegment s, long payloadOff, int seq, int len) {
        if (guestFinished || !(state == State.ESTABLISHED || state == State.FIN_WAIT_1 || state == State.FIN_WAIT_2)) return false;
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
            acksDue++;
            due();
            return false;
        }
        if (skip >= len) {
            ackPending = true;
            return false;
        }
        if ((len - skip >= DIRECT_WRITE_MIN || !wroteDirectly) && toHost.isEmpty() && outOfOrder.isEmpty()) {
            wroteDirectly = true;
            pendingSegment = s;
            pendingOffset = payloadOff + skip;
            pendingLength = len - skip;
            return true;
        }
        buffer(s, payloadOff + skip, len - skip);
        return false;
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
     * Grows toHost toward bytes of capacity (within the window the guest was offered), a buffer
     * that gave its memory back first to the size it had; when the pool's budget refuses, windows
     * from now on stay within what toHost has.
     */
    private void makeRoom(int bytes) {
        toHost.resume(toHostLimit);
        while (toHost.capacity() < Math.min(bytes, toHostLimit)) {
            if (!toHost.grow()) {
                toHostLimit = toHost.capacity();
                return;
            }
        }
    }

    /**
     * Bytes the guest may send beyond rcvNxt: the host socket's room and the slack, within what
     * toHost may hold: its limit, and its size now with what the budget all buffers share can still
     * give it (lesson 3: a window the buffer cannot grow to would have the guest's bytes refused and
     * sent again).
     */
    private int windowSpace() {
        long space = Math.min(hostRoom + SLACK, holdable()) - toHost.size();
        return (int) Math.max(space, 0);
    }

    /** The most toHost may hold: its limit, and its size now with what the budget can still give it. */
    private long holdable() {
        return Math.min(toHostLimit, toHost.capacity() + buffers.unreserved());
    }

    private void receiveFin(long now) {
        if (guestFinished) {
            ackPending = true;
            return;
        }
        guestFinished = true;
        rcvNxt++;
        ackPending = true;
        switch (state) {
            case ESTABLISHED -> state = State.CLOSE_WAIT;
            case FIN_WAIT_1 -> state = finAcked ? State.TIME_WAIT : State.CLOSING;
            case FIN_WAIT_2 -> enterTimeWait(now);
            default -> { }
        }
        if (state == State.TIME_WAIT) enterTimeWait(now);
    }

    private void enterTimeWait(long now) {
        state = State.TIME_WAIT;
        deadline = now + config.timeWaitNanos();
    }

    // ---- output ----

    /**
     * Sends the segments the latest event made due at once ({@link #SEND_NOW}): a SYN-ACK, a
     * retransmission, an ACK for each segment beyond a gap, a zero-window probe, a reset.
     */
    public void sendNow() {
        if (!due) return;
        due = false;
        if (synAckDue) {
            synAckDue = false;
            sendSynAck(now);
        }
        if (resendLength > 0) {
            int from = resendFrom, len = resendLength;
            resendLength = 0;
            if (Seq.ge(from, sndUna) && from - sndUna + len <= known) {
                int n = host.peek(from - sndUna, len);
                if (n > 0) sendSegment(from, rcvNxt, Tcp.ACK, host.memory(), host.offset(), n);
            }
        }
        for (; acksDue > 0; acksDue--) sendSegment(sndNxt, rcvNxt, Tcp.ACK, 0);
        if (probeDue) {
            // Zero-window probe: an old sequence number makes the guest answer with its window.
            probeDue = false;
            sendSegment(sndUna - 1, rcvNxt, Tcp.ACK, 0);
        }
        if (resetFlags != 0) {
            int flags = resetFlags;
            resetFlags = 0;
            sendSegment(resetSeq, resetAck, flags, 0);
        }
    }

    /**
     * Sends what is due: first what {@link #sendNow} sends, then data the guest's window allows,
     * our FIN, or one ACK. Call once per loop iteration. Returns what the caller must do
     * ({@link #CLOSED} once every byte the guest sent reached the host after both sides finished).
     */
    public int flush(long now) {
        return flush(now, false);
    }

    /**
     * As {@link #flush(long)}; with shortBurst, this flush sends at most the short burst toward the
     * guest: another connection is in an interactive exchange, and its next reply must not wait
     * for a long burst of this one.
     */
    public int flush(long now, boolean shortBurst) {
        wroteDirectly = false;
        sendNow();
        if (state == State.CONNECTING || state == State.CLOSED) return takeResult();
        this.now = now;
        if (closeWhenDrained && toHost.isEmpty()) {
            close(false);
            return takeResult();
        }
        if (state == State.SYN_RECEIVED) {
            if (ackPending) sendSynAck(now);
            return takeResult();
        }
        if (windowCheck) {
            windowCheck = false;
            windowMayHaveGrown();
        }
        boolean sent = false;
        if (state == State.ESTABLISHED || state == State.CLOSE_WAIT || state == State.FIN_WAIT_1
                || state == State.CLOSING || state == State.LAST_ACK) {
            sent = sendData(now, shortBurst ? this.shortBurst : burst);
            if (state == State.CLOSED) return takeResult(); // the host stream failed: the reset is due
        }
        trackRun(now);
        if (ackPending && !sent && !holdAck(now)) sendSegment(sndNxt, rcvNxt, Tcp.ACK, 0);
        // The one place the timer is armed after output: retransmission while anything is in
        // flight, persist while the guest's zero window holds data back.
        if (stopped() && (sndNxt != sndUna || (sndWnd == 0 && mayHaveUnsent()))) deadline = now + rto;
        // An empty buffer gives its memory back until the next byte: idle connections cost none.
        if (toHost.isEmpty() && outOfOrder.isEmpty()) {
            toHost.release();
            toHostLimit = toHost.maxCapacity(); // the budget may have room again by the next byte
        }
        return takeResult();
    }

    /** Follows the guest's run of in-order data: a pause of {@link #RUN_PAUSE_NANOS} starts a new one. */
    private void trackRun(long now) {
        if (rcvNxt == runEnd) return;
        if (now - runSeenAt >= RUN_PAUSE_NANOS) runStart = runEnd;
        runEnd = rcvNxt;
        runSeenAt = now;
    }

    /** What a paced ACK covers: {@link #ACK_STRIDE_BYTES}, and two full-size segments (our MSS less the options each carries). */
    private int ackStride() {
        return Math.max(ACK_STRIDE_BYTES, 2 * (config.mss() - (timestamps ? Tcp.TIMESTAMPS_LENGTH : 0)));
    }

    /** Whether the pending ACK waits (see {@link #ACK_HOLD_NANOS}); arms its deadline when it starts to. */
    private boolean holdAck(long now) {
        int fresh = rcvNxt - lastAckSent;
        boolean hold = fresh > 0 && fresh < ackStride()
                && rcvNxt - runStart >= BULK_RUN_BYTES
                && !guestFinished && outOfOrder.isEmpty() && !filledGap
                && advertisedRightEdge - rcvNxt >= advertisableWindow() / 2; // the guest still has most of its window
        if (!hold) return false;
        if (ackAt == Long.MAX_VALUE) ackAt = now + ACK_HOLD_NANOS;
        return now < ackAt;
    }

    private boolean stopped() {
        return deadline == Long.MAX_VALUE;
    }

    /** Whether host bytes may wait that were never sent (known ones, or new ones the host stream signalled). */
    private boolean mayHaveUnsent() {
        if (hostEnded) return Seq.lt(sndNxt, hostEnd);
        return Seq.lt(sndNxt, sndUna + known) || hostReadable;
    }

    /**
     * Sends what the guest's window takes, up to limit bytes (a burst; {@link #MORE} when more is due): host
     * bytes peeked from the host stream in blocks of up to {@link HostStream#MAX_PEEK}, cut into
     * segments of up to sendLimit, and the FIN after the last.
     */
    private boolean sendData(long now, int limit) {
        boolean sent = false;
        int sentBytes = 0;
        while (true) {
            int inFlight = sndNxt - sndUna;
            long room = Math.max(sndWnd - inFlight, 0);
            if (sentBytes >= limit) {
                if ((room > 0 && mayHaveUnsent()) || (hostEnded && !finAcked && sndNxt == hostEnd)) result |= MORE;
                break;
            }
            int want = (int) Math.min(room, peekLimit);
            if (hostEnded) want = Math.min(want, Math.max(hostEnd - sndNxt, 0));
            int n = 0;
            boolean fresh = !Seq.lt(sndNxt, sndUna + known); // beyond what was ever peeked
            if (want > 0 && (!fresh || hostReadable)) {
                n = host.peek(inFlight, want);
                if (n == HostStream.FAILED) {
                    resetGuest(true);
                    return sent;
                }
                if (n == HostStream.END) {
                    n = 0;
                    endHostStream(sndNxt);
                } else if (n < want && fresh) {
                    hostReadable = false; // the socket has no more now; its next data signals
                    if (hostShutdown) endHostStream(sndNxt + n);
                }
                if (inFlight + n > known) {
                    hostBytesRead += inFlight + n - known;
                    known = inFlight + n;
                }
            }
            boolean finDue = hostEnded && !finAcked && sndNxt + n == hostEnd;
            if (n == 0 && !finDue) break;
            MemorySegment data = host.memory();
            long at = host.offset();
            for (int done = 0; done < n || (finDue && done == n); ) {
                int len = Math.min(sendLimit, n - done);
                boolean last = done + len == n;
                int flags = Tcp.ACK;
                if (last && len > 0 && n < want) flags |= Tcp.PSH;
                boolean fin = last && finDue;
                if (fin) flags |= Tcp.FIN;
                if (!timing && len > 0 && sndNxt == sndMax) {
                    timing = true;
                    timedSeq = sndNxt + len;
                    timedAt = now;
                }
                sendSegment(sndNxt, rcvNxt, flags, data, at + done, len);
                sent = true;
                sentBytes += len;
                done += len;
                sndNxt += len + (fin ? 1 : 0);
                if (Seq.gt(sndNxt, sndMax)) sndMax = sndNxt;
                if (fin) {
                    finSent = true;
                    finSeq = sndNxt - 1;
                    if (state == State.ESTABLISHED) state = State.FIN_WAIT_1;
                    else if (state == State.CLOSE_WAIT) state = State.LAST_ACK;
                    return true;
                }
            }
            if (n < want) break;
        }
        return sent;
    }

    private void endHostStream(int at) {
        hostEnded = true;
        hostEnd = at;
        hostReadable = false;
    }

    private void sendSynAck(long now) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        int hdr = Tcp.writeSynOptions(f, off, config.mss(), windowScaling ? rcvShift : -1);
        if (timestamps) hdr = Tcp.appendTimestamps(f, off, hdr, tsVal(), tsRecent);
        // SACK on: the guest then recovers from loss and reordering by our SACK blocks (its SACK
        // blocks to us are parsed but not used: recovery toward the guest is NewReno).
        if (sackPermitted) hdr = Tcp.appendSackPermitted(f, off, hdr);
        int window = Math.min(windowSpace(), 0xffff); // never scaled in a SYN
        Tcp.write(f, off, remotePort, guestPort, iss, rcvNxt, Tcp.SYN | Tcp.ACK, window, hdr);
        out.sendTcp(remoteAddress, guestAddress, hdr);
        advertisedRightEdge = rcvNxt + window;
        lastAckSent = rcvNxt;
        ackPending = false;
        sndNxt = iss + 1;
        sndMax = iss + 1;
        deadline = now + rto;
    }

    /** Our timestamp clock: milliseconds (RFC 7323 allows 1 ms to 1 s per tick). */
    private int tsVal() {
        return (int) (now / 1_000_000L);
    }

    private int advertisableWindow() {
        // Never less than what the guest was offered already: a window does not shrink (RFC 9293
        // 3.8.6); toHost takes what the host socket then refuses.
        int offered = Math.max(advertisedRightEdge - rcvNxt, 0);
        int space = Math.max(windowSpace(), Math.min(offered, toHostLimit - toHost.size()));
        return (Math.min(space, 0xffff << rcvShift) >>> rcvShift) << rcvShift;
    }

    private void sendSegment(int seq, int ack, int flags, int len) {
        sendSegment(seq, ack, flags, null, 0, len);
    }

    private void sendSegment(int seq, int ack, int flags, MemorySegment data, long dataOffset, int len) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        boolean reset = (flags & Tcp.RST) != 0;
        int window = reset ? 0 : advertisableWindow(); // a reset may follow the close, when the buffers are gone
        int hdr = Tcp.MIN_HEADER_LENGTH;
        if (!reset) {
            if (timestamps) hdr = Tcp.appendTimestamps(f, off, hdr, tsVal(), tsRecent);
            if (sackPermitted && !outOfOrder.isEmpty()) {
                if (sackEdges == null) sackEdges = new int[2 * Tcp.MAX_SACK_BLOCKS_WITH_TIMESTAMPS];
                int blocks = outOfOrder.sackBlocks(sackEdges, Tcp.MAX_SACK_BLOCKS_WITH_TIMESTAMPS);
                hdr = Tcp.appendSack(f, off, hdr, sackEdges, blocks);
            }
        }
        Tcp.write(f, off, remotePort, guestPort, seq, ack, flags, window >>> rcvShift, hdr);
        if (len > 0) out.sendTcp(remoteAddress, guestAddress, hdr, data, dataOffset, len, sendMss);
        else out.sendTcp(remoteAddress, guestAddress, hdr, sendMss);
        if ((flags & Tcp.ACK) != 0) {
            advertisedRightEdge = rcvNxt + window;
            lastAckSent = ack;
            ackPending = false;
            ackAt = Long.MAX_VALUE;
            filledGap = false;
        }
        if (len > 0) runStart = runEnd = rcvNxt; // data toward the guest: an exchange, not a one-way run
    }

    // ---- timers ----

    /**
     * Runs the timer that {@link #deadline()} announced. Returns what the caller must do; a
     * retransmission from the oldest unacknowledged byte goes at the flush that follows.
     */
    public int onTimer(long now) {
        timer(now);
        return takeResult();
    }

    private void timer(long now) {
        if (now >= recoveryProbeAt) {
            this.now = now;
            recoveryProbeAt = Long.MAX_VALUE;
            if (inRecovery && sndNxt != sndUna) {
                recoveryProbes++;
                resend(sndUna, now);
            }
        }
        if (now < deadline) return;
        this.now = now;
        deadline = Long.MAX_VALUE;
        switch (state) {
            case CONNECTING, CLOSED -> { }
            case TIME_WAIT -> finish();
            case SYN_RECEIVED -> {
                if (backOff()) synAckDue();
            }
            default -> {
                if (sndNxt != sndUna) {
                    if (!backOff()) return;
                    sndNxt = sndUna; // go back: the flush resends from the oldest unacknowledged byte
                    timing = false;
                    endRecovery();
                    sacked.clear();
                } else if (sndWnd == 0 && mayHaveUnsent()) {
                    probeDue = true;
                    due();
                    rto = Math.min(rto * 2, TcpConfig.MAX_RTO_NANOS);
                    deadline = now + rto;
                }
            }
        }
    }

    /** Doubles the RTO for a retransmission; false (and the connection reset) when the guest stopped answering. */
    private boolean backOff() {
        if (++retransmissions > TcpConfig.MAX_RETRANSMISSIONS) {
            resetGuest(true);
            return false;
        }
        rto = Math.min(rto * 2, TcpConfig.MAX_RTO_NANOS);
        return true;
    }

    private void sampleRtt(long r) {
        // RFC 6298 section 2.
        if (srtt < 0) {
            srtt = r;
            rttvar = r / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - r)) / 4;
            srtt = (7 * srtt + r) / 8;
        }
        rto = Math.clamp(srtt + Math.max(4 * rttvar, 1_000_000L), TcpConfig.MIN_RTO_NANOS, TcpConfig.MAX_RTO_NANOS);
    }

    private void stopTimer() {
        deadline = Long.MAX_VALUE;
    }

    private void close(boolean reset) {
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        deadline = Long.MAX_VALUE;
        recoveryProbeAt = Long.MAX_VALUE;
        ackAt = Long.MAX_VALUE;
        result |= CLOSED | (reset ? RESET_HOST : 0);
        synAckDue = false; // of what was due, only a reset still goes
        probeDue = false;
        acksDue = 0;
        resendLength = 0;
        toHost.close();
    }

    /** Something was made due at once: the caller is told ({@link #SEND_NOW}), {@link #sendNow} sends it. */
    private void due() {
        due = true;
        result |= SEND_NOW;
    }

    private void synAckDue() {
        synAckDue = true;
        due();
    }

    private void resetDue(int seq, int ack, int flags) {
        resetSeq = seq;
        resetAck = ack;
        resetFlags = flags;
        due();
    }

    /** The result bits of the current event, which start over for the next. */
    private int takeResult() {
        int r = result;
        result = 0;
        return r;
    }

    @Override
    public String toString() {
        return "tcp " + guestAddress + ":" + guestPort + " -> " + remoteAddress + ":" + remotePort + " " + state; // address handles
    }
}
