package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Kind;
import io.jslirp.policy.Nameserver;
import io.jslirp.policy.NameserverTries;
import io.jslirp.policy.Nameservers;

import io.jslirp.loop.Clock;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Pacing;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.HostSink;
import io.jslirp.tcp.Outcome;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.wire.TcpSegment;
import io.jslirp.util.AddressBook;
import io.jslirp.util.Log;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;

/**
 * One guest TCP connection re-originated as a host socket. Bytes toward the guest stay in the
 * socket until the guest acknowledges them (its {@link SocketStream}); guest bytes are written at
 * once or at the flush, and the socket's free send space, measured after each write and when it
 * drains, is the window the connection offers the guest. The socket is registered once, edge-
 * triggered (new data, the peer's end, space after the socket was full), since bytes waiting for
 * the guest's ACK keep it readable. Its methods return what the connection left to do (an
 * {@link Outcome}) to its owner, the {@link TcpNat}, which settles it: the flow never calls the
 * NAT back; only the loop's events and timers reach the NAT through it.
 */
final class TcpFlow extends Flow implements Handler, HostSink {
    /** Where the loop's events and timers for this flow go. */
    private final TcpNat owner;
    final Family family;
    final TcpConnection conn;
    private final Reactor loop;
    private final Clock clock;
    private final HostSockets sockets;
    /** The host socket; a connection to the DNS address replaces it while it moves on to the next nameserver. */
    private int fd;
    /** No host socket (closed, or none yet): the connection lingers in TIME_WAIT toward the guest only, or waits for one. */
    private boolean socketClosed;
    private final Timer timer;
    private boolean connecting;
    private boolean shutDown;
    private int interest;
    /** Whether the owner listed it for the end-of-iteration flush. */
    private boolean dirty;
    /** Bytes the current guest segment wrote to the host socket at once. */
    private int wroteDirectly;
    /** For a connection to the DNS address: its way through the nameservers, and how long one may take to connect; else null. */
    private NameserverTries nameservers;
    private Timer nameserverTimer;
    /**
     * The host socket's peer for the status report: the connect target (a handle) and its port;
     * for a connection to the DNS address, the nameserver being tried; for a forward, its host client.
     */
    private final String forwardClient;
    private Nameserver hostNameserver;
    /** The host socket's receive queue, where the bytes toward the guest wait. */
    private final SocketStream stream;
    /** The socket wrote, or signalled space: its free space is measured at the flush, where that can narrow the window. */
    private boolean measureRoom;
    /**
     * What the host socket takes at least, without asking it: its room when last measured, less
     * what was written since (its peer's ACKs only add room). While that alone fills the window the
     * guest may be offered ({@link TcpConnection#windowNarrowedBy}), the flush measures nothing
     * (two system calls): an exchange of small requests, or a download, then makes none for it.
     */
    private long roomAtLeast;
    /** Whether a small request whose answer the guest awaits went to the host (an interactive exchange) since {@link #takeRequested}. */
    private boolean requested;
    /** From the connect on: its end, then new data, the peer's end and space after the socket was full, edge-triggered. */
    private static final int STREAM_EVENTS = Epoll.IN | Epoll.OUT | Epoll.RDHUP | Epoll.ET;

    /**
     * A flow for conn over the host socket of peer (see {@link HostPeer}): for a forwarded port's
     * client connected already, else its connect is still to be made ({@link #connect}).
     */
    TcpFlow(TcpNat owner, Family family, Reactor loop, TcpConnection conn, SocketStream stream, HostPeer peer) {
        super(Kind.TCP, peer.forwardClient() != null, conn.guestAddress, conn.guestPort, conn.remoteAddress, conn.remotePort);
        this.owner = owner;
        this.family = family;
        this.conn = conn;
        conn.attach(this);
        this.stream = stream;
        this.loop = loop;
        this.clock = loop.clock();
        this.sockets = family.sockets();
        this.fd = peer.fd();
        this.socketClosed = fd < 0;
        this.hostAddress = peer.address();
        this.hostPort = peer.port();
        this.forwardClient = peer.forwardClient();
        this.connecting = forwardClient == null;
        if (!connecting) stream.socket(fd);
        this.measureRoom = true;
        this.timer = new Timer(() -> owner.timer(this));
    }

    /** Whether its host socket is gone while the connection lingers toward the guest (TIME_WAIT). */
    boolean lingering() {
        return socketClosed && !connecting && conn.state() != TcpConnection.State.CLOSED;
    }

    /** Whether the host connect is still in progress (a half-open connection). */
    boolean connecting() {
        return connecting;
    }

    /** Marks the flow for the flush; true when it was not marked yet. */
    boolean markDirty() {
        if (dirty) return false;
        dirty = true;
        return true;
    }

    /** Whether a small request the guest awaits the answer to went to the host since the last call. */
    boolean takeRequested() {
        boolean r = requested;
        requested = false;
        return r;
    }

    /** Whether it is marked for the flush. */
    boolean dirty() {
        return dirty;
    }

    /** Follows up the non-blocking connect that returned r ({@link Family#connect}); the connection answers the guest when it completes. */
    Outcome connect(int r) {
        if (r == 0) return connected();
        if (r == -Errno.EINPROGRESS) {
            setInterest(STREAM_EVENTS);
            return Outcome.NOTHING;
        }
        return connectFailed(-r);
    }

    /**
     * Connects to the nameservers of resolv.conf in turn, the preferred one first: a connect error,
     * or no answer within {@link Nameservers#ATTEMPT_TIMEOUT_NANOS}, moves on to the next one.
     */
    Outcome connectNameservers(NameserverTries tries) {
        nameservers = tries;
        nameserverTimer = new Timer(() -> owner.nameserverSilent(this));
        return connectNextNameserver(Errno.ECONNREFUSED);
    }

    /** The nameserver being tried did not answer the connect in time. */
    Outcome nameserverSilent() {
        return connecting ? connectFailed(Errno.ETIMEDOUT) : Outcome.NOTHING;
    }

    /** Connects to the next nameserver not tried yet; after the last, fails with errno (the latest error). */
    private Outcome connectNextNameserver(int errno) {
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
            hostPort = Nameservers.PORT;
            int r = ns.connect(sockets, fd);
            if (r == 0) return connected();
            if (r == -Errno.EINPROGRESS) {
                setInterest(STREAM_EVENTS);
                loop.schedule(nameserverTimer, clock.now() + Nameservers.ATTEMPT_TIMEOUT_NANOS);
                return Outcome.NOTHING;
            }
            errno = -r;
            int failed = errno;
            Log.debug(() -> describe() + " nameserver " + nameservers.current() + ": " + Errno.describe(failed));
        }
        return connectFailed(errno);
    }

    /**
     * Tells the guest why its connection cannot be made, as a router would: a refused connect is
     * reset; an unreachable network or host, a timeout or a host firewall's refusal come back as
     * ICMP destination unreachable (the guest's connect then fails with ENETUNREACH or
     * EHOSTUNREACH, as it would on a real network).
     */
    private Outcome connectFailed(int errno) {
        if (nameservers != null && !nameservers.exhausted()) return connectNextNameserver(errno);
        Log.debug(() -> describe() + " host connect failed: " + Errno.describe(errno));
        int code = Unreachable.code(errno, false);
        if (code < 0) return conn.hostRefused();
        long tcpHead = ((long) conn.guestPort << 48) | ((long) conn.remotePort << 32) | (conn.guestInitialSequence() & 0xffffffffL);
        family.sendUnreachable(code, Ipv4.PROTO_TCP, conn.guestAddress, conn.remoteAddress, tcpHead);
        return conn.hostUnreachable();
    }

    private Outcome connected() {
        connecting = false;
        if (nameservers != null) {
            loop.schedule(nameserverTimer, Long.MAX_VALUE);
            nameservers.answered();
        }
        stream.socket(fd);
        setInterest(STREAM_EVENTS);
        room(sockets.emptySendSpace(fd)); // the SYN-ACK offers it; nothing was written yet, so the send queue is empty
        return conn.hostConnected(clock.now());
    }

    /** The connection for logs. */
    String describe() {
        return "tcp " + family.format(conn.guestAddress) + ":" + conn.guestPort + " -> " + family.format(conn.remoteAddress) + ":"
                + conn.remotePort + " " + conn.state();
    }

    @Override
    public String detail() {
        return conn.state().name();
    }

    /** The host socket's peer: the connect target; the nameserver being tried; or a forward's host client. */
    @Override
    public String hostAddress(AddressBook addresses) {
        return hostNameserver != null ? (hostNameserver.isIpv6() ? "[" + hostNameserver + "]" : hostNameserver.toString())
                : forwardClient != null ? forwardClient : super.hostAddress(addresses);
    }

    @Override
    public long toGuest() {
        return conn.hostBytesRead();
    }

    @Override
    public long queuedToHost() {
        return queued(false);
    }

    @Override
    public long queuedToGuest() {
        return queued(true);
    }

    /** Bytes in the host socket's receive queue (toward the guest), or held for and in its send queue (toward the host). */
    private long queued(boolean toGuest) {
        long held = toGuest ? -stream.pendingDrop() : conn.toHost().size();
        if (connecting || socketClosed) return Math.max(held, 0);
        int inSocket = sockets.queued(fd, toGuest);
        return Math.max(held + Math.max(inSocket, 0), 0);
    }

    /**
     * The JVM option (the launcher passes it) that makes {@link #segment} a compilation of its own,
     * a boundary between a frame's way in (link, IP, the flow's lookup: Stack.receive's compilation)
     * and the TCP flow it reaches. Without it, whether C2 compiled the two apart or as one followed
     * from the order the methods got hot in; as one, its scratch memory peaked at 19-23 MB while a
     * fresh instance took its first burst of connections, against 8-10 MB for each part
     * (docs/benchmarks.md, "Headers in wide words"). The price is one ordinary call per segment;
     * nothing it passes is allocated for the call (bench/alloc.sh).
     */
    static final String DONT_INLINE = "dontinline,io.jslirp.nat.TcpFlow::segment";

    /**
     * A segment from the guest (read once): the connection takes it, and writes a large in-order
     * payload (or an iteration's first) straight to the host socket.
     */
    Outcome segment(TcpSegment seg, long now) {
        wroteDirectly = 0;
        boolean finished = conn.guestFinished();
        Outcome r = conn.onSegment(seg, this, now);
        if (Pacing.isRequest(wroteDirectly)) expectAnswer();
        else if (!finished && conn.guestFinished()) loop.pacing().hostTurn(); // its end goes to the host at the flush
        return r;
    }

    /** The connection's direct write of a guest segment's in-order bytes: to the host socket. */
    @Override
    public int write(MemorySegment data, long offset, int length) {
        int n = writeToHost(data, offset, length);
        wroteDirectly = n;
        return n;
    }

    /**
     * After a small write to the host: where the guest now awaits the answer, its frame left it
     * waiting for the host ({@link Pacing#hostTurn}). On a connection the host answered before, it
     * is an interactive request the loop may poll for. Not a connection's first: one connection per
     * request (crr) made the loop poll in vain while the answering peer waited for the core, and
     * fewer connections a second were made.
     */
    private void expectAnswer() {
        if (!conn.awaitingHostData()) return;
        loop.pacing().hostTurn();
        if (conn.hostBytesRead() > 0 && loop.expectAnswer(fd)) requested = true;
    }

    /** How many of length bytes at offset the host socket takes now: none while it connects, is gone or shut, or is full. */
    private int writeToHost(MemorySegment data, long offset, int length) {
        if (connecting || socketClosed || shutDown) return 0;
        int n = sockets.write(fd, data, offset, length);
        if (n <= 0) return 0; // a failure is met by the next flush's write
        wrote(n, length);
        return n;
    }

    /** n of attempted bytes went to the host socket: so much less room in it, or none where it took fewer (it is full). */
    private void wrote(long n, long attempted) {
        fromGuest += n;
        roomAtLeast = n < attempted ? 0 : roomAtLeast - n;
        measureRoom = true;
    }

    /** The host socket's free space, for the window offered to the guest. */
    private void measureRoom() {
        room(sockets.sendSpace(fd));
    }

    /** The host socket's free space as measured (or -errno: then nothing changes). */
    private void room(int room) {
        if (room < 0) return;
        roomAtLeast = room;
        conn.hostRoom(room);
    }

    /** The loop's events for the host socket go to the owner, which settles what they lead to. */
    @Override
    public void onEvents(int events) {
        owner.hostEvents(this, events);
    }

    /**
     * The host socket's events: the connect's end, data, end of stream, space, or an error; the
     * flush acts on them. The socket is registered for all of them from its connect on, so the
     * event that ends the connect also brings what arrived with it (edge-triggered, nothing
     * reports it again). A connect that failed reports an error or a hangup (the socket is closed
     * then); one that succeeded only its room: SO_ERROR is read only in the first case.
     */
    Outcome hostEvents(int events) {
        if (connecting) {
            boolean maybeFailed = (events & (Epoll.ERR | Epoll.HUP)) != 0 || (events & Epoll.OUT) == 0;
            int err = maybeFailed ? sockets.soError(fd) : 0;
            if (err != 0) return connectFailed(err); // a connection to the DNS address may go on to the next nameserver
            Outcome r = connected();
            streamEvents(events);
            return r;
        }
        if ((events & Epoll.ERR) != 0 && sockets.soError(fd) != 0) return conn.hostReset();
        streamEvents(events);
        return Outcome.NOTHING;
    }

    /** Data, the peer's end, or space: flags the connection's flush acts on. */
    private void streamEvents(int events) {
        if ((events & (Epoll.RDHUP | Epoll.HUP)) != 0) conn.hostShutdown();
        else if ((events & Epoll.IN) != 0) conn.hostReadable();
        if ((events & Epoll.OUT) != 0) measureRoom = true;
    }

    /** The connection's timer. */
    Outcome onTimer() {
        return conn.onTimer(clock.now());
    }

    /**
     * End of the loop iteration: what the guest acknowledged leaves the host socket, one write
     * toward the host, the socket's free space measured, then the segments toward the guest (at
     * most a short burst with shortBurst: {@link TcpConnection#flush(long, boolean)}).
     */
    Outcome flush(long now, boolean shortBurst) {
        dirty = false;
        if (conn.state() == TcpConnection.State.CLOSED) return Outcome.NOTHING;
        RingBuffer ring = conn.toHost();
        if (!connecting && !socketClosed) {
            int dropped = stream.drop();
            if (dropped > 0) loop.moved(dropped);
            else if (dropped < 0) return conn.hostReset();
            if (!ring.isEmpty()) {
                long n = sockets.writev2(fd, ring.memory(), ring.readOffset(), ring.readSpan(), ring.memory(), 0, ring.readSpan2());
                if (n > 0) {
                    wrote(n, ring.size());
                    loop.moved((int) n);
                    conn.deliveredToHost((int) n);
                    if (Pacing.isRequest(n)) expectAnswer();
                } else if (n != -Errno.EAGAIN) {
                    return conn.hostReset();
                }
            }
            if (measureRoom) {
                measureRoom = false;
                if (conn.windowNarrowedBy(roomAtLeast)) measureRoom();
                else conn.hostRoom(roomAtLeast);
            }
        }
        if (conn.guestFinished() && ring.isEmpty() && !shutDown && !connecting && !socketClosed) {
            sockets.shutdown(fd, Sockets.SHUT_WR);
            shutDown = true;
        }
        Outcome r = conn.flush(now, shortBurst);
        if (r.closed()) return r;
        if (conn.state() == TcpConnection.State.TIME_WAIT && ring.isEmpty() && shutDown) {
            // Both directions are finished on the host side: free the descriptor now rather than
            // hold it through TIME_WAIT (a busy guest closes thousands of connections a second).
            closeSocket();
            loop.schedule(timer, conn.deadline());
            return r;
        }
        if (!socketClosed) setInterest(STREAM_EVENTS);
        loop.schedule(timer, conn.deadline());
        return r;
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
    Outcome abort() {
        if (!socketClosed) sockets.setLingerZero(fd);
        return conn.hostReset();
    }

    /** The connection is over: the host socket goes (with a reset for the host peer when reset), and so do the timers. */
    void close(boolean reset) {
        connecting = false;
        if (reset && !socketClosed) sockets.setLingerZero(fd);
        closeSocket();
        loop.schedule(timer, Long.MAX_VALUE);
        if (nameserverTimer != null) loop.schedule(nameserverTimer, Long.MAX_VALUE);
    }

    private void closeSocket() {
        if (socketClosed) return;
        socketClosed = true;
        if (interest != 0) loop.forget(fd); // closing the descriptor takes it out of epoll
        interest = 0;
        sockets.close(fd);
    }
}
