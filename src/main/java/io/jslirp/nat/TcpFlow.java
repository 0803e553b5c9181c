package io.jslirp.nat;

import io.jslirp.policy.Nameserver;
import io.jslirp.policy.NameserverTries;
import io.jslirp.policy.Nameservers;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.wire.Ipv4;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.tcp.TcpHostSide;
import io.jslirp.util.Log;
import io.jslirp.util.RingBuffer;

import java.lang.foreign.MemorySegment;

/**
 * One guest TCP connection re-originated as a host socket: moves bytes between the socket and
 * the connection's buffers, and keeps the socket's epoll interest to what can make progress
 * (reading only while there is room, writing only while guest data waits).
 */
public final class TcpFlow implements Handler, TcpHostSide {
    /** The largest write to the host socket that is taken for a request, whose answer the loop may wait for ({@link Reactor#expectAnswer}). */
    private static final int REQUEST_BYTES = 16 << 10;
    private final TcpNat nat;
    final Family family;
    private final HostSockets sockets;
    private final Reactor loop;
    private final Clock clock;
    /** The host socket; a connection to the DNS address replaces it while it moves on to the next nameserver. */
    private int fd;
    /** No host socket (closed, or none yet): the connection lingers in TIME_WAIT toward the guest only, or waits for one. */
    private boolean socketClosed;
    TcpConnection conn;
    final Timer timer;
    private boolean connecting = true;
    private boolean shutDown;
    private int interest;
    boolean dirty;
    /** For a connection to the DNS address: its way through the nameservers, and how long one may take to connect; else null. */
    private NameserverTries nameservers;
    private Timer nameserverTimer;
    /**
     * The host socket's peer for the status report: the connect target (an address of the NAT's
     * family) and its port; for a connection to the DNS address, the nameserver being tried; for
     * a forward, its host client.
     */
    int hostAddress, hostPort;
    private String forwardClient;
    private Nameserver hostNameserver;
    /** When the flow opened (on the loop's clock). */
    final long openedAt;
    /** Payload bytes written to the host socket, and read from it. */
    long fromGuest, toGuest;

    TcpFlow(TcpNat nat, Family family, Reactor loop, int fd) {
        this.nat = nat;
        this.family = family;
        this.sockets = family.sockets();
        this.loop = loop;
        this.clock = loop.clock();
        this.openedAt = clock.now();
        this.fd = fd;
        this.socketClosed = fd < 0;
        this.timer = new Timer(this::onTimer);
    }

    /** Follows up the non-blocking connect that returned r ({@link Family#connect}); the connection answers the guest when it completes. */
    void connect(int r) {
        if (r == 0) {
            connected();
        } else if (r == -Errno.EINPROGRESS) {
            setInterest(Epoll.OUT);
        } else {
            connectFailed(-r);
        }
    }

    /**
     * Connects to the nameservers of resolv.conf in turn, the preferred one first: a connect error,
     * or no answer within {@link Nameservers#ATTEMPT_TIMEOUT_NANOS}, moves on to the next one.
     * The flow starts without a socket (fd -1).
     */
    void connectNameservers(NameserverTries tries) {
        nameservers = tries;
        nameserverTimer = new Timer(this::nameserverSilent);
        connectNextNameserver(Errno.ECONNREFUSED);
    }

    private void nameserverSilent() {
        if (!connecting) return;
        connectFailed(Errno.ETIMEDOUT);
        nat.markDirty(this);
    }

    /** Connects to the next nameserver not tried yet; after the last, fails with errno (the latest error). */
    private void connectNextNameserver(int errno) {
        for (Nameserver ns = nameservers.next(); ns != null; ns = nameservers.next()) {
            closeSocket();
            int s = ns.socket(sockets, true);
            if (s < 0) {
                errno = -s;
                continue;
            }
            fd = s;
            socketClosed = false;
            sockets.setInt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
            hostNameserver = ns;
            hostPort = 53;
            int r = ns.connect(sockets, fd);
            if (r == 0) {
                connected();
                return;
            }
            if (r == -Errno.EINPROGRESS) {
                setInterest(Epoll.OUT);
                loop.schedule(nameserverTimer, clock.now() + Nameservers.ATTEMPT_TIMEOUT_NANOS);
                return;
            }
            errno = -r;
            int failed = errno;
            Log.debug(() -> describe() + " nameserver " + nameservers.current() + ": " + Errno.describe(failed));
        }
        connectFailed(errno);
    }

    /**
     * Tells the guest why its connection cannot be made, as a router would: a refused connect is
     * reset; an unreachable network or host, a timeout or a host firewall's refusal come back as
     * ICMP destination unreachable (the guest's connect then fails with ENETUNREACH or
     * EHOSTUNREACH, as it would on a real network).
     */
    private void connectFailed(int errno) {
        if (nameservers != null && !nameservers.exhausted()) {
            connectNextNameserver(errno);
            return;
        }
        Log.debug(() -> describe() + " host connect failed: " + Errno.describe(errno));
        int code = Unreachable.code(errno, false);
        if (code < 0) {
            conn.hostRefused();
            return;
        }
        long tcpHead = ((long) conn.guestPort << 48) | ((long) conn.remotePort << 32) | (conn.guestInitialSequence() & 0xffffffffL);
        family.sendUnreachable(code, Ipv4.PROTO_TCP, conn.guestAddress, conn.remoteAddress, tcpHead);
        conn.hostUnreachable();
    }

    /** The host socket came connected: an accepted client of a forwarded port, at client:clientPort. */
    void connectedAlready(String client, int clientPort) {
        connecting = false;
        forwardClient = client;
        hostPort = clientPort;
    }

    /** The connection for logs. */
    String describe() {
        return "tcp " + family.format(conn.guestAddress) + ":" + conn.guestPort + " -> " + family.format(conn.remoteAddress) + ":"
                + conn.remotePort + " " + conn.state();
    }

    /** A snapshot for the status report. */
    FlowStatus status(long now) {
        String host = hostNameserver != null ? (hostNameserver.isIpv6() ? "[" + hostNameserver + "]" : hostNameserver.toString())
                : forwardClient != null ? forwardClient : family.format(hostAddress);
        return new FlowStatus("tcp", conn.state().name(), forwardClient != null, family.format(conn.guestAddress), conn.guestPort,
                family.format(conn.remoteAddress), conn.remotePort, host, hostPort, fromGuest, toGuest, now - openedAt);
    }

    private void connected() {
        connectEnded();
        if (nameservers != null) {
            loop.schedule(nameserverTimer, Long.MAX_VALUE);
            nameservers.answered();
        }
        conn.hostConnected(clock.now());
    }

    private void connectEnded() {
        if (!connecting) return;
        connecting = false;
        nat.connectEnded();
    }

    @Override
    public void onEvents(int events) {
        if (connecting) {
            int err = sockets.soError(fd);
            if (err == 0) {
                connected();
            } else {
                connectFailed(err); // a connection to the DNS address may go on to the next nameserver
            }
        } else if ((events & Epoll.ERR) != 0 && sockets.soError(fd) != 0) {
            conn.hostReset();
            return;
        } else if ((events & (Epoll.IN | Epoll.HUP)) != 0) {
            readFromHost();
        }
        nat.markDirty(this);
    }

    private void readFromHost() {
        while (conn.readyForHostData()) {
            RingBuffer ring = conn.fromHost();
            int want = ring.free();
            long n = sockets.readv2(fd, ring.memory(), ring.writeOffset(), ring.writeSpan(), ring.memory(), 0, ring.writeSpan2());
            if (n > 0) {
                loop.moved((int) n);
                toGuest += n;
                conn.hostDataAdded((int) n);
                if (n < want) return;
            } else if (n == 0) {
                conn.hostFinished();
                return;
            } else if (n == -Errno.EAGAIN) {
                return;
            } else {
                conn.hostReset();
                return;
            }
        }
    }

    @Override
    public int writeToHost(MemorySegment data, long offset, int length) {
        if (connecting || socketClosed || shutDown) return 0;
        int n = sockets.write(fd, data, offset, length);
        if (n <= 0) return 0;
        fromGuest += n;
        return n;
    }

    private void onTimer() {
        conn.onTimer(clock.now());
        nat.markDirty(this);
    }

    /** End of the loop iteration: one write toward the host, then the segments toward the guest. */
    void flush(long now) {
        if (conn.state() == TcpConnection.State.CLOSED) return;
        RingBuffer ring = conn.toHost();
        if (!ring.isEmpty() && !connecting) {
            long n = sockets.writev2(fd, ring.memory(), ring.readOffset(), ring.readSpan(), ring.memory(), 0, ring.readSpan2());
            if (n > 0) {
                fromGuest += n;
                conn.deliveredToHost((int) n);
                if (n <= REQUEST_BYTES && conn.readyForHostData() && conn.fromHost().isEmpty()) loop.expectAnswer(fd);
            } else if (n != -Errno.EAGAIN) {
                conn.hostReset();
                return;
            }
        }
        if (conn.guestFinished() && ring.isEmpty() && !shutDown) {
            sockets.shutdown(fd, Sockets.SHUT_WR);
            shutDown = true;
        }
        conn.flush(now);
        if (conn.state() == TcpConnection.State.CLOSED) return;
        if (conn.state() == TcpConnection.State.TIME_WAIT && ring.isEmpty() && shutDown) {
            // Both directions are finished on the host side: free the descriptor now rather than
            // hold it through TIME_WAIT (a busy guest closes thousands of connections a second).
            closeSocket();
            loop.schedule(timer, conn.deadline());
            return;
        }
        int want = 0;
        if (connecting) want = Epoll.OUT;
        else {
            if (conn.readyForHostData()) want |= Epoll.IN;
            if (!ring.isEmpty()) want |= Epoll.OUT;
        }
        setInterest(want);
        loop.schedule(timer, conn.deadline());
    }

    /** Registers only for events that can make progress; with none, leaves epoll so a hangup cannot spin. */
    private void setInterest(int events) {
        if (events == interest) return;
        if (interest == 0) loop.register(fd, events, this);
        else if (events == 0) loop.unregister(fd);
        else loop.modify(fd, events);
        interest = events;
    }

    /** Shutdown of the whole instance: the host peer and the guest both see a reset. */
    void abort() {
        if (!socketClosed) sockets.setLingerZero(fd);
        conn.hostReset();
    }

    @Override
    public void closed(boolean reset) {
        connectEnded();
        if (reset && !socketClosed) sockets.setLingerZero(fd);
        closeSocket();
        loop.schedule(timer, Long.MAX_VALUE);
        if (nameserverTimer != null) loop.schedule(nameserverTimer, Long.MAX_VALUE);
        nat.remove(this, reset);
    }

    private void closeSocket() {
        if (socketClosed) return;
        socketClosed = true;
        if (interest != 0) loop.forget(fd); // closing the descriptor takes it out of epoll
        interest = 0;
        sockets.close(fd);
    }
}
