package io.jslirp.splice;

import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.util.AddressBook;
import io.jslirp.forward.LoopbackDatagrams;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The UDP flows of one bound socket whose datagrams are passed to a target in the same or another
 * network namespace: a flow per source address and port, with a socket on the target's side
 * connected to the target and bound to the source's port where free (pasta keeps UDP source
 * ports) and, with keepAddress, its address too; what the target answers goes back to the source
 * from the bound socket. A flow ends after the idle timeout; at most {@link #MAX_FLOWS} at once, a
 * datagram from a new source beyond them is dropped (counted). Each is a flow of the instance's
 * table, its guest side the source's end and the target's.
 */
public final class UdpFlows implements LoopbackDatagrams.Receiver {
    public static final int MAX_FLOWS = 256;
    private static final int BUDGET = 64;

    private final Reactor loop;
    private final Clock clock;
    private final Splices splices;
    private final HostSockets replySockets;
    private final int replyFd;
    private final Endpoint target;
    private final boolean keepAddress;
    private final long idleNanos;
    private final List<Flow> flows = new ArrayList<>();
    private final Timer sweep = new Timer(this::sweep);

    private final class Flow extends io.jslirp.flow.Flow {
        final long hi, lo;
        final int fd;
        long lastUsed;

        /** The flow of source (hi, lo and the handle of that address) at port, over fd toward the target (its handle). */
        Flow(long hi, long lo, int source, int port, int fd, int targetAddress) {
            super(Kind.UDP_SPLICE, true, source, port, targetAddress, target.port());
            this.hi = hi;
            this.lo = lo;
            this.fd = fd;
            this.hostAddress = targetAddress;
            this.hostPort = target.port();
        }
    }

    /** Flows of the bound socket replyFd (of replySockets) toward target. */
    public UdpFlows(Splices splices, HostSockets replySockets, int replyFd, Endpoint target, boolean keepAddress, long idleNanos) {
        this.loop = splices.loop;
        this.clock = loop.clock();
        this.splices = splices;
        this.replySockets = replySockets;
        this.replyFd = replyFd;
        this.target = target;
        this.keepAddress = keepAddress;
        this.idleNanos = idleNanos;
    }

    /** Flows open now. */
    public int size() {
        return flows.size();
    }

    @Override
    public void take(MemorySegment buf, long off, int len, long[] source) {
        Flow f = flow(source[0], source[1], (int) source[2]);
        if (f == null || target.sockets().write(f.fd, buf, off, len) < 0) {
            splices.datagramDrops++;
            return;
        }
        f.lastUsed = clock.now();
        f.carriedFromGuest(len);
        splices.datagrams++;
        splices.datagramBytes += len;
        loop.moved(len);
    }

    private Flow flow(long hi, long lo, int port) {
        for (int i = 0; i < flows.size(); i++) {
            Flow f = flows.get(i);
            if (f.guestPort() == port && f.lo == lo && f.hi == hi) return f;
        }
        if (flows.size() >= MAX_FLOWS) return null;
        HostSockets ts = target.sockets();
        int s = ts.udp(target.ipv6());
        if (s < 0) return null;
        boolean sameVersion = Endpoint.isMapped(hi, lo) != target.ipv6();
        long bindHi = keepAddress && sameVersion ? hi : 0, bindLo = keepAddress && sameVersion ? lo : target.ipv6() ? 0 : 0xffff_0000_0000L;
        if (ts.bind(s, bindHi, bindLo, port) < 0 && keepAddress && sameVersion) ts.bind(s, hi, lo, 0);
        int r = ts.connect(s, target.hi(), target.lo(), target.port());
        if (r < 0) {
            ts.close(s);
            return null;
        }
        Flows table = splices.flows;
        AddressBook book = table.addresses();
        int source = book.acquire(hi, lo), to = book.acquire(target.hi(), target.lo());
        Flow f = new Flow(hi, lo, source, port, s, to);
        f.lastUsed = clock.now();
        table.add(f, State.OPEN, f.lastUsed);
        book.release(source); // the table holds them now
        book.release(to);
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
                // ECONNREFUSED: nothing listens there (now); the flow stays until idle, as a NAT's would.
                if (n != -Errno.EAGAIN && n != -Errno.EINTR) continue;
                return;
            }
            if (replySockets.sendTo(replyFd, buf, 0, n, f.hi, f.lo, f.guestPort()) < 0) {
                splices.datagramDrops++;
            } else {
                splices.datagrams++;
                splices.datagramBytes += n;
                f.carriedToGuest(n);
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
        splices.flows.transition(f, State.CLOSED);
    }

    /** Ends every flow (the bound socket is its owner's). */
    @Override
    public void close() {
        loop.schedule(sweep, Long.MAX_VALUE);
        for (Flow f : flows) closeFlow(f);
        flows.clear();
    }
}
