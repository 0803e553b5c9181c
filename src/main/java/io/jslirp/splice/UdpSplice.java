package io.jslirp.splice;

import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.SysException;

import java.lang.foreign.MemorySegment;

/**
 * A bound UDP socket whose datagrams are passed to a target in the same or another network
 * namespace ({@link UdpFlows}, keeping the source's loopback address and port): pasta's -U.
 * Datagrams from sources that are not loopback go to others when there is one.
 */
public final class UdpSplice implements AutoCloseable {
    /** pasta's UDP flows end after 180 s without traffic. */
    public static final long DEFAULT_IDLE_NANOS = 180_000_000_000L;
    private static final int BUDGET = 64;

    /** Takes a datagram whose source is not loopback: its bytes and source (hi, lo, port); the buffer is lent for the call. */
    @FunctionalInterface
    public interface Others {
        void take(MemorySegment datagram, int length, long[] source);
    }

    private final Reactor loop;
    private final Splices splices;
    private final Endpoint local;
    private final Others others;
    private final HostSockets sockets;
    private final int fd;
    private final UdpFlows flows;
    private final long[] source = new long[3];

    /** Binds local; throws {@link SysException} (EADDRINUSE: the port is taken). */
    public UdpSplice(Reactor loop, Splices splices, Endpoint local, Endpoint target, long idleNanos, Others others) {
        this.loop = loop;
        this.splices = splices;
        this.local = local;
        this.others = others;
        this.sockets = local.sockets();
        int s = sockets.udp(local.ipv6());
        if (s < 0) throw new SysException("socket for " + local, -s);
        if (local.ipv6()) sockets.setInt(s, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1);
        int r = sockets.bind(s, local.hi(), local.lo(), local.port());
        if (r < 0) {
            sockets.close(s);
            throw new SysException("bind " + local, -r);
        }
        this.fd = s;
        this.flows = new UdpFlows(splices, sockets, s, target, true, idleNanos);
        loop.register(s, Epoll.IN, events -> fromSources());
    }

    /** The port bound (the kernel's choice when local's port was 0). */
    public int port() {
        return Sockets.localPort(fd);
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
            if (others != null && !Endpoint.isLoopback(source[0], source[1])) others.take(buf, n, source);
            else flows.take(buf, 0, n, source);
        }
        loop.runAgain();
    }

    @Override
    public void close() {
        flows.close();
        loop.unregister(fd);
        sockets.close(fd);
    }
}
