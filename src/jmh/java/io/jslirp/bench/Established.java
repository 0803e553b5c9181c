package io.jslirp.bench;

import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.tcp.GuestSyn;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.tcp.TcpContext;
import io.jslirp.tcp.HostSink;
import io.jslirp.tcp.HostStream;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.util.BufferPool;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A TcpConnection after the three-way handshake with a Linux-like guest (MSS 1460, window scale 7,
 * SACK, timestamps), sending through a real Stack whose frames go nowhere: checksums and IPv4
 * headers are still built. Its ring buffers are confined: make it on the benchmark thread.
 */
final class Established {
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
        TcpConfig c = TcpConfig.forMtu(GuestFrames.NETWORK.mtu());
        // Buffers at full size, as a busy flow's have grown to.
        TcpConfig config = new TcpConfig(c.mss(), c.receiveBuffer(), c.sendBuffer(), Math.max(c.receiveBuffer(), c.sendBuffer()), c.timeWaitNanos(), c.bufferBudget());
        TcpOptions syn = new TcpOptions();
        syn.mss = 1460;
        syn.windowScale = 7;
        syn.sackPermitted = true;
        syn.hasTimestamp = true;
        syn.tsVal = 1_000;
        Stack stack = new Stack(GuestFrames.NETWORK, (f, n) -> true, new Counters());
        // Addresses above the wire are handles of the stack's book.
        int guest = stack.addresses().acquire4(GuestFrames.GUEST), remote = stack.addresses().acquire4(GuestFrames.REMOTE);
        conn = new TcpConnection(new FlowAddresses(guest, GuestFrames.GUEST_PORT, remote, GuestFrames.REMOTE_PORT),
                new GuestSyn(GUEST_ISN, 0xffff, syn), ISS, new TcpContext(config, new BufferPool(config.bufferBudget()), stack.ipv4()), host);
        if (conn.hostConnected(NOW).sendNow()) conn.sendNow();
        MemorySegment ack = GuestFrames.tcp(Tcp.ACK, GUEST_ISN + 1, ISS + 1, 0xffff, 0);
        conn.onSegment(ack, GuestFrames.TCP_OFFSET, GuestFrames.tcpLength(ack), options(ack), TAKES_ALL, NOW);
        if (conn.state() != TcpConnection.State.ESTABLISHED) throw new IllegalStateException(conn.toString());
    }

    /** The options of a frame made by {@link GuestFrames#tcp}, parsed as TcpNat does. */
    static TcpOptions options(MemorySegment frame) {
        TcpOptions o = new TcpOptions();
        if (!Tcp.parseOptions(frame, GuestFrames.TCP_OFFSET, o)) throw new IllegalStateException("bad options");
        return o;
    }
}
