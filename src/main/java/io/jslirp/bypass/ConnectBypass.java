package io.jslirp.bypass;

import io.jslirp.loop.Reactor;
import io.jslirp.nat.Destinations;
import io.jslirp.nat.Family;
import io.jslirp.stack.Counters;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.SeccompNotify;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

import io.jslirp.flow.FlowStatus;
import io.jslirp.sys.SockDiag;

/**
 * The socket bypass's supervisor, on the loop's thread: each connect() of the command's that the
 * filter holds ({@link io.jslirp.sys.Seccomp#installConnectListener}) either becomes a host socket
 * put in the command's place, or goes on through the namespace, and so through the stack, as if
 * nothing had held it.
 *
 * <h2>Theory of operation</h2>
 *
 * <p>For a held connect(fd, addr, len): read the address from the caller's memory (once: what is
 * decided is what is connected, so no later change of that memory can take the connection
 * elsewhere), check the notification is still waiting (the thread number is then still the
 * caller's), and decide as for the guest's SYN ({@link Destinations}): only a connection the stack
 * would make to a host address is taken over. The namespace's own addresses (loopback, the
 * unspecified, multicast and link-local ones, those of the virtual network), the DNS address,
 * refusals and everything else go on (the stack answers them as ever). Then take a copy of the
 * caller's socket (pidfd_getfd): only an unbound TCP socket of the address's family is taken over,
 * its TCP_NODELAY, SO_KEEPALIVE and buffer sizes (where they differ from a new socket's in the
 * namespace) carried to a new host socket, which connects to the address decided (from the
 * outbound address, if one is set). A non-blocking caller gets the host socket in place of its
 * own at once and EINPROGRESS; a blocking one waits, without the loop waiting, until the connect
 * completes: then the socket in place and 0, or the host's error with its own socket untouched.
 *
 * <p>What a bypassed connection shows differently: its local address is the host's; it is not a
 * flow of the table, so the guest's capture and the flow limits do not see it. The socket put in
 * place is not close-on-exec (the caller's flag cannot be read without /proc): a program that
 * execs after connecting passes it on.
 */
public final class ConnectBypass {
    /** Connects of blocking callers waiting at once, at most; beyond, they go through the stack. */
    static final int MAX_WAITING = 1024;
    /** Filters' listeners served at once, at most (a container's first process and each exec bring one). */
    static final int MAX_LISTENERS = 1024;
    private static final int SO_KEEPALIVE = 9, SO_PROTOCOL = 38, SO_DOMAIN = 39;
    /** TCP_INFO, whose first byte is the connection's state; the state of a connect still waiting for its SYN-ACK. */
    private static final int TCP_INFO = 11, TCP_SYN_SENT = 2;
    /** include/net/tcp_states.h's names, by number. */
    private static final String[] STATES = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
            "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "?"};

    /** A new socket's buffer sizes in the command's namespace, as getsockopt reports them: those the caller's keep are not carried. */
    public record Defaults(int sendBuffer, int receiveBuffer) {}

    private final Reactor loop;
    private final Destinations destinations;
    private final Family ipv4, ipv6;
    private final AddressBook addresses;
    private final Counters counters;
    private final Defaults defaults;
    private final MemorySegment address = Arena.ofAuto().allocate(32, 8);
    /** The address read: hi, lo (IPv4 mapped), port. */
    private final long[] dialled = new long[3];
    /** Blocking callers' connects in progress, by host descriptor. */
    private final Map<Integer, Waiting> waiting = new HashMap<>();

    /** A blocking caller's connect in progress (the map's key is its host socket): its listener and notification, the caller's descriptor number and thread. */
    private record Waiting(SeccompNotify listener, long notification, int target, Placed placed, int thread) {}


    /** A connection put in place, for the status report: what the command dialled (hi, lo as {@link AddressBook} has them; port), and since when. */
    private record Placed(long hi, long lo, int port, long since) {}

    /**
     * The connections put in place that may still be open, by their host socket's cookie
     * (SO_COOKIE), by which a dump of sock_diag finds them while they live; swept of those gone
     * when it doubles (from 1,024), at most once a second unless it reaches {@link #MAX_PLACED}:
     * a sweep is a dump of every TCP socket of the host, whose cost grows with the host's
     * connections (the kernel walks its whole table, TIME_WAIT entries too), and at thousands of
     * connections a second a sweep every 1,024 of them took a tenth of the bypass's CPU.
     */
    private final Map<Long, Placed> placed = new HashMap<>();
    private static final int SWEEP_FLOOR = 1024;
    /** Connections the map holds before a sweep comes sooner than a second after the last. */
    private static final int MAX_PLACED = 1 << 16;
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private long lastSweep = Long.MIN_VALUE / 2;
    private int sweepAt = SWEEP_FLOOR;
    /** Opened when first needed, on the loop's thread (so in the host's network namespace). */
    private SockDiag diag;
    private int listeners;

    /** A supervisor on loop, of no listener yet ({@link #serve}); ipv6 is null without IPv6. */
    public ConnectBypass(Reactor loop, Destinations destinations, Family ipv4, Family ipv6, Counters counters, Defaults defaults) {
        this.loop = loop;
        this.destinations = destinations;
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
        this.addresses = ipv4.addresses();
        this.counters = counters;
        this.defaults = defaults;
    }

    /**
     * Serves notify's notifications from now on, until its filter has no process left (the
     * listener then reports a hang-up, and is closed), or it fails. IllegalStateException (notify
     * not taken: the caller closes it) beyond {@link #MAX_LISTENERS} listeners, or where the loop
     * cannot watch it.
     */
    public void serve(SeccompNotify notify) {
        if (listeners >= MAX_LISTENERS) throw new IllegalStateException("more than " + MAX_LISTENERS + " filters served at once");
        try {
            loop.register(notify.fd(), Epoll.IN, events -> receive(notify, events));
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot watch it: " + e.getMessage(), e);
        }
        listeners++;
    }

    private void receive(SeccompNotify notify, int events) {
        if ((events & Epoll.IN) == 0) { // a hang-up alone: no process is left under its filter
            stopServing(notify);
            return;
        }
        int r = notify.receive();
        if (r == -Errno.ENOENT || r == -Errno.EINTR || r == -Errno.EAGAIN) return; // its caller is gone: nothing to answer
        if (r < 0) {
            Log.warn("socket bypass: cannot read a notification: " + Errno.describe(-r) + "; the bypass stops for those processes");
            stopServing(notify);
            return;
        }
        long id = notify.id();
        try {
            handle(notify, id, notify.tid(), (int) notify.arg(0), notify.arg(1), (int) notify.arg(2));
        } catch (RuntimeException e) {
            Log.warn("socket bypass: " + e.getMessage());
            pass(notify, id);
        }
    }

    private void handle(SeccompNotify notify, long id, int tid, int fd, long addressPointer, int length) {
        if (length != 16 && length != 28 || waiting.size() >= MAX_WAITING) {
            pass(notify, id);
            return;
        }
        // Read once; the caller's memory may change after, but what is decided is what is connected.
        if (notify.read(tid, addressPointer, address, length) != length || !notify.valid(id)) {
            pass(notify, id); // unreadable: the kernel reads it again and answers as it would have (EFAULT)
            return;
        }
        int af = Sockets.readSockaddr(address, length, dialled);
        boolean v6 = af == Sockets.AF_INET6;
        long hi = dialled[0], lo = dialled[1];
        int port = (int) dialled[2];
        if (af < 0 || v6 && ipv6 == null || port == 0 || inNamespace(v6, hi, lo)) {
            pass(notify, id);
            return;
        }
        Family family = v6 ? ipv6 : ipv4;
        int destination = addresses.acquire(hi, lo);
        try {
            long decision = destinations.decide(family, Ipv4.PROTO_TCP, destination, port);
            if (Destinations.what(decision) != Destinations.HOST) {
                pass(notify, id);
                return;
            }
            takeOver(notify, id, tid, fd, v6, family, Destinations.value(decision), port, hi, lo);
        } finally {
            addresses.release(destination);
        }
    }

    /** Loopback, unspecified, multicast, IPv4 broadcast and IPv6 link-local: the namespace's own business. */
    private static boolean inNamespace(boolean v6, long hi, long lo) {
        if (!v6) {
            int a = (int) lo;
            int first = a >>> 24;
            return first == 127 || first == 0 || first >= 224;
        }
        if (hi == 0 && (lo == 0 || lo == 1)) return true;
        if (hi == 0 && (lo >>> 32) == 0xffff) return true; // IPv4-mapped: the namespace's kernel decides
        int top = (int) (hi >>> 48);
        return (top & 0xffc0) == 0xfe80 || (top & 0xff00) == 0xff00;
    }

    /** Stops serving notify and closes it, its waiting connects abandoned first. */
    private void stopServing(SeccompNotify notify) {
        for (Map.Entry<Integer, Waiting> w : java.util.List.copyOf(waiting.entrySet())) {
            if (w.getValue().listener() == notify) abandoned(w.getKey());
        }
        loop.unregister(notify.fd());
        notify.close();
        listeners--;
    }

    /** Takes the caller's connect to hi, lo:port over: a host socket to target:port in place of fd. */
    private void takeOver(SeccompNotify notify, long id, int tid, int fd, boolean v6, Family family, int target, int port, long hi, long lo) {
        int thread = SeccompNotify.openThread(tid);
        if (thread < 0) {
            pass(notify, id);
            return;
        }
        int theirs = SeccompNotify.take(thread, fd);
        if (theirs < 0) {
            Libc.close(thread);
            pass(notify, id);
            return;
        }
        int host = -1;
        try {
            if (!unboundTcp(theirs, v6)) {
                pass(notify, id);
                return;
            }
            host = family.tcpSocket();
            if (host < 0) {
                pass(notify, id);
                return;
            }
            carryOptions(theirs, host);
            boolean nonBlocking = (Libc.flags(theirs) & Libc.O_NONBLOCK) != 0;
            int c = family.connect(host, target, port);
            Placed p = new Placed(hi, lo, port, loop.clock().now());
            if (c != 0 && c != -Errno.EINPROGRESS) {
                fail(notify, id, -c);
                return;
            }
            if (nonBlocking) {
                place(notify, id, host, fd, c == 0 ? 0 : Errno.EINPROGRESS, p);
            } else if (c == 0 || state(host) != TCP_SYN_SENT) {
                // done already (the host's loopback answers within the call): no wait for the loop
                int error = c == 0 ? 0 : Sockets.soError(host);
                if (error != 0) {
                    fail(notify, id, error);
                    return;
                }
                Libc.setBlocking(host);
                place(notify, id, host, fd, 0, p);
            } else {
                waiting.put(host, new Waiting(notify, id, fd, p, thread));
                int h = host;
                loop.register(host, Epoll.OUT, events -> connected(h));
                loop.register(thread, Epoll.IN, events -> abandoned(h)); // the caller killed while it waits
                host = thread = -1; // kept until the connect completes
            }
        } finally {
            Libc.close(theirs);
            if (host >= 0) Libc.close(host);
            if (thread >= 0) Libc.close(thread);
        }
    }

    /** The thread whose connect waited has ended (killed): its host socket goes, and nothing is answered. */
    private void abandoned(int host) {
        Waiting w = waiting.remove(host);
        if (w == null) return;
        loop.unregister(host);
        loop.unregister(w.thread());
        Libc.close(w.thread());
        Libc.close(host);
        counters.bypassFailed++;
    }

    private void connected(int host) {
        Waiting w = waiting.remove(host);
        loop.unregister(host);
        if (w == null) {
            Libc.close(host);
            return;
        }
        loop.unregister(w.thread());
        Libc.close(w.thread());
        int error = Sockets.soError(host);
        if (error != 0) {
            fail(w.listener(), w.notification(), error);
        } else {
            Libc.setBlocking(host);
            place(w.listener(), w.notification(), host, w.target(), 0, w.placed());
        }
        Libc.close(host);
    }

    /** The host socket in place of the caller's descriptor, and the call answered with errno (0: success). */
    private void place(SeccompNotify notify, long id, int host, int target, int errno, Placed p) {
        long cookie = Sockets.cookie(host);
        int r = notify.replace(id, host, target, false);
        if (r == -Errno.ENOENT) return; // the caller is gone (killed while it waited): nothing to answer
        if (r < 0) {
            Log.debug(() -> "socket bypass: cannot put the socket in place: " + Errno.describe(-r));
            pass(notify, id); // the namespace's kernel makes the connection then, through the stack
            return;
        }
        counters.bypassed++;
        notify.answer(id, 0, errno);
        if (sweepAt != Integer.MAX_VALUE && cookie != 0) placed.put(cookie, p);
        if (placed.size() >= sweepAt && (p.since() - lastSweep >= SWEEP_INTERVAL_NANOS || placed.size() >= MAX_PLACED)) {
            lastSweep = p.since();
            try {
                forgetClosed();
                sweepAt = Math.max(SWEEP_FLOOR, 2 * placed.size());
            } catch (RuntimeException e) {
                Log.warn("socket bypass: the status report stops listing bypassed connections (" + e.getMessage() + ")");
                placed.clear();
                sweepAt = Integer.MAX_VALUE;
            }
        }
    }

    /**
     * The bypassed connections still open, for the status report (kind "tcp-bypass"): the guest's
     * end is the host socket's local one (a bypassed connection has no other), the remote end what
     * the command dialled, the host end where it goes; bytes and queues from the kernel's tcp_info.
     */
    public void flows(Consumer<FlowStatus> sink) {
        if (placed.isEmpty()) return;
        long now = loop.clock().now();
        Map<Long, Placed> open = new HashMap<>();
        openSockets(t -> {
            Placed p = placed.get(t.cookie());
            if (p == null) return;
            open.put(t.cookie(), p);
            sink.accept(new FlowStatus("tcp-bypass", "tcp", STATES[Math.min(t.state(), STATES.length - 1)], false,
                    AddressBook.format(t.localHi(), t.localLo()), t.localPort(), AddressBook.format(p.hi(), p.lo()), p.port(),
                    AddressBook.format(t.remoteHi(), t.remoteLo()), t.remotePort(),
                    t.bytesAcked(), t.bytesReceived(), t.sendQueue(), t.receiveQueue(), now - p.since()));
        });
        placed.keySet().retainAll(open.keySet());
    }

    /** Drops the connections closed since. */
    private void forgetClosed() {
        java.util.Set<Long> open = new java.util.HashSet<>();
        openSockets(t -> open.add(t.cookie()));
        placed.keySet().retainAll(open);
    }

    /** The host's open TCP sockets (sock_diag, in the loop thread's namespace: the host's). */
    private void openSockets(Consumer<SockDiag.TcpSocket> sink) {
        if (diag == null) diag = SockDiag.open();
        diag.openTcp(sink);
    }

    private void fail(SeccompNotify notify, long id, int errno) {
        counters.bypassFailed++;
        notify.answer(id, 0, errno);
    }

    private void pass(SeccompNotify notify, long id) {
        counters.bypassPassed++;
        notify.pass(id);
    }

    /** The TCP state of fd (tcpi_state, the first byte of struct tcp_info), or -errno. */
    private static int state(int fd) {
        int v = Sockets.getInt(fd, Sockets.IPPROTO_TCP, TCP_INFO);
        return v < 0 && v > -4096 ? v : v & 0xff;
    }

    private static boolean unboundTcp(int fd, boolean v6) {
        return Sockets.getInt(fd, Sockets.SOL_SOCKET, SO_DOMAIN) == (v6 ? Sockets.AF_INET6 : Sockets.AF_INET)
                && Sockets.getInt(fd, Sockets.SOL_SOCKET, SO_PROTOCOL) == Sockets.IPPROTO_TCP // which is a stream's only
                && Sockets.localPort(fd) == 0;
    }

    /** TCP_NODELAY and SO_KEEPALIVE where the caller set them (a new socket has neither); buffer sizes it changed. */
    private void carryOptions(int from, int to) {
        if (Sockets.getInt(from, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY) > 0) Sockets.setInt(to, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        if (Sockets.getInt(from, Sockets.SOL_SOCKET, SO_KEEPALIVE) > 0) Sockets.setInt(to, Sockets.SOL_SOCKET, SO_KEEPALIVE, 1);
        int snd = Sockets.getInt(from, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF), rcv = Sockets.getInt(from, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF);
        if (snd > 0 && snd != defaults.sendBuffer()) Sockets.setInt(to, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, snd / 2); // getsockopt reports twice what was set
        if (rcv > 0 && rcv != defaults.receiveBuffer()) Sockets.setInt(to, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, rcv / 2);
    }
}
