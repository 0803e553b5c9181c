package io.jslirp.sys;

import static io.jslirp.sys.Native.NET_INT;
import static io.jslirp.sys.Native.NET_LONG;
import static io.jslirp.sys.Native.NET_SHORT;
import static io.jslirp.sys.Native.address;
import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.sockaddrIn;
import static io.jslirp.sys.Native.sockaddrIn6;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * IPv4, IPv6 and unix sockets. Every call returns a non-negative result or {@code -errno}, never
 * throws for an OS error, and allocates nothing. The calls ending in 4 take IPv4 addresses as ints
 * in host byte order (10.0.2.2 is {@code 0x0A000202}); the others take either version as two
 * 64-bit halves, IPv4 in its mapped form ::ffff:a.b.c.d ({@link HostSockets}); ports are ints. All sockets are created non-blocking and close-on-exec.
 * Buffers may be heap segments only on non-blocking sockets (see {@link Libc}).
 */
public final class Sockets {
    private Sockets() {}

    public static final int AF_UNIX = 1, AF_INET = 2, AF_INET6 = 10;
    public static final int SOL_SOCKET = 1, IPPROTO_IP = 0, IPPROTO_ICMP = 1, IPPROTO_TCP = 6, IPPROTO_ICMPV6 = 58;
    public static final int SO_REUSEADDR = 2, SO_ERROR = 4, SO_SNDBUF = 7, SO_RCVBUF = 8, SO_LINGER = 13, SO_BINDTODEVICE = 25;
    public static final int TCP_NODELAY = 1, TCP_CORK = 3;
    public static final int IPPROTO_IPV6 = 41, IPV6_V6ONLY = 26;
    public static final int SHUT_WR = 1, SHUT_RDWR = 2;
    public static final int SIOCOUTQ = 0x5411, SIOCINQ = 0x541B;
    public static final int MSG_PEEK = 0x2, MSG_TRUNC = 0x20, MSG_DONTWAIT = 0x40, MSG_NOSIGNAL = 0x4000;
    /** SO_PEEK_OFF: where the next MSG_PEEK starts, which it then advances (TCP since Linux 6.9). */
    public static final int SO_PEEK_OFF = 42;

    private static final int SOCK_STREAM = 1, SOCK_DGRAM = 2;
    private static final int SOCK_NONBLOCK = 0x800, SOCK_CLOEXEC = 0x80000;
    private static final int SOCKADDR_IN_SIZE = 16, SOCKADDR_IN6_SIZE = 28;
    /** struct sockaddr_un: sun_family, then a NUL-terminated path of at most 107 bytes. */
    private static final int SOCKADDR_UN_SIZE = 110, UNIX_PATH_MAX = 108;

    // System call numbers (x86-64, aarch64). Buffers and addresses are passed as raw addresses:
    // slicing a segment per call would allocate. send and recv are sendto and recvfrom without address.
    private static final long SOCKET = nr(41, 198), CONNECT = nr(42, 203), BIND = nr(49, 200), LISTEN = nr(50, 201),
            ACCEPT4 = nr(288, 242), GETSOCKNAME = nr(51, 204), GETSOCKOPT = nr(55, 209), SETSOCKOPT = nr(54, 208),
            SHUTDOWN = nr(48, 210), SENDTO = nr(44, 206), RECVFROM = nr(45, 207), SOCKETPAIR = nr(53, 199);

    /** A non-blocking TCP socket: fd or -errno. */
    public static int tcp4() {
        return socket(AF_INET, SOCK_STREAM, 0);
    }

    /** A non-blocking UDP socket: fd or -errno. */
    public static int udp4() {
        return socket(AF_INET, SOCK_DGRAM, 0);
    }

    /** A non-blocking IPv6 TCP socket: fd or -errno. */
    public static int tcp6() {
        return socket(AF_INET6, SOCK_STREAM, 0);
    }

    /** A non-blocking IPv6 UDP socket: fd or -errno. */
    public static int udp6() {
        return socket(AF_INET6, SOCK_DGRAM, 0);
    }

    /**
     * A non-blocking ICMP echo ("ping") socket, which needs no privilege but a group in
     * net.ipv4.ping_group_range: fd, or -EACCES when the range excludes us, or another -errno.
     * The kernel sets the echo identifier to the socket's local port and fills the checksum.
     */
    public static int ping4() {
        return socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
    }

    /** As {@link #ping4}, an ICMPv6 echo socket (the same net.ipv4.ping_group_range allows it). */
    public static int ping6() {
        return socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6);
    }

    /** A non-blocking unix stream socket: fd or -errno. */
    public static int unixStream() {
        return socket(AF_UNIX, SOCK_STREAM, 0);
    }

    /** A non-blocking unix datagram socket: fd or -errno. */
    public static int unixDgram() {
        return socket(AF_UNIX, SOCK_DGRAM, 0);
    }

    /** A connected pair of non-blocking unix stream sockets into fds[0] and fds[1]: 0 or -errno. */
    public static int unixStreamPair(int[] fds) {
        Native.Scratch s = scratch();
        int r = (int) syscall(SOCKETPAIR, s.errno, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, s.iov.address());
        if (r < 0) return -errno(s.errno);
        fds[0] = s.iov.get(JAVA_INT, 0);
        fds[1] = s.iov.get(JAVA_INT, 4);
        return 0;
    }

    /** Size of a buffer that holds any unix socket address (struct sockaddr_un). */
    public static final int SOCKADDR_UN_MAX = SOCKADDR_UN_SIZE;

    /**
     * One datagram into native memory, its source address into the native segment from (of
     * {@link #SOCKADDR_UN_MAX} bytes or more): the datagram's length (truncated to len) or
     * -errno. fromLength[0] gets the address's length.
     */
    public static int recvFrom(int fd, MemorySegment buf, long off, int len, MemorySegment from, int[] fromLength) {
        return recvFrom(fd, buf, off, len, 0, from, fromLength);
    }

    /** As {@link #recvFrom(int, MemorySegment, long, int, MemorySegment, int[])}, with recvfrom's flags (e.g. {@link #MSG_PEEK}). */
    public static int recvFrom(int fd, MemorySegment buf, long off, int len, int flags, MemorySegment from, int[] fromLength) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, (int) from.byteSize());
        long r = syscall(RECVFROM, s.errno, fd, address(buf, off, len), len, flags, from.address(), s.len.address());
        if (r < 0) return -errno(s.errno);
        fromLength[0] = s.len.get(JAVA_INT, 0);
        return (int) r;
    }

    /** One datagram from native memory to the address of toLength bytes in to: bytes sent or -errno. */
    public static int sendTo(int fd, MemorySegment buf, long off, int len, MemorySegment to, int toLength) {
        MemorySegment err = scratch().errno;
        long r = syscall(SENDTO, err, fd, address(buf, off, len), len, MSG_NOSIGNAL, to.address(), toLength);
        return r < 0 ? -errno(err) : (int) r;
    }

    /** Connects fd to the address of toLength bytes in the native segment to (as recvFrom gave it): 0 or -errno. */
    public static int connectTo(int fd, MemorySegment to, int toLength) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(CONNECT, err, fd, to.address(), toLength);
        return r < 0 ? -errno(err) : r;
    }

    private static int socket(int domain, int type, int protocol) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(SOCKET, err, domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
        return r < 0 ? -errno(err) : r;
    }

    /** 0 when connected at once, -EINPROGRESS (then wait for EPOLLOUT and check {@link #soError}), or -errno. */
    public static int connect4(int fd, int addr, int port) {
        return addrCall(CONNECT, fd, addr, port);
    }



    /** 0 or -errno. */
    public static int bind4(int fd, int addr, int port) {
        return addrCall(BIND, fd, addr, port);
    }

    private static int addrCall(long nr, int fd, int addr, int port) {
        Native.Scratch s = scratch();
        sockaddrIn(s.sockaddr, 0, addr, port);
        return sockaddrCall(nr, s, fd, SOCKADDR_IN_SIZE);
    }


    /** nr(fd, the address already in s.sockaddr, length) for connect or bind: its result, or -errno. */
    private static int sockaddrCall(long nr, Native.Scratch s, int fd, int length) {
        int r = (int) syscall(nr, s.errno, fd, s.sockaddr.address(), length);
        return r < 0 ? -errno(s.errno) : r;
    }

    /**
     * Binds a unix socket to a filesystem path: 0 or -errno. Throws IllegalArgumentException for
     * a path that does not fit a sockaddr_un (107 bytes).
     */
    public static int bindUnix(int fd, String path) {
        return unixCall(BIND, fd, path);
    }

    /** Connects a unix socket to a filesystem path: 0, -EINPROGRESS/-EAGAIN (non-blocking), or -errno. */
    public static int connectUnix(int fd, String path) {
        return unixCall(CONNECT, fd, path);
    }

    private static int unixCall(long nr, int fd, String path) {
        byte[] bytes = path.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length >= UNIX_PATH_MAX) {
            throw new IllegalArgumentException("unix socket path must be 1 to " + (UNIX_PATH_MAX - 1) + " bytes: " + path);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SOCKADDR_UN_SIZE, 8);
            sa.set(JAVA_SHORT, 0, (short) AF_UNIX);
            MemorySegment.copy(bytes, 0, sa, JAVA_BYTE, 2, bytes.length);
            MemorySegment err = scratch().errno;
            int r = (int) syscall(nr, err, fd, sa.address(), SOCKADDR_UN_SIZE);
            return r < 0 ? -errno(err) : r;
        }
    }

    /**
     * The backlog of a listening socket that takes the host's clients for the guest (a forwarded
     * port, pasta's spliced ports): the kernel caps it at net.core.somaxconn (4096 since Linux 5.4,
     * glibc's SOMAXCONN). A small one lets a burst of clients overflow the accept queue before the
     * loop takes them; past that the kernel answers with SYN cookies, and a client whose handshake's
     * last ACK it then drops believes itself connected to a socket that does not exist (a client
     * that only reads waits forever: ManyConnectionsIT's forwarded burst stalled with 128).
     */
    public static final int CLIENT_BACKLOG = 4096;

    /** 0 or -errno. */
    public static int listen(int fd, int backlog) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(LISTEN, err, fd, backlog);
        return r < 0 ? -errno(err) : r;
    }

    /**
     * Accepts a connection as a new non-blocking, close-on-exec fd, or returns -errno (-EAGAIN when
     * none is pending). Fills peerAddrPort[0] with the peer address and [1] with its port unless null.
     */
    public static int accept4(int fd, int[] peerAddrPort) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, SOCKADDR_IN_SIZE);
        int r = (int) syscall(ACCEPT4, s.errno, fd, s.sockaddr.address(), s.len.address(), SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (r < 0) {
            return -errno(s.errno);
        }
        if (peerAddrPort != null) {
            readSockaddr(s.sockaddr, peerAddrPort);
        }
        return r;
    }


    private static final int SO_COOKIE = 57;

    /** SO_COOKIE: the number the kernel gave the socket, unique in its network namespace; 0 where it cannot say. */
    public static long cookie(int fd) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, 8);
        int r = (int) syscall(GETSOCKOPT, s.errno, fd, SOL_SOCKET, SO_COOKIE, s.value.address(), s.len.address());
        return r < 0 ? 0 : s.value.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
    }

    /** The bound local port (getsockname) or -errno. */
    public static int localPort(int fd) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, SOCKADDR_IN_SIZE);
        int r = (int) syscall(GETSOCKNAME, s.errno, fd, s.sockaddr.address(), s.len.address());
        return r < 0 ? -errno(s.errno) : Short.toUnsignedInt(s.sockaddr.get(NET_SHORT, 2));
    }

    /**
     * The socket's pending error (SO_ERROR, which it also clears) as a positive errno; 0 means none,
     * e.g. a non-blocking connect has completed. If getsockopt itself fails, its errno.
     */
    public static int soError(int fd) {
        int v = getInt(fd, SOL_SOCKET, SO_ERROR);
        return v < 0 ? -v : v;
    }

    /** setsockopt with an int value: 0 or -errno. */
    public static int setInt(int fd, int level, int option, int value) {
        Native.Scratch s = scratch();
        s.value.set(JAVA_INT, 0, value);
        return setsockopt(s, fd, level, option, 4);
    }

    /** SO_BINDTODEVICE to ifname (at most 15 bytes): 0 or -errno. Not for the data path: it allocates. */
    public static int bindToDevice(int fd, String ifname) {
        byte[] name = ifname.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        if (name.length == 0 || name.length > 15) return -Errno.EINVAL;
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment v = a.allocate(16);
            MemorySegment.copy(name, 0, v, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, name.length);
            MemorySegment err = scratch().errno;
            int r = (int) syscall(SETSOCKOPT, err, fd, SOL_SOCKET, SO_BINDTODEVICE, v.address(), name.length + 1);
            return r < 0 ? -errno(err) : r;
        }
    }

    /** getsockopt of an int option: the (non-negative) value or -errno. */
    public static int getInt(int fd, int level, int option) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, 4);
        int r = (int) syscall(GETSOCKOPT, s.errno, fd, level, option, s.value.address(), s.len.address());
        return r < 0 ? -errno(s.errno) : s.value.get(JAVA_INT, 0);
    }

    /** SO_LINGER {on, 0 s}: a later close() aborts the connection with a RST. 0 or -errno. */
    public static int setLingerZero(int fd) {
        Native.Scratch s = scratch();
        s.value.set(JAVA_INT, 0, 1); // l_onoff
        s.value.set(JAVA_INT, 4, 0); // l_linger
        return setsockopt(s, fd, SOL_SOCKET, SO_LINGER, 8);
    }

    private static int setsockopt(Native.Scratch s, int fd, int level, int option, int len) {
        int r = (int) syscall(SETSOCKOPT, s.errno, fd, level, option, s.value.address(), len);
        return r < 0 ? -errno(s.errno) : r;
    }

    /** 0 or -errno. */
    public static int shutdown(int fd, int how) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(SHUTDOWN, err, fd, how);
        return r < 0 ? -errno(err) : r;
    }

    /** An ioctl that returns an int through its pointer argument (SIOCOUTQ, SIOCINQ): value or -errno. */
    public static int ioctlInt(int fd, long request) {
        MemorySegment value = scratch().value;
        int r = Native.ioctl(fd, request, value.address());
        return r < 0 ? r : value.get(JAVA_INT, 0);
    }

    /** Bytes sent or -errno; MSG_NOSIGNAL is always added, so a closed peer gives -EPIPE, not SIGPIPE. */
    public static int send(int fd, MemorySegment buf, long off, int len, int flags) {
        MemorySegment err = scratch().errno;
        long r = buf.isNative()
                ? syscall(SENDTO, err, fd, address(buf, off, len), len, flags | MSG_NOSIGNAL)
                : syscall(SENDTO, err, fd, buf.asSlice(off, len), len, flags | MSG_NOSIGNAL, 0, 0);
        return r < 0 ? -errno(err) : (int) r;
    }

    /** Bytes received, 0 at end of stream, or -errno. */
    public static int recv(int fd, MemorySegment buf, long off, int len, int flags) {
        MemorySegment err = scratch().errno;
        long r = buf.isNative()
                ? syscall(RECVFROM, err, fd, address(buf, off, len), len, flags)
                : syscall(RECVFROM, err, fd, buf.asSlice(off, len), len, flags, 0, 0);
        return r < 0 ? -errno(err) : (int) r;
    }

    private static final long RECVMSG = nr(47, 212);
    /** Per thread: a msghdr (56 bytes) and its two iovecs, for {@link #peekPast}. */
    private static final ThreadLocal<MemorySegment> MSGHDR = ThreadLocal.withInitial(() -> Arena.global().allocate(56 + 32, 8));

    /**
     * MSG_PEEK of up to len bytes after the first skip bytes of a stream socket's receive queue,
     * for kernels without SO_PEEK_OFF on TCP (before 6.9): the skipped bytes are copied to
     * skipArea (at least skip bytes) and thrown away. Bytes after skip (0 for none now), -1 at end
     * of stream with nothing at all queued, or -errno.
     */
    public static int peekPast(int fd, MemorySegment skipArea, int skip, MemorySegment buf, long off, int len) {
        MemorySegment m = MSGHDR.get();
        MemorySegment err = scratch().errno;
        m.fill((byte) 0);
        int count = 0;
        if (skip > 0) {
            m.set(JAVA_LONG_UNALIGNED, 56, address(skipArea, 0, skip));
            m.set(JAVA_LONG_UNALIGNED, 64, skip);
            count++;
        }
        m.set(JAVA_LONG_UNALIGNED, 56 + 16L * count, address(buf, off, len));
        m.set(JAVA_LONG_UNALIGNED, 64 + 16L * count, len);
        count++;
        m.set(JAVA_LONG_UNALIGNED, 16, m.address() + 56); // msg_iov
        m.set(JAVA_LONG_UNALIGNED, 24, count);            // msg_iovlen
        long r = syscall(RECVMSG, err, fd, m.address(), MSG_PEEK | MSG_DONTWAIT);
        if (r < 0) return -errno(err);
        if (r == 0) return -1;
        return (int) Math.max(r - skip, 0);
    }

    /** Drops up to len bytes from the front of a stream socket's receive queue without copying them (MSG_TRUNC): bytes or -errno. */
    public static int discard(int fd, int len) {
        MemorySegment err = scratch().errno;
        long r = syscall(RECVFROM, err, fd, 0L, len, MSG_TRUNC | MSG_DONTWAIT, 0L, 0L);
        return r < 0 ? -errno(err) : (int) r;
    }

    /**
     * About how many more bytes a TCP socket's send buffer takes now: its size (SO_SNDBUF, which
     * counts the kernel's bookkeeping too, so less a share of it as passt reckons: none up to 128
     * KiB, half from 4 MiB) less what it holds (SIOCOUTQ). 0 or more, or -errno.
     */
    public static int sendSpace(int fd) {
        int size = emptySendSpace(fd);
        if (size < 0) return size;
        int queued = ioctlInt(fd, SIOCOUTQ);
        if (queued < 0) return queued;
        return Math.max(size - queued, 0);
    }

    /** {@link #sendSpace} of a TCP socket whose send queue is empty (nothing written yet): its send buffer's usable size, or -errno. */
    public static int emptySendSpace(int fd) {
        int size = getInt(fd, SOL_SOCKET, SO_SNDBUF);
        return size < 0 ? size : usableSendBuffer(size);
    }

    /** The bytes a send buffer of SO_SNDBUF size holds, less the kernel's per-buffer bookkeeping. */
    static int usableSendBuffer(int size) {
        final long small = 128 << 10, big = 4 << 20;
        long v = size;
        if (v >= big) v /= 2;
        else if (v > small) v -= v * (v - small) / (big - small) / 2;
        return (int) v;
    }

    /** One datagram to addr:port: bytes sent or -errno. */
    public static int sendTo4(int fd, MemorySegment buf, long off, int len, int addr, int port) {
        Native.Scratch s = scratch();
        sockaddrIn(s.sockaddr, 0, addr, port);
        long sa = s.sockaddr.address();
        long r = buf.isNative()
                ? syscall(SENDTO, s.errno, fd, address(buf, off, len), len, MSG_NOSIGNAL, sa, SOCKADDR_IN_SIZE)
                : syscall(SENDTO, s.errno, fd, buf.asSlice(off, len), len, MSG_NOSIGNAL, sa, SOCKADDR_IN_SIZE);
        return r < 0 ? -errno(s.errno) : (int) r;
    }

    /**
     * One datagram (truncated to len): its bytes or -errno. Fills srcAddrPort[0] with the source
     * address and [1] with its port unless null.
     */
    public static int recvFrom4(int fd, MemorySegment buf, long off, int len, int[] srcAddrPort) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, SOCKADDR_IN_SIZE);
        long sa = s.sockaddr.address();
        long sl = s.len.address();
        long r = buf.isNative()
                ? syscall(RECVFROM, s.errno, fd, address(buf, off, len), len, 0, sa, sl)
                : syscall(RECVFROM, s.errno, fd, buf.asSlice(off, len), len, 0, sa, sl);
        if (r < 0) {
            return -errno(s.errno);
        }
        if (srcAddrPort != null) {
            readSockaddr(s.sockaddr, srcAddrPort);
        }
        return (int) r;
    }



    private static void readSockaddr6(MemorySegment sa, long[] addrPort) {
        addrPort[0] = sa.get(NET_LONG, 8);
        addrPort[1] = sa.get(NET_LONG, 16);
        addrPort[2] = Short.toUnsignedInt(sa.get(NET_SHORT, 2));
    }

    private static void readSockaddr(MemorySegment sa, int[] addrPort) {
        addrPort[0] = sa.get(NET_INT, 4);
        addrPort[1] = Short.toUnsignedInt(sa.get(NET_SHORT, 2));
    }

    // ---- one address form for both versions: hi:lo, an IPv4 address as ::ffff:a.b.c.d ----

    /** The high 32 bits of the low half of an IPv4-mapped address. */
    private static final long V4_MAPPED = 0xffffL << 32;

    private static boolean isMapped(long hi, long lo) {
        return hi == 0 && (lo & -1L << 32) == V4_MAPPED;
    }

    /** Writes the sockaddr for hi:lo (sockaddr_in for an IPv4-mapped one) into s; its length. */
    private static int sockaddr(Native.Scratch s, long hi, long lo, int scopeId, int port) {
        if (isMapped(hi, lo)) {
            sockaddrIn(s.sockaddr, 0, (int) lo, port);
            return SOCKADDR_IN_SIZE;
        }
        sockaddrIn6(s.sockaddr, 0, hi, lo, port);
        s.sockaddr.set(JAVA_INT, 24, scopeId);
        return SOCKADDR_IN6_SIZE;
    }

    /**
     * The address family of the length bytes at sa if they are a whole sockaddr_in (16) or
     * sockaddr_in6 (28), its address (hi, lo: IPv4 mapped) and port read into peer; -1 for
     * anything else (e.g. the socket bypass's address read from another process).
     */
    public static int readSockaddr(MemorySegment sa, int length, long[] peer) {
        int family = sa.get(JAVA_SHORT, 0);
        if (!(family == AF_INET && length == SOCKADDR_IN_SIZE || family == AF_INET6 && length == SOCKADDR_IN6_SIZE)) return -1;
        readPeer(sa, peer);
        return family;
    }

    /** Reads a sockaddr_in or sockaddr_in6 into peer: hi, lo (IPv4 mapped) and port. */
    private static void readPeer(MemorySegment sa, long[] peer) {
        if (sa.get(JAVA_SHORT, 0) == AF_INET) {
            peer[0] = 0;
            peer[1] = V4_MAPPED | (sa.get(NET_INT, 4) & 0xffffffffL);
            peer[2] = Short.toUnsignedInt(sa.get(NET_SHORT, 2));
        } else {
            readSockaddr6(sa, peer);
        }
    }

    /** Connects to hi:lo (IPv4-mapped: an IPv4 socket's destination), scopeId for a link-local IPv6 one: as {@link #connect4}. */
    public static int connect(int fd, long hi, long lo, int scopeId, int port) {
        Native.Scratch s = scratch();
        return sockaddrCall(CONNECT, s, fd, sockaddr(s, hi, lo, scopeId, port));
    }

    /** Binds to hi:lo (IPv4-mapped for an IPv4 socket): 0 or -errno. */
    public static int bind(int fd, long hi, long lo, int port) {
        Native.Scratch s = scratch();
        return sockaddrCall(BIND, s, fd, sockaddr(s, hi, lo, 0, port));
    }

    /** As {@link #accept4} on a socket of either version: the peer in peer (hi, lo, port; IPv4 mapped). */
    public static int accept(int fd, long[] peer) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, SOCKADDR_IN6_SIZE);
        int r = (int) syscall(ACCEPT4, s.errno, fd, s.sockaddr.address(), s.len.address(), SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (r < 0) return -errno(s.errno);
        readPeer(s.sockaddr, peer);
        return r;
    }

    /** One datagram into native memory (truncated to len) on a socket of either version, its source in peer: bytes or -errno. */
    public static int recvFrom(int fd, MemorySegment buf, long off, int len, long[] peer) {
        Native.Scratch s = scratch();
        s.len.set(JAVA_INT, 0, SOCKADDR_IN6_SIZE);
        long r = syscall(RECVFROM, s.errno, fd, address(buf, off, len), len, 0, s.sockaddr.address(), s.len.address());
        if (r < 0) return -errno(s.errno);
        readPeer(s.sockaddr, peer);
        return (int) r;
    }

    /** One datagram from native memory to [hi:lo]:port (IPv4-mapped from an IPv4 socket): bytes or -errno. */
    public static int sendTo(int fd, MemorySegment buf, long off, int len, long hi, long lo, int port) {
        Native.Scratch s = scratch();
        int sl = sockaddr(s, hi, lo, 0, port);
        long r = syscall(SENDTO, s.errno, fd, address(buf, off, len), len, MSG_NOSIGNAL, s.sockaddr.address(), sl);
        return r < 0 ? -errno(s.errno) : (int) r;
    }
}
