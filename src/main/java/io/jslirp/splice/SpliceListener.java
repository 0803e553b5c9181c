package io.jslirp.splice;

import io.jslirp.loop.AcceptPause;
import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.SysException;

/**
 * A listening TCP socket whose clients are spliced ({@link Splices}) to a target, in the same or
 * another network namespace: pasta's -T (the namespace's loopback to the host's) and the loopback
 * clients of -t (the host's loopback to the namespace's). The target socket is bound to the
 * client's own loopback address (127.0.0.2 stays 127.0.0.2), its port the kernel's, as pasta does.
 * Clients from other addresses go to others when there is one (the tap path of -t), else are
 * spliced too; so do loopback clients for which no descriptors are left to splice them.
 */
public final class SpliceListener implements AutoCloseable {
    private static final int ACCEPT_BUDGET = 64;

    /** Takes a client that is not spliced: its descriptor (now the taker's) and its address (hi, lo, port). */
    @FunctionalInterface
    public interface Others {
        void take(int fd, long[] peer);
    }

    private final Reactor loop;
    private final HostSockets sockets;
    private final Endpoint local;
    private final int fd;
    private final AcceptPause pause;
    private final long[] peer = new long[3];

    /**
     * Listens on local (bound in its sockets' namespace; an IPv6 one takes IPv6 clients only),
     * each client spliced to target; throws {@link SysException} (EADDRINUSE: the port is taken).
     */
    public SpliceListener(Reactor loop, Splices splices, Endpoint local, Endpoint target, Others others) {
        this.loop = loop;
        this.local = local;
        this.sockets = local.sockets();
        int s = sockets.tcp(local.ipv6());
        if (s < 0) throw new SysException("socket for " + local, -s);
        sockets.setInt(s, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        if (local.ipv6()) sockets.setInt(s, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1);
        int r = sockets.bind(s, local.hi(), local.lo(), local.port());
        if (r == 0) r = sockets.listen(s, Sockets.CLIENT_BACKLOG);
        if (r < 0) {
            sockets.close(s);
            throw new SysException("listen on " + local, -r);
        }
        this.fd = s;
        this.pause = new AcceptPause(loop, s, "splice listener on " + local);
        loop.register(s, Epoll.IN, events -> {
            for (int i = 0; i < ACCEPT_BUDGET; i++) {
                int client = sockets.accept(fd, peer);
                if (client < 0) {
                    pause.failed(-client);
                    return;
                }
                boolean loopback = Endpoint.isLoopback(peer[0], peer[1]);
                if (others != null && !loopback) {
                    others.take(client, peer);
                } else if (!splices.splice(sockets, client, peer, target, loopback, others != null)) {
                    others.take(client, peer); // no descriptors for a splice: through the tap
                }
            }
        });
    }

    /** The port bound (the kernel's choice when local's port was 0). */
    public int port() {
        return io.jslirp.sys.Sockets.localPort(fd);
    }

    public Endpoint local() {
        return local;
    }

    @Override
    public void close() {
        pause.cancel();
        loop.unregister(fd);
        sockets.close(fd);
    }
}
