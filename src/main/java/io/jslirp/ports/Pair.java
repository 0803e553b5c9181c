package io.jslirp.ports;

import io.jslirp.loop.Reactor;
import io.jslirp.splice.Endpoint;
import io.jslirp.splice.SpliceListener;
import io.jslirp.splice.Splices;
import io.jslirp.splice.UdpSplice;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.SysException;

/**
 * One forwarded port as pasta opens it: an IPv4 and an IPv6 socket, either of which may fail
 * (a namespace without IPv6, a port one version has taken) as long as the other is bound.
 */
final class Pair implements AutoCloseable {
    private final AutoCloseable v4, v6;

    private Pair(AutoCloseable v4, AutoCloseable v6) {
        this.v4 = v4;
        this.v6 = v6;
    }

    /** A side of a forward: one socket of a version. */
    @FunctionalInterface
    interface Open {
        AutoCloseable open(boolean ipv6);
    }

    /** Both versions through open; throws the IPv4 one's {@link SysException} when neither could be opened. */
    static Pair of(Open open) {
        AutoCloseable a = null, b = null;
        SysException first = null;
        try {
            a = open.open(false);
        } catch (SysException e) {
            first = e;
        }
        try {
            b = open.open(true);
        } catch (SysException e) {
            if (first != null) throw first;
        }
        return new Pair(a, b);
    }

    /**
     * TCP port listening on local's loopback (wildcard: every address) of both versions, each
     * client spliced to target's loopback of its version at targetPort (others: non-loopback
     * clients, when not null).
     */
    static Pair tcp(Reactor loop, Splices splices, HostSockets local, boolean wildcard, int port, HostSockets target, int targetPort,
                    SpliceListener.Others others) {
        return of(v6 -> new SpliceListener(loop, splices, where(local, wildcard, v6, port), Endpoint.loopback(target, v6, targetPort), others));
    }

    /** As {@link #tcp} for UDP, flows ending after idleNanos. */
    static Pair udp(Reactor loop, Splices splices, HostSockets local, boolean wildcard, int port, HostSockets target, int targetPort,
                    long idleNanos, UdpSplice.Others others) {
        return of(v6 -> new UdpSplice(loop, splices, where(local, wildcard, v6, port), Endpoint.loopback(target, v6, targetPort), idleNanos,
                others));
    }

    private static Endpoint where(HostSockets sockets, boolean wildcard, boolean v6, int port) {
        if (!wildcard) return Endpoint.loopback(sockets, v6, port);
        return new Endpoint(sockets, 0, v6 ? 0 : 0xffff_0000_0000L, port);
    }

    @Override
    public void close() throws Exception {
        if (v4 != null) v4.close();
        if (v6 != null) v6.close();
    }
}
