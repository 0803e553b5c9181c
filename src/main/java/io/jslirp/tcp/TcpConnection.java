package io.jslirp.tcp;

import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Seq;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpSegment;

/**
 * The guest-facing half of one NATed TCP flow: the guest connected to a remote address and we
 * play that remote. Pure logic: it is driven by the guest's segments, by what the host side
 * reports, and by a clock passed in as {@code now} (nanoseconds); it reaches the host socket only
 * through the {@link HostStream} it peeks and the {@link HostSink} a segment comes with, and calls
 * nobody back.
 *
 * <p>It is the state machine of RFC 9293 and composes the parts that do the rest: the
 * {@link Receiver} (the guest's bytes toward the host: acceptability, window, out-of-order data,
 * SACK blocks, ACK pacing), the {@link Sender} (the host's bytes toward the guest, peeked from
 * the {@link HostStream}: bursts, FIN, retransmission), the {@link Recovery} (NewReno or SACK),
 * the {@link RttEstimator}, the {@link Timers}, and the {@link SegmentWriter} their segments go out by.
 *
 * <p>Each event method returns what its caller must do, as one {@link Outcome}: send the segments
 * due at once (an ACK for data beyond a gap, a retransmission or a reset: call {@link #sendNow}),
 * forget the connection (its buffers are released; the host peer may have to see a reset), flush
 * it again soon. Segments go out only when the caller asks: {@link #sendNow} or {@link #flush}.
 *
 * <p>Data from the guest goes to the host socket: a large in-order segment at once when nothing
 * waits (written to the {@link HostSink} given with it), smaller ones through {@link #toHost()},
 * where they coalesce until the host side writes them at the end of the iteration and calls
 * {@link #deliveredToHost}. Data
 * from the host stays in the host socket ({@link HostStream}) until the guest acknowledges it:
 * segments toward the guest, retransmissions too, are peeked from there. The host side calls
 * {@link #flush} once per event-loop iteration, after all input was processed, so small pieces
 * coalesce into full segments and at most one pure ACK goes out per iteration.
 */
public final class TcpConnection {
    public enum State { CONNECTING, SYN_RECEIVED, ESTABLISHED, CLOSE_WAIT, LAST_ACK, FIN_WAIT_1, FIN_WAIT_2, CLOSING, TIME_WAIT, CLOSED }

    /** What the window offered to the guest may exceed the host socket's free space by ({@link Receiver#SLACK}). */
    public static final int SLACK = Receiver.SLACK;

    public final int guestAddress, guestPort, remoteAddress, remotePort;
    private final TcpConfig config;
    private final Timers timers = new Timers();
    private final RttEstimator rtt = new RttEstimator();
    private final Receiver receiver;
    private final SegmentWriter writer;
    private final Sender sender;
    /** Loss recovery, made at the first duplicate ACK or SACK block: most connections never lose a segment. */
    private Recovery recovery;

    private State state = State.CONNECTING;
    /** Both directions finished on the wire, but guest data still waits in toHost for the host socket. */
    private boolean closeWhenDrained;

    // What the current event leaves the caller to do (Outcome bits), and the segments it made due
    // at once, sent by sendNow (or at the latest by the flush).
    private int result;
    /** Whether any of the following (or the recovery's retransmission) is due. */
    private boolean due;
    private boolean synAckDue, probeDue;
    /** Pure ACKs due: one for each segment that arrived beyond a gap, so the guest counts duplicate ACKs. */
    private int acksDue;
    /** A reset due (its flags, 0 for none), with its sequence number (see {@link #resetDue}). */
    private int resetFlags, resetSeq;

    /** A connection for a guest SYN (already validated) whose host connect is now in progress; iss is our ISN. */
    public TcpConnection(FlowAddresses addresses, GuestSyn syn, int iss, TcpContext context, HostStream host) {
        this.guestAddress = addresses.guestAddress();
        this.guestPort = addresses.guestPort();
        this.remoteAddress = addresses.remoteAddress();
        this.remotePort = addresses.remotePort();
        this.config = context.config();
        TcpOptions options = syn.options();
        this.receiver = new Receiver(syn.isn(), options, config, context.buffers(), timers, context.credit());
        int sendMss = Sender.sendMss(config, options);
        this.writer = new SegmentWriter(context.out(), addresses, receiver, sendMss);
        int sndShift = options.windowScale >= 0 ? options.windowScale : 0;
        this.sender = new Sender(iss, sndShift, sendMss, host, writer, rtt);
    }

    /**
     * What the NAT knows the connection by: {@link WindowCredit#serve} returns it for the
     * connection whose turn came.
     */
    public void attach(Object owner) {
        receiver.owner = owner;
    }

    /** The connection's recovery, made when first needed. */
    private Recovery recovery() {
        if (recovery == null) recovery = Recovery.of(receiver.sackPermitted(), writer.sendMss(), rtt, timers);
        return recovery;
    }

    /**
     * The window the SYN of a connection jslirp opens toward the guest offers: its first buffer's
     * (at most 64 KiB: a SYN's window is never scaled) when the window credit has a unit for it
     * ({@link WindowCredit#reserve}), else none: the connection then waits its turn once made, as
     * one the guest opened does. A dial gives the unit back ({@link #dialUnitReturned}) when it
     * ends without a connection, or when the guest has not answered by the first SYN timeout.
     */
    public static int dialWindow(TcpContext context) {
        if (!context.credit().reserve()) return 0;
        return Math.min(context.config().firstBuffer(), 0xffff);
    }

    /** The unit {@link #dialWindow} took for a dial's SYN comes back: the dial ended, or the guest was slow to answer. */
    public static void dialUnitReturned(TcpContext context) {
        context.credit().unreserve();
    }

    /**
     * Sends, from remote to the guest, the SYN (sequence number iss, offering window: see
     * {@link #dialWindow}) of a connection jslirp opens toward the guest (a forwarded port),
     * offering what our SYN-ACK offers: MSS from the MTU, window scaling, timestamps and SACK. The
     * guest's SYN-ACK then makes the connection ({@link #openedToGuest}).
     */
    public static void sendSyn(TcpContext context, FlowAddresses addresses, int iss, int window, long now) {
        SegmentWriter.sendSyn(context, addresses, iss, window, now);
    }

    /**
     * The connection of a SYN sent with {@link #sendSyn} (offering window, with the credit's unit
     * still reserved for it when unit) that the guest answered with synAck: established, and the
     * handshake's last ACK goes out at the next flush.
     */
    public static TcpConnection openedToGuest(FlowAddresses addresses, GuestSyn synAck, int iss, int window, boolean unit,
                                              TcpContext context, HostStream host) {
        TcpConnection c = new TcpConnection(addresses, synAck, iss, context, host);
        c.state = State.ESTABLISHED;
        c.sender.established(synAck.window()); // a SYN-ACK's window is never scaled
        c.receiver.offeredInSyn(window, unit);
        c.receiver.ackDue();
        return c;
    }

    public State state() {
        return state;
    }

    /** Guest data accepted and waiting for the host socket. */
    public RingBuffer toHost() {
        return receiver.toHost();
    }

    /** Bytes of the host stream read (peeked) so far: each went to the guest at least once. */
    public long hostBytesRead() {
        return sender.hostBytesRead();
    }

    /** Bytes read from the host stream (peeked) that the guest has not acknowledged yet. */
    public int unacknowledged() {
        return sender.known();
    }

    /** True once the guest sent FIN and every byte before it was accepted: shut down host writing when toHost is empty. */
    public boolean guestFinished() {
        return receiver.guestFinished();
    }

    /**
     * Whether the connection waits for the host's next bytes with none of the earlier ones
     * unacknowledged: the host socket's queue is empty, so its next readiness is an answer.
     */
    public boolean awaitingHostData() {
        return (state == State.ESTABLISHED || state == State.CLOSE_WAIT) && sender.idle();
    }

    /** Next time {@link #onTimer} must run, or Long.MAX_VALUE. */
    public long deadline() {
        return timers.next();
    }

    // ---- events from the host side ----

    /**
     * Whether a new SYN from the guest on this connection's addresses starts a new connection:
     * this one is in TIME_WAIT and the SYN is beyond everything it received, by sequence number or
     * by a newer timestamp (RFC 1122 4.2.2.13, RFC 6191), as a guest reusing its port at once
     * sends. The caller then retires this connection ({@link #retire}) and opens the new one.
     */
    public boolean reopenedBy(TcpSegment seg) {
        if (state != State.TIME_WAIT || (seg.header().flags() & (Tcp.SYN | Tcp.ACK | Tcp.RST)) != Tcp.SYN) return false;
        return receiver.newerThanReceived(seg.header().seq(), seg.options());
    }

    /** Ends the connection at once, sending nothing (a new one took over its addresses). Returns a closed {@link Outcome}. */
    public Outcome retire() {
        close(false);
        return takeResult();
    }

    /** The host connect succeeded: answer the guest's SYN (due at once). */
    public Outcome hostConnected(long now) {
        if (state != State.CONNECTING) return Outcome.NOTHING;
        writer.now(now);
        state = State.SYN_RECEIVED;
        synAckDue();
        return takeResult();
    }

    /** The host connect failed: reset the guest's connection attempt at once. */
    public Outcome hostRefused() {
        if (state != State.CONNECTING) return Outcome.NOTHING;
        resetDue(0, Tcp.RST | Tcp.ACK);
        close(false);
        return takeResult();
    }

    /**
     * The host connect failed with an error the guest learns from an ICMP message (sent by the
     * caller, quoting {@link #guestInitialSequence()}): end the attempt without a segment.
     */
    public Outcome hostUnreachable() {
        if (state != State.CONNECTING) return Outcome.NOTHING;
        close(false);
        return takeResult();
    }

    /** The sequence number of the guest's SYN. */
    public int guestInitialSequence() {
        return receiver.irs();
    }

    /** The host stream has new bytes (the socket became readable): the flush peeks them. */
    public void hostReadable() {
        sender.hostReadable();
    }

    /** The host peer closed its writing side: its end follows the bytes queued now, and FIN goes after them. */
    public void hostShutdown() {
        sender.hostShutdown();
    }

    /**
     * The host socket can take bytes more now (its free send space, measured after a write or
     * when it drained, or a bound below it that already fills the window): the window offered to
     * the guest follows, and when that reopens it or grows it by a segment beyond what the guest
     * was told, the next flush tells the guest (lesson 1).
     */
    public void hostRoom(long bytes) {
        receiver.hostRoom(bytes);
    }

    /**
     * Whether a host socket that takes hostRoom more bytes offers the guest less than toHost can
     * hold: only then does its exact room matter to the window.
     */
    public boolean windowNarrowedBy(long hostRoom) {
        return receiver.windowNarrowedBy(hostRoom);
    }

    /** The host peer reset the connection (or the host socket failed): reset the guest. */
    public Outcome hostReset() {
        resetGuest(false);
        return takeResult();
    }

    private void resetGuest(boolean resetHost) {
        if (state == State.CLOSED) return;
        if (state != State.CONNECTING) resetDue(sender.sndNxt(), Tcp.RST | Tcp.ACK);
        close(resetHost);
    }

    /** The host side wrote n bytes of {@link #toHost()} to the host socket. */
    public void deliveredToHost(int n) {
        receiver.deliveredToHost(n);
    }

    // ---- segments from the guest ----

    /**
     * Processes one segment from the guest for this flow (read once, valid for this call). In-order
     * bytes that go to the host at once are written to host. Returns what the caller must do (see
     * the class comment).
     */
    public Outcome onSegment(TcpSegment seg, HostSink host, long now) {
        segment(seg, host, now);
        return takeResult();
    }

    private void segment(TcpSegment seg, HostSink host, long now) {
        TcpHeader h = seg.header();
        int ack = h.ack();
        int payload = seg.payloadLength();
        writer.now(now);

        if (!admit(seg)) return;
        if (state == State.SYN_RECEIVED) {
            if (!sender.acknowledgesSyn(ack)) {
                resetDue(ack, Tcp.RST);
                return;
            }
            state = State.ESTABLISHED;
            sender.synAcknowledged();
            timers.stopRetransmit();
            rtt.resetBackOff();
        }
        if (!processAck(seg, now)) return;
        if (state == State.CLOSED) return;

        if (payload > 0 && receivesData()
                && receiver.receive(seg.frame(), seg.payloadOffset(), h.seq(), payload, host) == Receiver.BEYOND_GAP) {
            acksDue++;
            due();
        }
        finishSegment(h.flags(), h.seq(), payload);
    }

    /**
     * The checks before a segment's ACK counts: the state, acceptability (RFC 9293), the timestamp
     * to echo, RST and SYN (RFC 5961), the ACK flag. False when the segment ends here.
     */
    private boolean admit(TcpSegment seg) {
        int flags = seg.header().flags(), seq = seg.header().seq();
        if (state == State.CLOSED) return false;
        if (state == State.CONNECTING) {
            if ((flags & Tcp.RST) != 0 && seq == receiver.rcvNxt()) close(true);
            return false; // SYN retransmissions wait for the host connect
        }
        if (state == State.SYN_RECEIVED && (flags & (Tcp.SYN | Tcp.ACK)) == Tcp.SYN && seq == receiver.irs()) {
            synAckDue(); // our SYN-ACK was lost
            return false;
        }
        int segLen = seg.sequenceLength();
        if (!receiver.acceptable(seq, segLen)) {
            if ((flags & Tcp.RST) == 0) receiver.ackDue(); // also answers keepalives and window probes
            return false;
        }
        receiver.noteTimestamp(seg.options(), seq, segLen);
        if ((flags & Tcp.RST) != 0) {
            // RFC 5961: only an exact RST closes; one merely in the window gets a challenge ACK.
            if (seq == receiver.rcvNxt()) close(true);
            else receiver.ackDue();
            return false;
        }
        if ((flags & Tcp.SYN) != 0) {
            receiver.ackDue(); // RFC 5961 challenge ACK
            return false;
        }
        return (flags & Tcp.ACK) != 0;
    }

    /** Whether this state takes the guest's data (and it has not finished). */
    private boolean receivesData() {
        return !receiver.guestFinished() && (state == State.ESTABLISHED || state == State.FIN_WAIT_1 || state == State.FIN_WAIT_2);
    }

    /** The segment's FIN, after its data. */
    private void finishSegment(int flags, int seq, int payload) {
        if ((flags & Tcp.FIN) != 0) {
            if (seq + payload == receiver.rcvNxt()) {
                receiveFin();
            } else {
                receiver.ackDue(); // a FIN beyond a hole or a full buffer: a duplicate ACK says what is missing
                if (state == State.TIME_WAIT && !closeWhenDrained) timers.armRetransmit(writer.now() + config.timeWaitNanos());
            }
        }
    }

    /** False when the segment must be dropped (RFC 9293 3.10.7.4: it acknowledges something never sent). */
    private boolean processAck(TcpSegment seg, long now) {
        int ack = seg.header().ack();
        TcpOptions opts = seg.options();
        if (Seq.gt(ack, sender.sndMax())) {
            receiver.ackDue(); // acknowledges something never sent: answer, and ignore its data and FIN
            return false;
        }
        if (opts.sackBlocks > 0 && receiver.sackPermitted()) recovery().sackBlocks(opts, ack, sender.sndMax());
        long newWnd = sender.scaledWindow(seg.header().window());
        int sndUna = sender.sndUna();
        if (Seq.lt(ack, sndUna)) return true;
        if (Seq.gt(ack, sndUna)) {
            sender.acknowledge(ack);
            rtt.acknowledged(ack, receiver.timestamps() && opts.hasTimestamp ? opts.tsEcr : 0, now);
            if (recovery != null) recovery.advance(ack);
            if (recovery != null && recovery.newAck(ack, sender.known(), now)) due();
            sender.window(newWnd);
            if (sender.inFlight()) timers.armRetransmit(now + rtt.rto());
            else timers.stopRetransmit();
            if (sender.finAcked()) onFinAcked(now);
        } else {
            boolean dup = seg.payloadLength() == 0 && sender.duplicate(newWnd);
            sender.window(newWnd);
            // Fast retransmit and recovery (RFC 6582, guided by the guest's SACK blocks when it sends them).
            if (dup && recovery().duplicateAck(sndUna, sender.sndMax(), sender.known(), now)) due();
        }
        return true;
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
        if (receiver.toHost().isEmpty()) {
            close(false);
        } else {
            closeWhenDrained = true;
            timers.stopRetransmit();
        }
    }

    private void receiveFin() {
        if (!receiver.receiveFin()) return;
        switch (state) {
            case ESTABLISHED -> state = State.CLOSE_WAIT;
            case FIN_WAIT_1 -> state = sender.finAcked() ? State.TIME_WAIT : State.CLOSING;
            case FIN_WAIT_2 -> enterTimeWait(writer.now());
            default -> { }
        }
        if (state == State.TIME_WAIT) enterTimeWait(writer.now());
    }

    private void enterTimeWait(long now) {
        state = State.TIME_WAIT;
        timers.armRetransmit(now + config.timeWaitNanos());
    }

    // ---- output ----

    /**
     * Sends the segments the latest event made due at once ({@link Outcome#sendNow}): a SYN-ACK, a
     * retransmission, an ACK for each segment beyond a gap, a zero-window probe, a reset.
     */
    public void sendNow() {
        if (!due) return;
        due = false;
        if (synAckDue) {
            synAckDue = false;
            sendSynAck();
        }
        int rcvNxt = receiver.rcvNxt();
        if (recovery != null && recovery.dueLength() > 0) {
            int from = recovery.dueFrom(), len = recovery.dueLength();
            recovery.clearDue();
            sender.retransmit(from, len, rcvNxt);
        }
        for (; acksDue > 0; acksDue--) writer.send(sender.sndNxt(), receiver.rcvNxt(), Tcp.ACK);
        if (probeDue) {
            probeDue = false;
            sender.probe(receiver.rcvNxt());
        }
        if (resetFlags != 0) {
            int flags = resetFlags;
            resetFlags = 0;
            writer.send(resetSeq, (flags & Tcp.ACK) != 0 ? receiver.rcvNxt() : 0, flags);
        }
    }

    /**
     * Sends what is due: first what {@link #sendNow} sends, then data the guest's window allows,
     * our FIN, or one ACK. Call once per loop iteration. Returns what the caller must do
     * (closed once every byte the guest sent reached the host after both sides finished; more when
     * it sent its burst and the guest's window takes more).
     */
    public Outcome flush(long now) {
        return flush(now, false);
    }

    /**
     * As {@link #flush(long)}; with shortBurst, this flush sends at most the short burst toward the
     * guest: another connection is in an interactive exchange, and its next reply must not wait
     * for a long burst of this one.
     */
    public Outcome flush(long now, boolean shortBurst) {
        receiver.iterationEnded();
        sendNow();
        if (state == State.CONNECTING || state == State.CLOSED) return takeResult();
        writer.now(now);
        if (closeWhenDrained && receiver.toHost().isEmpty()) {
            close(false);
            return takeResult();
        }
        if (state == State.SYN_RECEIVED) {
            if (receiver.ackPending()) sendSynAck();
            return takeResult();
        }
        receiver.checkWindow();
        boolean sent = false;
        if (state == State.ESTABLISHED || state == State.CLOSE_WAIT || state == State.FIN_WAIT_1
                || state == State.CLOSING || state == State.LAST_ACK) {
            sent = sendData(shortBurst);
            if (state == State.CLOSED) return takeResult(); // the host stream failed: the reset is due
        }
        receiver.trackRun(now);
        if (!sent && receiver.ackNow(now)) writer.send(sender.sndNxt(), receiver.rcvNxt(), Tcp.ACK);
        // The one place the timer is armed after output: retransmission while anything is in
        // flight, persist while the guest's zero window holds data back.
        if (timers.retransmitStopped() && (sender.inFlight() || sender.windowClosed())) timers.armRetransmit(now + rtt.rto());
        receiver.releaseIfIdle();
        return takeResult();
    }

    /** Sends what the guest's window takes (a burst), and our FIN after the last byte; true when anything went. */
    private boolean sendData(boolean shortBurst) {
        int r = sender.send(receiver.rcvNxt(), shortBurst);
        if ((r & Sender.FAILED) != 0) {
            resetGuest(true);
            return (r & Sender.SENT) != 0;
        }
        if ((r & Sender.MORE) != 0) result |= Outcome.MORE;
        if ((r & Sender.FIN_SENT) != 0) {
            if (state == State.ESTABLISHED) state = State.FIN_WAIT_1;
            else if (state == State.CLOSE_WAIT) state = State.LAST_ACK;
        }
        return (r & Sender.SENT) != 0;
    }

    private void sendSynAck() {
        writer.sendSynAck(sender.iss(), config.mss());
        sender.synSent();
        timers.armRetransmit(writer.now() + rtt.rto());
    }

    // ---- timers ----

    /**
     * Runs the timer that {@link #deadline()} announced. Returns what the caller must do; a
     * retransmission from the oldest unacknowledged byte goes at the flush that follows.
     */
    public Outcome onTimer(long now) {
        timer(now);
        return takeResult();
    }

    private void timer(long now) {
        if (now >= timers.recoveryProbe() && recovery != null) {
            writer.now(now);
            if (recovery.probe(sender.sndUna(), sender.inFlight(), sender.known(), now)) due();
        }
        if (now < timers.retransmit()) return;
        writer.now(now);
        timers.stopRetransmit();
        switch (state) {
            case CONNECTING, CLOSED -> { }
            case TIME_WAIT -> finish();
            case SYN_RECEIVED -> {
                if (backOff()) synAckDue();
            }
            default -> retransmitTimeout(now);
        }
    }

    /** The retransmission timer of a synchronized connection: go back to the oldest unacknowledged byte, or probe a zero window. */
    private void retransmitTimeout(long now) {
        if (sender.inFlight()) {
            if (!backOff()) return;
            sender.goBack(); // the flush resends from the oldest unacknowledged byte
            rtt.stopTiming();
            if (recovery != null) recovery.timedOut();
        } else if (sender.windowClosed()) {
            probeDue = true;
            due();
            rtt.doubleRto();
            timers.armRetransmit(now + rtt.rto());
        }
    }

    /** Doubles the RTO for a retransmission; false (and the connection reset) when the guest stopped answering. */
    private boolean backOff() {
        if (rtt.backOff()) return true;
        resetGuest(true);
        return false;
    }

    private void close(boolean reset) {
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        timers.stopAll();
        result |= Outcome.CLOSED | (reset ? Outcome.RESET_HOST : 0);
        synAckDue = false; // of what was due, only a reset still goes
        probeDue = false;
        acksDue = 0;
        if (recovery != null) recovery.clearDue();
        receiver.close();
    }

    /** Something was made due at once: the caller is told ({@link Outcome#sendNow}), {@link #sendNow} sends it. */
    private void due() {
        due = true;
        result |= Outcome.SEND_NOW;
    }

    private void synAckDue() {
        synAckDue = true;
        due();
    }

    /** A reset with sequence number seq and flags is due; with ACK it acknowledges rcvNxt as it is when it goes. */
    private void resetDue(int seq, int flags) {
        resetSeq = seq;
        resetFlags = flags;
        due();
    }

    /** What the current event leaves to do; the bits start over for the next. */
    private Outcome takeResult() {
        int r = result;
        result = 0;
        return Outcome.of(r);
    }

    @Override
    public String toString() {
        return "tcp " + guestAddress + ":" + guestPort + " -> " + remoteAddress + ":" + remotePort + " " + state; // address handles
    }
}
