package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.Resets;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.util.BufferPool;
import io.jslirp.util.FlowTable;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The guest's TCP connections, each re-originated as a non-blocking host socket. Flows touched in
 * a loop iteration are flushed once at its end.
 */
final class TcpNat {
    private final EventLoop loop;
    private final Stack stack;
    private final OutboundPolicy policy;
    private final TcpConfig config;
    private final Counters counters;
    private final FlowTable<TcpFlow> flows = new FlowTable<>(256);
    private final List<TcpFlow> dirty = new ArrayList<>();
    private final TcpOptions options = new TcpOptions();
    private final BufferPool buffers;

    TcpNat(EventLoop loop, Stack stack, OutboundPolicy policy, TcpConfig config) {
        this.loop = loop;
        this.stack = stack;
        this.policy = policy;
        this.config = config;
        this.counters = stack.counters();
        this.buffers = new BufferPool(config.bufferBudget());
        loop.atEndOfIteration(this::flush);
    }

    int size() {
        return flows.size();
    }

    void segment(MemorySegment f, long off, int len, int src, int dst) {
        int srcPort = Tcp.sourcePort(f, off);
        int dstPort = Tcp.destinationPort(f, off);
        if (!Tcp.parseOptions(f, off, options)) {
            counters.malformed++;
            return;
        }
        TcpFlow flow = flows.get(src, srcPort, dst, dstPort);
        if (flow != null && flow.conn.reopenedBy(Tcp.flags(f, off), Tcp.seq(f, off), options)) {
            flow.conn.retire();
            flow = null;
        }
        if (flow != null) {
            flow.conn.onSegment(f, off, len, options, EventLoop.now());
            markDirty(flow);
            return;
        }
        if ((Tcp.flags(f, off) & (Tcp.SYN | Tcp.ACK | Tcp.RST)) == Tcp.SYN) {
            open(f, off, len, src, srcPort, dst, dstPort);
        } else {
            Resets.answer(f, off, len, src, dst, stack);
        }
    }

    private void open(MemorySegment f, long off, int len, int src, int srcPort, int dst, int dstPort) {
        int target = policy.tcpTarget(dst);
        int fd = target == OutboundPolicy.UNREACHABLE ? -1 : Sockets.tcp4();
        if (fd < 0) {
            counters.tcpRefused++;
            Resets.answer(f, off, len, src, dst, stack);
            return;
        }
        Sockets.setInt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        TcpFlow flow = new TcpFlow(this, loop, fd);
        flow.conn = new TcpConnection(src, srcPort, dst, dstPort, Tcp.seq(f, off), options,
                ThreadLocalRandom.current().nextInt(), config, buffers, stack, flow);
        flows.put(src, srcPort, dst, dstPort, flow);
        counters.tcpConnections++;
        Log.debug(() -> flow.conn + " opened");
        flow.connect(target, dstPort);
        markDirty(flow);
    }

    /** Sends the guest an ICMP destination unreachable for its TCP connection attempt (see {@link TcpFlow}). */
    void unreachable(int code, int guest, int remote, long tcpHead) {
        stack.sendUnreachable(code, Ipv4.PROTO_TCP, guest, remote, tcpHead);
    }

    void markDirty(TcpFlow flow) {
        if (!flow.dirty) {
            flow.dirty = true;
            dirty.add(flow);
        }
    }

    void remove(TcpFlow flow, boolean reset) {
        TcpConnection c = flow.conn;
        flows.remove(c.guestAddress, c.guestPort, c.remoteAddress, c.remotePort);
        Log.debug(() -> c + (reset ? " reset by the guest" : " closed"));
    }

    private void flush() {
        long now = EventLoop.now();
        for (int i = 0; i < dirty.size(); i++) {
            TcpFlow flow = dirty.get(i);
            flow.dirty = false;
            flow.flush(now);
        }
        dirty.clear();
    }

    /** Resets every connection (shutdown): guests and host peers both see the reset. */
    void resetAll() {
        List<TcpFlow> all = new ArrayList<>();
        flows.forEach(all::add);
        for (TcpFlow f : all) {
            Sockets.setLingerZero(f.fd);
            f.conn.hostReset();
        }
    }
}
