package io.jslirp.bench;

import io.jslirp.stack.Counters;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.tcp.GuestSyn;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.tcp.TcpContext;
import io.jslirp.tcp.HostSink;
import io.jslirp.tcp.HostStream;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.util.BufferPool;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A TcpConnection after the three-way handshake with a Linux-like guest (MSS 1460, window scale 7,
 * SACK, timestamps), sending through a real Stack whose frames go nowhere: checksums and IPv4
 * headers are still built. Its ring buffers are confined: make it on the benchmark thread.
 */
final class Established {
    static final NetworkConfig NETWORK = NetworkConfig.defaults();
    static final int GUEST = NETWORK.guest();
    static final int REMOTE = Ipv4.parse("192.0.2.1");
    static final int GUEST_PORT = 40000;
    static final int REMOTE_PORT = 5201;
    /** Where the TCP header starts in a frame from the guest. */
    static final long TCP_OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;
    /** Payload of a full-size segment: MSS 1460 less the timestamps option. */
    static final int FULL_PAYLOAD = NETWORK.mtu() - Ipv4.MIN_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH - Tcp.TIMESTAMPS_LENGTH;
    static final int GUEST_ISN = 0x1000_0000;
    static final int ISS = 0x5000_0000;
    /** The clock stands still: timers never fire in these benchmarks. */
    static final long NOW = 1_000_000_000_000L;
    /** A host socket that takes every byte written to it at once. */
    static final HostSink TAKES_ALL = (data, offset, length) -> length;

    final TcpConnection conn;
    final Host host = new Host();

    /** The host socket's receive queue, in memory: add(n) queues n more bytes; peeks copy nothing. */
    static final class Host implements HostStream {
        private final MemorySegment window = Arena.ofAuto().allocate(MAX_PEEK, 64);
        private long queued;

        void add(int n) {
            queued += n;
        }

        @Override
        public int peek(int skip, int length) {
            return (int) Math.max(Math.min(length, queued - skip), 0);
        }

        @Override
        public MemorySegment memory() {
            return window;
        }

        @Override
        public long offset() {
            return 0;
        }

        @Override
        public void acknowledged(int n) {
            queued -= n;
        }
    }

    Established() {
        TcpConfig c = TcpConfig.forMtu(NETWORK.mtu());
        // Buffers at full size, as a busy flow's have grown to.
        TcpConfig config = new TcpConfig(c.mss(), c.receiveBuffer(), c.sendBuffer(), Math.max(c.receiveBuffer(), c.sendBuffer()), c.timeWaitNanos(), c.bufferBudget());
        TcpOptions syn = new TcpOptions();
        syn.mss = 1460;
        syn.windowScale = 7;
        syn.sackPermitted = true;
        syn.hasTimestamp = true;
        syn.tsVal = 1_000;
        Stack stack = new Stack(NETWORK, (f, n) -> true, new Counters());
        // Addresses above the wire are handles of the stack's book.
        int guest = stack.addresses().acquire4(GUEST), remote = stack.addresses().acquire4(REMOTE);
        conn = new TcpConnection(new FlowAddresses(guest, GUEST_PORT, remote, REMOTE_PORT),
                new GuestSyn(GUEST_ISN, 0xffff, syn), ISS, new TcpContext(config, new BufferPool(config.bufferBudget()), stack.ipv4()), host);
        if (conn.hostConnected(NOW).sendNow()) conn.sendNow();
        MemorySegment ack = fromGuest(Tcp.ACK, GUEST_ISN + 1, ISS + 1, 0xffff, 0);
        conn.onSegment(read(ack, new TcpSegment()), TAKES_ALL, NOW);
        if (conn.state() != TcpConnection.State.ESTABLISHED) throw new IllegalStateException(conn.toString());
    }

    /**
     * A frame of this connection from the guest as Linux sends it at MTU 1500 (IPv4, TCP with the
     * timestamps option) with payload bytes of data, valid checksums, in native memory.
     */
    static MemorySegment fromGuest(int flags, int seq, int ack, int window, int payload) {
        FrameBuilder b = FrameBuilder.v4(GUEST, REMOTE).id(1).tcp(GUEST_PORT, REMOTE_PORT, flags, seq, ack).window(window)
                .timestamps(1_000, 2_000).payload(payload);
        MemorySegment f = Arena.ofAuto().allocate(b.length(), 64);
        b.writeTo(f, 0);
        return f;
    }

    /** The TCP segment's length in a frame made by {@link #fromGuest}. */
    static int tcpLength(MemorySegment frame) {
        return (int) (frame.byteSize() - TCP_OFFSET);
    }

    /**
     * Reads a frame made by {@link #fromGuest} into seg as the stack's input does (its checksum is
     * not verified: the link vouches for it); returns seg.
     */
    static TcpSegment read(MemorySegment frame, TcpSegment seg) {
        if (Tcp.read(frame, TCP_OFFSET, tcpLength(frame), seg) != null) throw new IllegalStateException("bad segment");
        return seg;
    }
}
