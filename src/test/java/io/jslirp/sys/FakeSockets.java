package io.jslirp.sys;

import io.jslirp.loop.VirtualLoop;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Host sockets for tests, with no kernel behind them: each socket records what jslirp did with it
 * (its connect target, what it wrote or sent, its options, whether it was reset or shut down),
 * and the test plays the host peer (completes or refuses a connect, sends data, closes, resets,
 * answers a datagram, reports an ICMP error, brings a client to a listener). Their readiness
 * drives a {@link VirtualLoop}. Descriptors count up from 1000 and are never reused.
 */
public final class FakeSockets implements HostSockets, VirtualLoop.Readiness {
    public enum Kind { TCP, UDP, PING }

    public enum Connect { NONE, IN_PROGRESS, CONNECTED, FAILED }

    /** A datagram: its payload and the other end's address (hi, lo, port). */
    public record Datagram(byte[] payload, long hi, long lo, int port) {}

    /** One fake socket, and the host peer behind it as the test plays it. */
    public final class Socket {
        public final int fd;
        public final Kind kind;
        public final boolean ipv6;
        public long boundHi, boundLo;
        public int boundPort = -1;
        public long peerHi, peerLo;
        public int peerPort = -1, scopeId;
        public Connect connect = Connect.NONE;
        public boolean listening, closed, lingerZero, shutWrite;
        /** Options set (level << 16 | option to value). */
        public final Map<Integer, Integer> options = new HashMap<>();
        private int pendingError;
        // a stream's two directions
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private final ArrayDeque<Byte> toRead = new ArrayDeque<>();
        private boolean peerFinished;
        private int readError;
        /** Counts the peer's events (data, end, reset, the connect's outcome): an edge for edge-triggered interest. */
        long generation;
        /** How many more bytes the socket takes before EAGAIN. */
        public int room = 1 << 30;
        /** Times its free space was asked for ({@link #sendSpace}: two system calls on a real socket). */
        public int roomAsked;
        /** Times its pending error was read ({@link #soError}). */
        public int errorsAsked;
        // datagrams
        public final List<Datagram> sent = new ArrayList<>();
        private final ArrayDeque<Datagram> incoming = new ArrayDeque<>();
        private final ArrayDeque<Integer> errors = new ArrayDeque<>();
        // a listener's clients
        private final ArrayDeque<Socket> clients = new ArrayDeque<>();

        Socket(int fd, Kind kind, boolean ipv6) {
            this.fd = fd;
            this.kind = kind;
            this.ipv6 = ipv6;
        }

        /** The peer accepts the connect in progress. */
        public Socket completeConnect() {
            if (connect != Connect.IN_PROGRESS) throw new IllegalStateException("no connect in progress on " + this);
            connect = Connect.CONNECTED;
            generation++;
            return this;
        }

        /** The connect in progress fails with errno (e.g. ECONNREFUSED, EHOSTUNREACH). */
        public Socket failConnect(int errno) {
            if (connect != Connect.IN_PROGRESS) throw new IllegalStateException("no connect in progress on " + this);
            connect = Connect.FAILED;
            pendingError = errno;
            generation++;
            return this;
        }

        /** The stream's peer sends bytes. */
        public Socket peerSends(byte[] bytes) {
            for (byte b : bytes) toRead.add(b);
            generation++;
            return this;
        }

        /** The stream's peer closes its writing side (jslirp reads end of stream). */
        public Socket peerFinishes() {
            peerFinished = true;
            generation++;
            return this;
        }

        /** The stream's peer resets the connection. */
        public Socket peerResets() {
            readError = Errno.ECONNRESET;
            pendingError = Errno.ECONNRESET;
            generation++;
            return this;
        }

        /** Bytes jslirp wrote to the stream so far. */
        public byte[] written() {
            return written.toByteArray();
        }

        /** Where the next MSG_PEEK starts (SO_PEEK_OFF), or -1 while none is set. */
        private int peekOffset() {
            Integer v = options.get(Sockets.SOL_SOCKET << 16 | Sockets.SO_PEEK_OFF);
            return v == null ? -1 : v;
        }

        /** Bytes the stream's peer sent that jslirp has not read (or dropped) yet. */
        public int unread() {
            return toRead.size();
        }

        /** A datagram arrives from the connected peer (or from hi:lo:port for an unconnected socket). */
        public Socket receive(byte[] payload) {
            incoming.add(new Datagram(payload, peerHi, peerLo, peerPort));
            return this;
        }

        public Socket receiveFrom(long hi, long lo, int port, byte[] payload) {
            incoming.add(new Datagram(payload, hi, lo, port));
            return this;
        }

        /** The host's ICMP error for an earlier datagram: the next read fails with errno. */
        public Socket icmpError(int errno) {
            errors.add(errno);
            return this;
        }

        /** A client at hi:lo:port connects to this listener; its accepted socket. */
        public Socket clientConnects(long hi, long lo, int port) {
            if (!listening) throw new IllegalStateException(this + " is not listening");
            Socket c = open(Kind.TCP, ipv6);
            c.connect = Connect.CONNECTED;
            c.peerHi = hi;
            c.peerLo = lo;
            c.peerPort = port;
            clients.add(c);
            sockets.remove(c.fd); // not open until accepted
            pendingAccept.put(c.fd, c);
            return c;
        }

        int option(int level, int option) {
            return options.getOrDefault(level << 16 | option, 0);
        }

        @Override
        public String toString() {
            return kind + (ipv6 ? "6" : "4") + " fd " + fd + (peerPort >= 0 ? " to port " + peerPort : "") + (closed ? " (closed)" : "");
        }
    }

    private final Map<Integer, Socket> sockets = new HashMap<>();
    private final Map<Integer, Socket> pendingAccept = new HashMap<>();
    private final List<Socket> all = new ArrayList<>();
    private int nextFd = 1000;
    /** -errno for the next new sockets (e.g. EMFILE), 0 for none. */
    public int refuseSockets;
    /** What a TCP connect returns at once: by default -EINPROGRESS, and the test completes or fails it. */
    public ToIntFunction<Socket> connectResult = s -> -Errno.EINPROGRESS;
    /** What a UDP or ping connect returns (e.g. -ENETUNREACH for no route). */
    public ToIntFunction<Socket> datagramConnectResult = s -> 0;
    /** What a bind returns (e.g. -EADDRINUSE). */
    public ToIntFunction<Socket> bindResult = s -> 0;

    /** Every socket made so far, in order, closed ones too. */
    public List<Socket> all() {
        return List.copyOf(all);
    }

    /** The sockets of kind made so far. */
    public List<Socket> of(Kind kind) {
        return all.stream().filter(s -> s.kind == kind).toList();
    }

    /** The latest socket of kind. */
    public Socket last(Kind kind) {
        List<Socket> k = of(kind);
        if (k.isEmpty()) throw new AssertionError("no " + kind + " socket was made");
        return k.getLast();
    }

    /** The open sockets. */
    public int openCount() {
        return sockets.size();
    }

    private Socket open(Kind kind, boolean ipv6) {
        Socket s = new Socket(nextFd++, kind, ipv6);
        sockets.put(s.fd, s);
        all.add(s);
        return s;
    }

    private Socket get(int fd) {
        Socket s = sockets.get(fd);
        if (s == null) throw new IllegalStateException("fd " + fd + " is not an open socket");
        return s;
    }

    private int make(Kind kind, boolean ipv6) {
        if (refuseSockets != 0) return refuseSockets;
        return open(kind, ipv6).fd;
    }

    @Override
    public int tcp(boolean ipv6) {
        return make(Kind.TCP, ipv6);
    }

    @Override
    public int udp(boolean ipv6) {
        return make(Kind.UDP, ipv6);
    }

    @Override
    public int ping(boolean ipv6) {
        return make(Kind.PING, ipv6);
    }

    @Override
    public int connect(int fd, long hi, long lo, int scopeId, int port) {
        Socket s = get(fd);
        s.peerHi = hi;
        s.peerLo = lo;
        s.peerPort = port;
        s.scopeId = scopeId;
        if (s.kind != Kind.TCP) {
            int r = datagramConnectResult.applyAsInt(s);
            if (r == 0) s.connect = Connect.CONNECTED;
            return r;
        }
        int r = connectResult.applyAsInt(s);
        s.connect = r == 0 ? Connect.CONNECTED : r == -Errno.EINPROGRESS ? Connect.IN_PROGRESS : Connect.FAILED;
        return r;
    }

    @Override
    public int bind(int fd, long hi, long lo, int port) {
        Socket s = get(fd);
        int r = bindResult.applyAsInt(s);
        if (r == 0) {
            s.boundHi = hi;
            s.boundLo = lo;
            s.boundPort = port;
        }
        return r;
    }

    @Override
    public int listen(int fd, int backlog) {
        get(fd).listening = true;
        return 0;
    }

    /** What accept answers while not 0 (-errno), as a process out of descriptors does (EMFILE), its clients left waiting. */
    public int acceptError;

    @Override
    public int accept(int fd, long[] peer) {
        Socket s = get(fd);
        if (acceptError != 0 && !s.clients.isEmpty()) return acceptError;
        Socket c = s.clients.poll();
        if (c == null) return -Errno.EAGAIN;
        pendingAccept.remove(c.fd);
        sockets.put(c.fd, c);
        peer[0] = c.peerHi;
        peer[1] = c.peerLo;
        peer[2] = c.peerPort;
        return c.fd;
    }

    @Override
    public int read(int fd, MemorySegment buf, long offset, int length) {
        Socket s = get(fd);
        if (s.kind != Kind.TCP) {
            Datagram d = nextDatagram(s);
            if (d == null) return s.errors.isEmpty() ? -Errno.EAGAIN : -s.errors.poll();
            int n = Math.min(length, d.payload().length);
            MemorySegment.copy(d.payload(), 0, buf, ValueLayout.JAVA_BYTE, offset, n);
            return n;
        }
        if (s.readError != 0) return -s.readError;
        if (s.toRead.isEmpty()) return s.peerFinished ? 0 : -Errno.EAGAIN;
        int n = Math.min(length, s.toRead.size());
        for (int i = 0; i < n; i++) buf.set(ValueLayout.JAVA_BYTE, offset + i, s.toRead.poll());
        return n;
    }

    private static Datagram nextDatagram(Socket s) {
        return s.errors.isEmpty() ? s.incoming.poll() : null;
    }

    @Override
    public int write(int fd, MemorySegment buf, long offset, int length) {
        Socket s = get(fd);
        byte[] bytes = buf.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
        if (s.kind != Kind.TCP) {
            s.sent.add(new Datagram(bytes, s.peerHi, s.peerLo, s.peerPort));
            return length;
        }
        if (s.connect != Connect.CONNECTED) return -Errno.ENOTCONN;
        if (s.readError != 0) return -s.readError;
        if (s.shutWrite) return -Errno.EPIPE;
        int n = Math.min(length, s.room);
        if (n == 0) return -Errno.EAGAIN;
        s.room -= n;
        s.written.write(bytes, 0, n);
        return n;
    }

    /** System calls that sent or received many datagrams (each message served as one write or read). */
    public int sendManyCalls, receiveManyCalls;

    @Override
    public int sendMany(int fd, MessageVector v, int first, int count) {
        sendManyCalls++;
        return HostSockets.super.sendMany(fd, v, first, count);
    }

    @Override
    public int receiveMany(int fd, MessageVector v, int count) {
        receiveManyCalls++;
        return HostSockets.super.receiveMany(fd, v, count);
    }

    @Override
    public int peek(int fd, MemorySegment buf, long offset, int length) {
        Socket s = get(fd);
        if (s.kind != Kind.TCP) throw new UnsupportedOperationException("peek on " + s);
        if (s.readError != 0) return -s.readError;
        int from = Math.max(s.peekOffset(), 0);
        int n = Math.min(length, s.toRead.size() - from);
        if (n <= 0) return s.peerFinished ? 0 : -Errno.EAGAIN;
        int i = 0;
        for (byte b : s.toRead) {
            if (i >= from + n) break;
            if (i >= from) buf.set(ValueLayout.JAVA_BYTE, offset + i - from, b);
            i++;
        }
        if (s.peekOffset() >= 0) s.options.put(Sockets.SOL_SOCKET << 16 | Sockets.SO_PEEK_OFF, from + n);
        return n;
    }

    @Override
    public int peekPast(int fd, MemorySegment skipArea, int skip, MemorySegment buf, long offset, int length) {
        Socket s = get(fd);
        if (s.readError != 0) return -s.readError;
        if (s.toRead.isEmpty() && s.peerFinished) return -1;
        int n = Math.min(length, s.toRead.size() - skip);
        if (n <= 0) return 0;
        int i = 0;
        for (byte b : s.toRead) {
            if (i >= skip + n) break;
            if (i >= skip) buf.set(ValueLayout.JAVA_BYTE, offset + i - skip, b);
            i++;
        }
        return n;
    }

    @Override
    public int discard(int fd, int length) {
        Socket s = get(fd);
        if (s.readError != 0) return -s.readError;
        if (s.toRead.isEmpty()) return s.peerFinished ? 0 : -Errno.EAGAIN;
        int n = Math.min(length, s.toRead.size());
        for (int i = 0; i < n; i++) s.toRead.poll();
        if (s.peekOffset() >= 0) s.options.put(Sockets.SOL_SOCKET << 16 | Sockets.SO_PEEK_OFF, Math.max(s.peekOffset() - n, 0));
        return n;
    }

    @Override
    public int sendSpace(int fd) {
        Socket s = get(fd);
        s.roomAsked++;
        return s.room;
    }

    @Override
    public int queued(int fd, boolean receive) {
        return receive ? get(fd).toRead.size() : 0;
    }


    @Override
    public long writev2(int fd, MemorySegment a, long offsetA, int lengthA, MemorySegment b, long offsetB, int lengthB) {
        int n = write(fd, a, offsetA, lengthA);
        if (n < lengthA || lengthB == 0) return n;
        int m = write(fd, b, offsetB, lengthB);
        return m > 0 ? n + m : n;
    }

    @Override
    public int recvFrom(int fd, MemorySegment buf, long offset, int length, long[] peer) {
        Socket s = get(fd);
        Datagram d = nextDatagram(s);
        if (d == null) return s.errors.isEmpty() ? -Errno.EAGAIN : -s.errors.poll();
        int n = Math.min(length, d.payload().length);
        MemorySegment.copy(d.payload(), 0, buf, ValueLayout.JAVA_BYTE, offset, n);
        peer[0] = d.hi();
        peer[1] = d.lo();
        peer[2] = d.port();
        return n;
    }

    @Override
    public int sendTo(int fd, MemorySegment buf, long offset, int length, long hi, long lo, int port) {
        get(fd).sent.add(new Datagram(buf.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), hi, lo, port));
        return length;
    }

    @Override
    public int soError(int fd) {
        Socket s = get(fd);
        s.errorsAsked++;
        int e = s.pendingError;
        s.pendingError = 0;
        return e;
    }

    /** A kernel before 6.9: SO_PEEK_OFF on a TCP socket is refused (EINVAL). */
    public boolean noPeekOffsets;

    @Override
    public int setInt(int fd, int level, int option, int value) {
        if (noPeekOffsets && level == Sockets.SOL_SOCKET && option == Sockets.SO_PEEK_OFF) return -Errno.EINVAL;
        get(fd).options.put(level << 16 | option, value);
        return 0;
    }

    @Override
    public int setLingerZero(int fd) {
        get(fd).lingerZero = true;
        return 0;
    }

    @Override
    public int shutdown(int fd, int how) {
        if (how == Sockets.SHUT_WR || how == Sockets.SHUT_RDWR) get(fd).shutWrite = true;
        return 0;
    }

    @Override
    public int close(int fd) {
        Socket s = get(fd);
        s.closed = true;
        sockets.remove(fd);
        return 0;
    }

    private static final int IN = Epoll.IN, OUT = Epoll.OUT, ERR = Epoll.ERR, HUP = Epoll.HUP;

    @Override
    public int ready(int fd) {
        Socket s = sockets.get(fd);
        if (s == null) return -1;
        if (s.listening) return s.clients.isEmpty() ? 0 : IN;
        if (s.kind != Kind.TCP) {
            int r = OUT;
            if (!s.incoming.isEmpty()) r |= IN;
            if (!s.errors.isEmpty()) r |= IN | ERR;
            return r;
        }
        return switch (s.connect) {
            case NONE, IN_PROGRESS -> 0;
            case FAILED -> OUT | ERR | HUP;
            case CONNECTED -> {
                int r = 0;
                if (!s.toRead.isEmpty() || s.peerFinished) r |= IN;
                if (s.peerFinished) r |= Epoll.RDHUP;
                if (s.readError != 0) r |= IN | ERR | HUP;
                if (s.room > 0 && !s.shutWrite) r |= OUT;
                if (s.peerFinished && s.shutWrite) r |= HUP;
                yield r;
            }
        };
    }

    @Override
    public long generation(int fd) {
        Socket s = sockets.get(fd);
        return s == null ? 0 : s.generation;
    }

    /** Whether options of s include level/option = value. */
    public static boolean has(Socket s, int level, int option, int value) {
        return s.option(level, option) == value && s.options.containsKey(level << 16 | option);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
