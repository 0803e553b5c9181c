package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jslirp.util.BufferPool;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.build.FrameBuilder;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * Deterministic test bench for one {@link TcpConnection}: scripted guest segments in, captured
 * segments out, a fake host side and a virtual clock (smoltcp / gVisor style).
 *
 * <p>Sequence numbers in tests are written relative to the initial sequence numbers, as
 * Wireshark shows them: {@code g(0)} is the guest's SYN and {@code g(1)} its first data byte;
 * {@code r(0)} is our SYN-ACK (we play the remote) and {@code r(1)} the first byte from the host.
 *
 * <p>The event loop is imitated by the caller: feed any number of guest segments and host events,
 * then {@link #flush()} once (end of the loop iteration) and look at what went out.
 */
final class TcpHarness {
    static final int GUEST = 0x0a00020f;          // 10.0.2.15
    static final int REMOTE = 0xc0000201;         // 192.0.2.1
    static final int GUEST_PORT = 40000;
    static final int REMOTE_PORT = 80;
    static final long MS = 1_000_000L;
    static final long SECOND = 1_000_000_000L;
    /** The virtual clock starts far from zero so no code can confuse "time 0" with "unset". */
    static final long START = 7 * 24 * 3600 * SECOND;
    static final int NONE = -1;
    /** Where the TCP header starts in a frame {@link #seg} builds. */
    static final long OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;

    final TcpConfig config;
    final int irs;
    final int iss;
    final FakeOutput out = new FakeOutput();
    final BufferPool buffers;
    final FakeHost host = new FakeHost();
    final TcpConnection conn;
    long now = START;

    private TcpHarness(TcpConfig config, int irs, int iss, int guestMss, int guestWscale, int guestTsVal, boolean guestSack,
                       boolean largeSegments, WindowCredit credit) {
        this.config = config;
        this.buffers = new BufferPool(config.bufferBudget());
        out.large = largeSegments;
        this.irs = irs;
        this.iss = iss;
        // As TcpNat does: parse the guest's SYN, then create the connection from it.
        FrameBuilder syn = seg(Tcp.SYN).seq(irs).ack(0).window(64240).mss(guestMss).windowScale(guestWscale);
        if (guestTsVal != NONE) syn.timestamps(guestTsVal, 0);
        if (guestSack) syn.sackPermitted();
        MemorySegment s = syn.build();
        TcpOptions opts = new TcpOptions();
        assertThat(Tcp.parseOptions(s, OFFSET, opts)).isTrue();
        this.conn = new TcpConnection(new FlowAddresses(GUEST, GUEST_PORT, REMOTE, REMOTE_PORT), new GuestSyn(irs, 64240, opts), iss,
                new TcpContext(config, buffers, out, credit), host);
        conn.attach(this);
    }

    // ---- construction ----

    static Builder with() {
        return new Builder();
    }

    static final class Builder {
        /** The default configuration with buffers at full size from the start, so window arithmetic stays fixed. */
        private TcpConfig config = fullSize(TcpConfig.forMtu(1500));
        private int irs = 0x1000_0000;
        private int iss = 0x5000_0000;
        private int guestMss = 1460;
        private int guestWscale = NONE;
        private int guestTsVal = NONE;
        private boolean guestSack;
        private boolean largeSegments;
        private WindowCredit credit = WindowCredit.unlimited();

        static TcpConfig fullSize(TcpConfig c) {
            return new TcpConfig(c.mss(), c.receiveBuffer(), c.sendBuffer(), Math.max(c.receiveBuffer(), c.sendBuffer()), c.timeWaitNanos(), c.bufferBudget());
        }

        Builder config(TcpConfig c) {
            config = c;
            return this;
        }

        /** Small buffers, no window scaling needed: window arithmetic stays readable. */
        Builder buffers(int receiveBuffer, int sendBuffer) {
            config = new TcpConfig(config.mss(), receiveBuffer, sendBuffer, Math.max(receiveBuffer, sendBuffer), config.timeWaitNanos(), config.bufferBudget());
            return this;
        }

        Builder guestIsn(int v) {
            irs = v;
            return this;
        }

        Builder iss(int v) {
            iss = v;
            return this;
        }

        Builder guestMss(int v) {
            guestMss = v;
            return this;
        }

        /** The window-scale shift the guest offers in its SYN; {@link #NONE} for no option. */
        Builder guestWscale(int v) {
            guestWscale = v;
            return this;
        }

        /** The guest's SYN offers timestamps with this TSval. */
        Builder guestTimestamps(int tsVal) {
            guestTsVal = tsVal;
            return this;
        }

        /** The guest's SYN carries SACK-permitted. */
        Builder guestSackPermitted() {
            guestSack = true;
            return this;
        }

        /** The output takes segments of up to 64 KiB (a tap with TSO). */
        Builder largeSegments() {
            largeSegments = true;
            return this;
        }

        /** The connection shares credit with others (see {@link WindowCredit}); it is attached to its harness. */
        Builder credit(WindowCredit c) {
            credit = c;
            return this;
        }

        /** The connection just after the guest's SYN, waiting for the host connect. */
        TcpHarness connecting() {
            return new TcpHarness(config, irs, iss, guestMss, guestWscale, guestTsVal, guestSack, largeSegments, credit);
        }

        /** The connection after the three-way handshake; the guest's handshake ACK carried guestWindow. */
        TcpHarness established(int guestWindow) {
            TcpHarness h = connecting();
            h.hostConnected();
            List<Sent> synAck = h.drain();
            assertThat(synAck).hasSize(1);
            assertThat(synAck.getFirst().flags()).isEqualTo(Tcp.SYN | Tcp.ACK);
            h.guest(seg(Tcp.ACK).seq(h.g(1)).ack(h.r(1)).window(guestWindow));
            assertThat(h.conn.state()).isEqualTo(TcpConnection.State.ESTABLISHED);
            assertThat(h.flush()).as("nothing to send after the handshake").isEmpty();
            return h;
        }

        TcpHarness established() {
            return established(0xffff);
        }
    }

    // ---- relative sequence numbers ----

    /** Guest sequence number rel bytes after its ISN (g(1) = first data byte). */
    int g(long rel) {
        return irs + (int) rel;
    }

    /** Our sequence number rel bytes after our ISN (r(1) = first byte from the host). */
    int r(long rel) {
        return iss + (int) rel;
    }

    // ---- driving the connection ----

    /** A guest segment with the given flags; fill in the rest fluently. */
    static FrameBuilder seg(int flags) {
        return FrameBuilder.v4(GUEST, REMOTE).tcp(GUEST_PORT, REMOTE_PORT, flags, 0, 0);
    }

    /**
     * Delivers a segment from the guest as TcpNat and TcpFlow do: options parsed first, in-order
     * bytes the connection writes to the host going to the fake socket, and what it leaves to do done.
     */
    void guest(FrameBuilder seg) {
        TcpSegment read = read(seg);
        settle(conn.onSegment(read, host, now));
        read.frame().fill((byte) 0x5a); // the frame buffer is reused: the connection must have copied what it keeps
    }

    /** The guest's segment seg (from GUEST to REMOTE) read as the stack's input reads it, without its checksum. */
    static TcpSegment read(FrameBuilder seg) {
        MemorySegment s = seg.build();
        TcpSegment read = new TcpSegment();
        assertThat(Tcp.read(s, OFFSET, (int) (s.byteSize() - OFFSET), read)).isNull();
        read.addresses(IpVersion.V4, GUEST, REMOTE);
        return read;
    }

    /**
     * Does what a call to the connection left to do, as TcpNat does: the segments due at once go
     * out, and a close is recorded (with whether the host peer must see a reset).
     */
    Outcome settle(Outcome r) {
        if (r.sendNow()) conn.sendNow();
        if (r.closed()) host.closed.add(r.resetHost());
        return r;
    }

    /** The host connect succeeded. */
    void hostConnected() {
        settle(conn.hostConnected(now));
    }

    /** The host connect was refused. */
    void hostRefused() {
        settle(conn.hostRefused());
    }

    /** The host peer reset the connection. */
    void hostReset() {
        settle(conn.hostReset());
    }

    /** A new connection took over the addresses. */
    void retire() {
        settle(conn.retire());
    }

    /** Runs the connection's timer at time (without the flush that follows it in TcpFlow). */
    void onTimer(long time) {
        settle(conn.onTimer(time));
    }

    /** Guest data: an ACK segment (ack = r(ackRel)) carrying bytes [from, from+len) of the guest stream at g(1+from). */
    FrameBuilder guestData(long from, int len, long ackRel) {
        return seg(Tcp.ACK).seq(g(1 + from)).ack(r(ackRel)).payload(guestStream(from, len));
    }

    /**
     * End of the loop iteration: the connection sends what is due, and again while it says it has
     * more ({@link Outcome#more}: the loop runs again at once). Returns the segments sent since the last look.
     */
    List<Sent> flush() {
        Outcome r;
        do {
            r = conn.flush(now);
            settle(r);
        } while (r.more());
        return drain();
    }

    /** One end-of-iteration flush only; returns what it left to do (see {@link #drain} for what it sent). */
    Outcome flushOnce() {
        return flushOnce(false);
    }

    /** As {@link #flushOnce()}, with the short burst of a flush beside an interactive exchange when shortBurst. */
    Outcome flushOnce(boolean shortBurst) {
        Outcome r = conn.flush(now, shortBurst);
        settle(r);
        return r;
    }

    /** Segments sent since the last look (e.g. by an event handler, before any flush). */
    List<Sent> drain() {
        List<Sent> s = List.copyOf(out.sent);
        out.sent.clear();
        return s;
    }

    void advance(long nanos) {
        now += nanos;
    }

    void advanceMillis(long ms) {
        advance(ms * MS);
    }

    /** Time until the connection's timer, relative to now. */
    long timerIn() {
        assertThat(conn.deadline()).as("a timer is armed").isNotEqualTo(Long.MAX_VALUE);
        return conn.deadline() - now;
    }

    boolean timerArmed() {
        return conn.deadline() != Long.MAX_VALUE;
    }

    /** Advances the clock to the deadline, runs the timer and the end-of-iteration flush, as TcpFlow does. */
    List<Sent> fireTimer() {
        assertThat(conn.deadline()).as("a timer is armed").isNotEqualTo(Long.MAX_VALUE);
        now = conn.deadline();
        settle(conn.onTimer(now));
        settle(conn.flush(now));
        return drain();
    }

    // ---- the fake host socket ----

    /** The host peer sent the next n bytes of the host stream: they wait in the fake socket, which signals them. */
    void hostSends(int n) {
        host.produced += n;
        conn.hostReadable();
    }

    /** The host peer closed its writing side after what it sent: the fake socket signals its end. */
    void hostFinishes() {
        host.finished = true;
        conn.hostShutdown();
    }

    /** Bytes in the fake host socket that the guest has not acknowledged (sent or not). */
    long hostQueued() {
        return host.produced - host.front;
    }

    /** What the guest has sent and the connection buffered toward the host, oldest first. */
    byte[] toHostBytes() {
        RingBuffer ring = conn.toHost();
        byte[] b = new byte[ring.size()];
        if (b.length == 0) return b; // (an empty buffer may have no memory: none is taken for it)
        MemorySegment.copy(ring.memory(), ValueLayout.JAVA_BYTE, ring.readOffset(), b, 0, ring.readSpan());
        MemorySegment.copy(ring.memory(), ValueLayout.JAVA_BYTE, 0, b, ring.readSpan(), ring.readSpan2());
        return b;
    }

    /** The host socket accepted n bytes of toHost(). */
    void hostWrote(int n) {
        conn.deliveredToHost(n);
    }

    // ---- deterministic byte streams ----

    static byte[] hostStream(long from, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            long x = from + i;
            b[i] = (byte) (x * 131 + (x >>> 8) * 7 + 3);
        }
        return b;
    }

    static byte[] guestStream(long from, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            long x = from + i;
            b[i] = (byte) (x * 37 + (x >>> 9) * 11 + 101);
        }
        return b;
    }

    // ---- expectations on sent segments ----

    /** Expected segment from us to the guest; unset fields are not checked. */
    static Expect sent(int flags) {
        return new Expect(flags);
    }

    /** Asserts that exactly these segments went out, in order. */
    void assertSent(List<Sent> actual, Expect... expected) {
        boolean ok = actual.size() == expected.length;
        StringBuilder why = new StringBuilder();
        for (int i = 0; i < Math.min(actual.size(), expected.length); i++) {
            String m = expected[i].mismatch(actual.get(i), this);
            if (m != null) {
                ok = false;
                why.append("\n  segment ").append(i).append(": ").append(m);
            }
        }
        if (!ok) {
            StringJoiner e = new StringJoiner("\n    ", "\n    ", "");
            for (Expect x : expected) e.add(x.describe(this));
            StringJoiner a = new StringJoiner("\n    ", "\n    ", "");
            for (Sent s : actual) a.add(describe(s));
            fail("expected " + expected.length + " segment(s):" + (expected.length == 0 ? " none" : e)
                    + "\n  but " + actual.size() + " went out:" + (actual.isEmpty() ? " none" : a) + why);
        }
    }

    /** The one segment that went out. */
    Sent single(List<Sent> actual) {
        if (actual.size() != 1) {
            StringJoiner a = new StringJoiner("\n    ", "\n    ", "");
            for (Sent s : actual) a.add(describe(s));
            fail("expected exactly one segment, got " + actual.size() + ":" + (actual.isEmpty() ? " none" : a));
        }
        return actual.getFirst();
    }

    String describe(Sent s) {
        return flagNames(s.flags()) + " seq=" + rel(s.seq(), iss, "r") + " ack=" + rel(s.ack(), irs, "g")
                + " win=" + s.window() + " len=" + s.len()
                + (s.mss() != NONE ? " mss=" + s.mss() : "") + (s.wscale() != NONE ? " ws=" + s.wscale() : "");
    }

    static String rel(int v, int base, String name) {
        int d = v - base;
        if (d >= -0x10000 && d <= 0x4000000) return name + "(" + d + ")";
        return Integer.toUnsignedString(v);
    }

    static String flagNames(int flags) {
        StringJoiner j = new StringJoiner("|");
        if ((flags & Tcp.SYN) != 0) j.add("SYN");
        if ((flags & Tcp.FIN) != 0) j.add("FIN");
        if ((flags & Tcp.RST) != 0) j.add("RST");
        if ((flags & Tcp.PSH) != 0) j.add("PSH");
        if ((flags & Tcp.ACK) != 0) j.add("ACK");
        if ((flags & Tcp.URG) != 0) j.add("URG");
        return j.length() == 0 ? "<none>" : j.toString();
    }

    /** A segment we sent, parsed back from the frame with the wire codecs. */
    record Sent(int source, int destination, int sourcePort, int destinationPort, int flags, int seq, int ack,
                int window, byte[] payload, int mss, int wscale, boolean hasTimestamps, int tsVal, int tsEcr, int[] sack) {
        int len() {
            return payload.length;
        }

        boolean has(int flag) {
            return (flags & flag) != 0;
        }

        static Sent parse(int source, int destination, MemorySegment f, long off, int tcpLength) {
            assertThat(Tcp.check(f, off, tcpLength)).as("a well-formed TCP header").isNull();
            assertThat(Bytes.u8(f, off + 12) & 0x0f).as("reserved bits").isZero();
            assertThat(Bytes.u8(f, off + 13) & 0xc0).as("reserved/ECN flags").isZero();
            TcpOptions o = new TcpOptions();
            assertThat(Tcp.parseOptions(f.asSlice(0, off + tcpLength), off, o)).as("well-formed options").isTrue();
            int hdr = Tcp.headerLength(f, off);
            byte[] payload = f.asSlice(off + hdr, tcpLength - hdr).toArray(ValueLayout.JAVA_BYTE);
            return new Sent(source, destination, Tcp.sourcePort(f, off), Tcp.destinationPort(f, off), Tcp.flags(f, off),
                    Tcp.seq(f, off), Tcp.ack(f, off), Tcp.window(f, off), payload, o.mss, o.windowScale,
                    o.hasTimestamp, o.tsVal, o.tsEcr, java.util.Arrays.copyOf(o.sackEdges, 2 * o.sackBlocks));
        }
    }

    static final class Expect {
        private final int flags;
        private Integer seq, ack, window, len, mss, wscale;
        private byte[] payload;
        private boolean noOptions;

        private Expect(int flags) {
            this.flags = flags;
        }

        Expect seq(int v) {
            seq = v;
            return this;
        }

        Expect ack(int v) {
            ack = v;
            return this;
        }

        /** The raw 16-bit window field. */
        Expect window(int v) {
            window = v;
            return this;
        }

        Expect len(int v) {
            len = v;
            return this;
        }

        Expect payload(byte[] v) {
            payload = v;
            len = v.length;
            return this;
        }

        Expect mss(int v) {
            mss = v;
            return this;
        }

        /** Expected window-scale option, or {@link #NONE} for "absent". */
        Expect wscale(int v) {
            wscale = v;
            return this;
        }

        /** No MSS and no window-scale option (anything but a SYN). */
        Expect noOptions() {
            noOptions = true;
            return this;
        }

        String mismatch(Sent s, TcpHarness h) {
            List<String> w = new ArrayList<>();
            if (s.source() != REMOTE || s.destination() != GUEST) w.add("addresses");
            if (s.sourcePort() != REMOTE_PORT || s.destinationPort() != GUEST_PORT) w.add("ports");
            if (s.flags() != flags) w.add("flags " + flagNames(s.flags()) + " != " + flagNames(flags));
            if (seq != null && s.seq() != seq) w.add("seq " + rel(s.seq(), h.iss, "r") + " != " + rel(seq, h.iss, "r"));
            if (ack != null && s.ack() != ack) w.add("ack " + rel(s.ack(), h.irs, "g") + " != " + rel(ack, h.irs, "g"));
            if (window != null && s.window() != window) w.add("window " + s.window() + " != " + window);
            if (len != null && s.len() != len) w.add("len " + s.len() + " != " + len);
            else if (payload != null && !Arrays.equals(s.payload(), payload)) w.add("payload bytes differ");
            if (mss != null && s.mss() != mss) w.add("mss " + s.mss() + " != " + mss);
            if (wscale != null && s.wscale() != wscale) w.add("wscale " + s.wscale() + " != " + wscale);
            if (noOptions && (s.mss() != NONE || s.wscale() != NONE)) w.add("unexpected options");
            if ((flags & Tcp.SYN) == 0 && (s.mss() != NONE || s.wscale() != NONE)) w.add("SYN options on a non-SYN segment");
            return w.isEmpty() ? null : String.join(", ", w);
        }

        String describe(TcpHarness h) {
            return flagNames(flags) + (seq != null ? " seq=" + rel(seq, h.iss, "r") : "")
                    + (ack != null ? " ack=" + rel(ack, h.irs, "g") : "") + (window != null ? " win=" + window : "")
                    + (len != null ? " len=" + len : "") + (mss != null ? " mss=" + mss : "")
                    + (wscale != null ? " ws=" + wscale : "");
        }
    }

    // ---- fakes ----

    /** Captures every segment; scribbles over the frame after each so stale bytes cannot pass for fresh ones. */
    static final class FakeOutput implements TcpOutput {
        static final long TCP_OFFSET = 14 + 20; // Ethernet + IPv4 headers before the TCP header
        final MemorySegment frame = Arena.ofAuto().allocate(TCP_OFFSET + 65536 + 64);
        final List<Sent> sent = new ArrayList<>();
        final TcpHeader header = new TcpHeader();

        FakeOutput() {
            frame.fill((byte) 0xa5);
        }

        @Override
        public TcpHeader tcpHeader() {
            return header;
        }

        @Override
        public MemorySegment frame() {
            return frame;
        }

        @Override
        public long tcpOffset() {
            return TCP_OFFSET;
        }

        /** Whether this output takes segments larger than the MSS, as a tap with TSO does. */
        boolean large;
        /** The segment size of the last segment sent. */
        int lastSegmentSize;

        @Override
        public boolean largeSegments() {
            return large;
        }

        @Override
        public void sendTcp(int source, int destination, int tcpLength, int segmentSize) {
            lastSegmentSize = segmentSize;
            sent.add(Sent.parse(source, destination, frame, TCP_OFFSET, tcpLength));
            frame.asSlice(TCP_OFFSET, tcpLength).fill((byte) 0xa5);
        }
    }

    /**
     * Records how the connection ended, takes direct writes while it has room, and is the host
     * socket's receive queue the connection peeks: the host stream from front (the oldest byte
     * not acknowledged) to produced.
     */
    static final class FakeHost implements HostStream, HostSink {
        final List<Boolean> closed = new ArrayList<>();
        long front, produced;
        boolean finished, failed;
        /** Peeks made, and how many of them came back empty. */
        int peeks, emptyPeeks;
        private final MemorySegment window = Arena.ofAuto().allocate(MAX_PEEK + 16);
        private long windowOffset;

        @Override
        public int peek(int skip, int length) {
            assertThat(length).as("peek length").isBetween(1, MAX_PEEK);
            peeks++;
            if (failed) return FAILED;
            long from = front + skip;
            int n = (int) Math.min(length, produced - from);
            if (n <= 0) {
                emptyPeeks++;
                return finished ? END : 0;
            }
            window.fill((byte) 0x3c); // stale bytes must not pass for fresh ones
            windowOffset = 1 + (peeks % 7); // and nothing may assume where they are
            MemorySegment.copy(hostStream(from, n), 0, window, ValueLayout.JAVA_BYTE, windowOffset, n);
            return n;
        }

        @Override
        public MemorySegment memory() {
            return window;
        }

        @Override
        public long offset() {
            return windowOffset;
        }

        @Override
        public void acknowledged(int n) {
            assertThat(n).as("acknowledged bytes").isPositive().isLessThanOrEqualTo((int) (produced - front));
            front += n;
        }

        /** How many more bytes the fake host socket takes from direct writes (none unless a test gives room). */
        int socketRoom;
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();

        /** The socket takes what it has room for. */
        @Override
        public int write(MemorySegment data, long offset, int length) {
            int n = Math.min(length, socketRoom);
            socketRoom -= n;
            written.write(data.asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE), 0, n);
            return n;
        }

        /** The bytes direct writes handed over since the last call, oldest first. */
        byte[] taken() {
            byte[] b = written.toByteArray();
            written.reset();
            return b;
        }
    }
}
