package io.jslirp.splice;

import io.jslirp.loop.Clock;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.SysException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A bound UDP socket whose datagrams are passed to a target in the same or another network
 * namespace, pasta's -U and the loopback clients of -u: a flow per source address and port, with
 * a socket on the target's side connected to the target and bound to the source's loopback address
 * and, where free, its port (pasta keeps UDP source ports); what the target answers goes back to
 * the source from the bound socket. A flow ends after the idle timeout; at most {@link #MAX_FLOWS}
 * at once, a datagram from a new source beyond them is dropped (counted). Datagrams from sources
 * that are not loopback go to others when there is one (the tap path of -u).
 */
public final class UdpSplice implements AutoCloseable {
    public static final int MAX_FLOWS = 256;
    /** pasta's UDP flows end after 180 s without traffic. */
    public static final long DEFAULT_IDLE_NANOS = 180_000_000_000L;
    private static final int BUDGET = 64;

    /** Takes a datagram whose source is not loopback: its bytes and source (hi, lo, port); the buffer is lent for the call. */
    @FunctionalInterface
    public interface Others {
        void take(MemorySegment datagram, int length, long[] source);
    }

    private final Reactor loop;
    private final Clock clock;
    private final Splices splices;
    private final Endpoint local, target;
    private final long idleNanos;
    private final Others others;
    private final HostSockets sockets;
    private final int fd;
    private final long[] source = new long[3];
    private final List<Flow> flows = new ArrayList<>();
    private final Timer sweep = new Timer(this::sweep);

    private final class Flow {
        final long hi, lo;
        final int port, fd;
        long lastUsed;

        Flow(long hi, long lo, int port, int fd) {
            this.hi = hi;
            this.lo = lo;
            this.port = port;
            this.fd = fd;
        }
    }

    /** Binds local; throws {@link SysException} (EADDRINUSE: the port is taken). */
    public UdpSplice(Reactor loop, Splices splices, Endpoint local, Endpoint target, long idleNanos, Others others) {
        this.loop = loop;
        this.clock = loop.clock();
        this.splices = splices;
        this.local = local;
        this.target = target;
        this.idleNanos = idleNanos;
        this.others = others;
        this.sockets = local.sockets();
        int s = sockets.udp(local.ipv6());
        if (s < 0) throw new SysException("socket for " + local, -s);
        if (local.ipv6()) sockets.setInt(s, io.jslirp.sys.Sockets.IPPROTO_IPV6, io.jslirp.sys.Sockets.IPV6_V6ONLY, 1);
        int r = sockets.bind(s, local.hi(), local.lo(), local.port());
        if (r < 0) {
            sockets.close(s);
            throw new SysException("bind " + local, -r);
        }
        this.fd = s;
        loop.register(s, Epoll.IN, events -> fromSources());
    }

    /** The port bound (the kernel's choice when local's port was 0). */
    public int port() {
        return io.jslirp.sys.Sockets.localPort(fd);
    }

    public Endpoint local() {
        return local;
    }

    /** Flows open now. */
    public int size() {
        return flows.size();
    }

    private void fromSources() {
        MemorySegment buf = splices.datagram;
        for (int i = 0; i < BUDGET; i++) {
            int n = sockets.recvFrom(fd, buf, 0, (int) buf.byteSize(), source);
            if (n < 0) return;
            if (others != null && !Endpoint.isLoopback(source[0], source[1])) {
                others.take(buf, n, source);
                continue;
            }
            Flow f = flow(source[0], source[1], (int) source[2]);
            if (f == null) {
                splices.datagramDrops++;
                continue;
            }
            int w = target.sockets().write(f.fd, buf, 0, n);
            if (w < 0) {
                splices.datagramDrops++;
                continue;
            }
            f.lastUsed = clock.now();
            splices.datagrams++;
            splices.datagramBytes += n;
            loop.moved(n);
        }
        loop.runAgain();
    }

    private Flow flow(long hi, long lo, int port) {
        for (int i = 0; i < flows.size(); i++) {
            Flow f = flows.get(i);
            if (f.port == port && f.lo == lo && f.hi == hi) return f;
        }
        if (flows.size() >= MAX_FLOWS) return null;
        HostSockets ts = target.sockets();
        int s = ts.udp(target.ipv6());
        if (s < 0) return null;
        if (Endpoint.isLoopback(hi, lo) && Endpoint.isMapped(hi, lo) != target.ipv6()) {
            if (ts.bind(s, hi, lo, port) < 0) ts.bind(s, hi, lo, 0);
        }
        int r = ts.connect(s, target.hi(), target.lo(), target.port());
        if (r < 0) {
            ts.close(s);
            return null;
        }
        Flow f = new Flow(hi, lo, port, s);
        f.lastUsed = clock.now();
        flows.add(f);
        loop.register(s, Epoll.IN, events -> fromTarget(f));
        if (sweep.deadline() == Long.MAX_VALUE) loop.schedule(sweep, f.lastUsed + idleNanos);
        return f;
    }

    private void fromTarget(Flow f) {
        MemorySegment buf = splices.datagram;
        HostSockets ts = target.sockets();
        for (int i = 0; i < BUDGET; i++) {
            int n = ts.read(f.fd, buf, 0, (int) buf.byteSize());
            if (n < 0) {
                if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
                    // ECONNREFUSED: nothing listens there (now); the flow stays until idle, as a NAT's would.
                    continue;
                }
                return;
            }
            if (sockets.sendTo(fd, buf, 0, n, f.hi, f.lo, f.port) < 0) splices.datagramDrops++;
            else {
                splices.datagrams++;
                splices.datagramBytes += n;
                loop.moved(n);
            }
            f.lastUsed = clock.now();
        }
        loop.runAgain();
    }

    private void sweep() {
        long now = clock.now(), next = Long.MAX_VALUE;
        for (int i = flows.size() - 1; i >= 0; i--) {
            Flow f = flows.get(i);
            if (now - f.lastUsed >= idleNanos) {
                closeFlow(f);
                flows.remove(i);
            } else {
                next = Math.min(next, f.lastUsed + idleNanos);
            }
        }
        if (next != Long.MAX_VALUE) loop.schedule(sweep, next);
    }

    private void closeFlow(Flow f) {
        loop.unregister(f.fd);
        target.sockets().close(f.fd);
    }

    @Override
    public void close() {
        loop.schedule(sweep, Long.MAX_VALUE);
        for (Flow f : flows) closeFlow(f);
        flows.clear();
        loop.unregister(fd);
        sockets.close(fd);
    }
}
