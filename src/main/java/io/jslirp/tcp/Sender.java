package io.jslirp.tcp;

import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Seq;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;

import java.lang.foreign.MemorySegment;

/**
 * The sending half of a connection: the host's bytes toward the guest. They stay in the host
 * stream ({@link HostStream}) until the guest acknowledges them; this peeks them from there as the
 * guest's window allows, cuts them into segments, in bursts so that one bulk flow does not hold
 * the others back, sends our FIN after the last, and resends what recovery or a timeout asks for.
 */
final class Sender {
    private static final int DEFAULT_GUEST_MSS = 536;
    /** The most one flush sends toward the guest on one connection (see {@link #burst}). */
    private static final int BURST_LIMIT = 512 << 10;

    /** {@link #send} result bit: segments went out. */
    static final int SENT = 1;
    /** {@link #send} result bit: the burst is spent and the guest's window takes more. */
    static final int MORE = 2;
    /** {@link #send} result bit: our FIN went out (with the last bytes). */
    static final int FIN_SENT = 4;
    /** {@link #send} result bit: the host stream failed; the connection must reset. */
    static final int FAILED = 8;

    private final HostStream host;
    private final SegmentWriter writer;
    private final RttEstimator rtt;

    private final int iss;
    private int sndUna, sndNxt, sndMax;
    private long sndWnd;
    private final int sndShift;
    /**
     * Most payload one segment handed to the output carries: the send MSS, or about 64 KiB with
     * TSO. What follows from it ({@link #peekLimit}, {@link #burst}) is worked out when sending,
     * not kept: thousands of connections would each hold the same few numbers.
     */
    private final int sendLimit;
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

    /** The sending half for our ISN iss toward a guest that sends with window-scale shift sndShift, segments of sendMss. */
    Sender(int iss, int sndShift, int sendMss, HostStream host, SegmentWriter writer, RttEstimator rtt) {
        this.iss = iss;
        this.sndUna = this.sndNxt = this.sndMax = iss;
        this.sndShift = sndShift;
        this.host = host;
        this.writer = writer;
        this.rtt = rtt;
        // With TSO the link cuts large segments into sendMss pieces for the guest; a whole number of
        // them, within the largest IPv4 datagram (header options up to 40 bytes).
        int largest = 0xffff - Ipv4.MIN_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH - 40;
        this.sendLimit = writer.largeSegments() ? Math.max(largest / sendMss, 1) * sendMss : sendMss;
    }

    /** Most bytes one peek takes: whole segments of sendLimit within {@link HostStream#MAX_PEEK}, so no runt follows each. */
    private int peekLimit() {
        return HostStream.MAX_PEEK / sendLimit * sendLimit;
    }

    /**
     * Most payload bytes one flush sends toward the guest: a peek's worth, or 8 segments where
     * they are large (TSO, MTU 65520), within {@link #BURST_LIMIT}: a write costs about the same
     * per frame whatever its size, so this takes about as long. A guest's window can be megabytes;
     * sent in one flush, it would hold every other connection's next segment back for the
     * milliseconds its writes take.
     *
     * <p>With shortBurst, the burst while an interactive exchange goes on beside bulk traffic: a
     * peek's worth, or 2 segments where they are large. With TSO a burst of 8 made a reply wait
     * behind up to 512 KiB of writes toward the guest (round trips beside a download took longer
     * than with 2), while alone a flow moves more per write with 8.
     */
    private int burst(boolean shortBurst) {
        return Math.max(peekLimit(), Math.min((shortBurst ? 2 : 8) * sendLimit, BURST_LIMIT));
    }

    /** Payload per segment toward the guest: its MSS (536 if it named none) within ours, less the timestamps (RFC 6691). */
    static int sendMss(TcpConfig config, TcpOptions synOptions) {
        return Math.min(config.mss(), synOptions.mss > 0 ? synOptions.mss : DEFAULT_GUEST_MSS)
                - (synOptions.hasTimestamp ? Tcp.TIMESTAMPS_LENGTH : 0);
    }

    int iss() {
        return iss;
    }

    int sndUna() {
        return sndUna;
    }

    int sndNxt() {
        return sndNxt;
    }

    int sndMax() {
        return sndMax;
    }

    /** Bytes read from the host stream that the guest has not acknowledged yet. */
    int known() {
        return known;
    }

    long hostBytesRead() {
        return hostBytesRead;
    }

    /** Whether the guest acknowledged our FIN. */
    boolean finAcked() {
        return finSent && Seq.gt(sndUna, finSeq);
    }

    /** Whether sent data waits for the guest's acknowledgment. */
    boolean inFlight() {
        return sndNxt != sndUna;
    }

    /** Whether host bytes wait that the guest's zero window holds back (the persist timer's job). */
    boolean windowClosed() {
        return sndWnd == 0 && mayHaveUnsent();
    }

    /** Whether the host side has neither ended its stream nor left bytes unacknowledged: its next bytes answer the guest. */
    boolean idle() {
        return !hostEnded && !hostShutdown && known == 0;
    }

    // ---- the host stream ----

    /** The host stream has new bytes. */
    void hostReadable() {
        hostReadable = true;
    }

    /** The host peer closed its writing side: its end follows the bytes queued now. */
    void hostShutdown() {
        hostShutdown = true;
        hostReadable = true;
    }

    // ---- the handshake ----

    /** Our SYN-ACK went (again): what follows it starts at iss + 1. */
    void synSent() {
        sndNxt = iss + 1;
        sndMax = iss + 1;
    }

    /** Whether ack acknowledges our SYN-ACK, completing the handshake. */
    boolean acknowledgesSyn(int ack) {
        return Seq.gt(ack, sndUna) && Seq.le(ack, sndMax);
    }

    /** The guest acknowledged our SYN-ACK: the handshake completed. */
    void synAcknowledged() {
        sndUna = iss + 1;
    }

    /** Our SYN was acknowledged by the guest's SYN-ACK, with window (never scaled in a SYN-ACK). */
    void established(long window) {
        sndUna = iss + 1;
        sndNxt = iss + 1;
        sndMax = iss + 1;
        sndWnd = window;
    }

    // ---- the guest's acknowledgments ----

    /** The guest's window field, scaled. */
    long scaledWindow(int window) {
        return (long) window << sndShift;
    }

    /** Whether an ACK with a scaled window newWnd (and no payload) repeats the last one with data in flight. */
    boolean duplicate(long newWnd) {
        return newWnd == sndWnd && sndNxt != sndUna;
    }

    void window(long newWnd) {
        sndWnd = newWnd;
    }

    /** The guest acknowledged everything before ack (after sndUna, within sndMax): those bytes leave the host stream. */
    void acknowledge(int ack) {
        int acked = Math.min(ack - sndUna, known);
        if (acked > 0) host.acknowledged(acked);
        known -= acked;
        sndUna = ack;
        if (Seq.lt(sndNxt, sndUna)) sndNxt = sndUna;
    }

    /** The retransmission timer fired: the next flush sends again from the oldest unacknowledged byte. */
    void goBack() {
        sndNxt = sndUna;
    }

    // ---- sending ----

    /** Whether host bytes may wait that were never sent (known ones, or new ones the host stream signalled). */
    boolean mayHaveUnsent() {
        if (hostEnded) return Seq.lt(sndNxt, hostEnd);
        return Seq.lt(sndNxt, sndUna + known) || hostReadable;
    }

    /**
     * Resends len bytes from sequence number from, acknowledging rcvNxt, if they still wait in the
     * host stream.
     */
    void retransmit(int from, int len, int rcvNxt) {
        if (Seq.ge(from, sndUna) && from - sndUna + len <= known) {
            int n = host.peek(from - sndUna, len);
            if (n > 0) writer.send(from, rcvNxt, Tcp.ACK, host.memory(), host.offset(), n);
        }
    }

    /** Sends a zero-window probe: an old sequence number makes the guest answer with its window. */
    void probe(int rcvNxt) {
        writer.send(sndUna - 1, rcvNxt, Tcp.ACK);
    }

    /**
     * Sends what the guest's window takes, up to a burst (the short one with shortBurst): host bytes
     * peeked from the host stream in blocks of up to {@link HostStream#MAX_PEEK}, cut into segments
     * of up to sendLimit, and the FIN after the last. Returns {@link #SENT}, {@link #MORE},
     * {@link #FIN_SENT}, {@link #FAILED} bits.
     */
    int send(int rcvNxt, boolean shortBurst) {
        int limit = burst(shortBurst);
        int peekLimit = peekLimit();
        int result = 0;
        int sentBytes = 0;
        while (true) {
            int inFlight = sndNxt - sndUna;
            long room = Math.max(sndWnd - inFlight, 0);
            if (sentBytes >= limit) {
                if ((room > 0 && mayHaveUnsent()) || (hostEnded && !finAcked() && sndNxt == hostEnd)) result |= MORE;
                return result;
            }
            int want = (int) Math.min(room, peekLimit);
            if (hostEnded) want = Math.min(want, Math.max(hostEnd - sndNxt, 0));
            int n = peek(inFlight, want);
            if (n == HostStream.FAILED) return result | FAILED;
            boolean finDue = hostEnded && !finAcked() && sndNxt + n == hostEnd;
            if (n == 0 && !finDue) return result;
            int sent = segments(rcvNxt, n, finDue, n < want);
            result |= sent < 0 ? SENT | FIN_SENT : SENT;
            if (sent < 0) return result;
            sentBytes += sent;
            if (n < want) return result;
        }
    }

    /** Peeks up to want bytes from sndNxt, when any may be there; returns how many, or {@link HostStream#FAILED}. */
    private int peek(int inFlight, int want) {
        boolean fresh = !Seq.lt(sndNxt, sndUna + known); // beyond what was ever peeked
        if (want <= 0 || (fresh && !hostReadable)) return 0;
        int n = host.peek(inFlight, want);
        if (n == HostStream.FAILED) return n;
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
        return n;
    }

    /**
     * Sends the n peeked bytes as segments of up to sendLimit, the last with PSH when short and
     * with our FIN when finDue; returns the bytes sent, or -1 when the FIN went.
     */
    private int segments(int rcvNxt, int n, boolean finDue, boolean short_) {
        MemorySegment data = host.memory();
        long at = host.offset();
        for (int done = 0; done < n || (finDue && done == n); ) {
            int len = Math.min(sendLimit, n - done);
            boolean last = done + len == n;
            int flags = Tcp.ACK;
            if (last && len > 0 && short_) flags |= Tcp.PSH;
            boolean fin = last && finDue;
            if (fin) flags |= Tcp.FIN;
            if (len > 0 && sndNxt == sndMax) rtt.segmentSent(sndNxt + len, writer.now());
            writer.send(sndNxt, rcvNxt, flags, data, at + done, len);
            done += len;
            sndNxt += len + (fin ? 1 : 0);
            if (Seq.gt(sndNxt, sndMax)) sndMax = sndNxt;
            if (fin) {
                finSent = true;
                finSeq = sndNxt - 1;
                return -1;
            }
        }
        return n;
    }

    private void endHostStream(int at) {
        hostEnded = true;
        hostEnd = at;
        hostReadable = false;
    }
}
