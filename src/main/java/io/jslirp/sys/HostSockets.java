package io.jslirp.sys;

import java.lang.foreign.MemorySegment;

/**
 * The host sockets the NAT, the forwards and the gateway's services re-originate flows with,
 * passed in so that tests can put fake ones in their place ({@link #SYSTEM} is the kernel's).
 *
 * <p>One address form for both IP versions: an address is its two 64-bit halves in network order,
 * an IPv4 address in its IPv4-mapped form ::ffff:a.b.c.d (hi 0, lo 0x0000ffff_aabbccdd), as
 * {@code util.AddressBook} holds them; a socket for an IPv4 address is an IPv4 socket. Peers come
 * back the same way in a {@code long[3]}: hi, lo and the port. Every call returns a non-negative
 * result or -errno, never throws for an OS error, and allocates nothing. Sockets are non-blocking
 * and close-on-exec; buffers are native segments.
 */
public interface HostSockets {
    HostSockets SYSTEM = new SystemSockets();

    /** A TCP socket of the version (ipv6 or IPv4): fd or -errno. */
    int tcp(boolean ipv6);

    /** A UDP socket: fd or -errno. */
    int udp(boolean ipv6);

    /**
     * An ICMP (ICMPv6) echo socket, a "ping socket", which needs no privilege but a group in
     * net.ipv4.ping_group_range (for both versions): fd, -EACCES when the range excludes us, or
     * another -errno. The kernel sets the echo identifier to the socket's own and fills the checksum.
     */
    int ping(boolean ipv6);

    /** 0 when connected at once, -EINPROGRESS (then EPOLLOUT and {@link #soError}), or -errno. */
    default int connect(int fd, long hi, long lo, int port) {
        return connect(fd, hi, lo, 0, port);
    }

    /** As {@link #connect(int, long, long, int)}, with the interface index of a link-local IPv6 address. */
    int connect(int fd, long hi, long lo, int scopeId, int port);

    /** 0 or -errno. */
    int bind(int fd, long hi, long lo, int port);

    /** 0 or -errno. */
    int listen(int fd, int backlog);

    /** A connection as a new fd (-EAGAIN when none waits), its peer in peer. */
    int accept(int fd, long[] peer);

    /** Bytes read, 0 at end of stream, or -errno. */
    int read(int fd, MemorySegment buf, long offset, int length);

    /** Bytes written or -errno. */
    int write(int fd, MemorySegment buf, long offset, int length);

    /**
     * Copies up to length bytes of a stream socket's receive queue without consuming them
     * (MSG_PEEK), from its peek offset ({@link Sockets#SO_PEEK_OFF}, which it advances) when one
     * is set. Bytes, 0 at end of stream, or -errno.
     */
    int peek(int fd, MemorySegment buf, long offset, int length);

    /**
     * MSG_PEEK of up to length bytes after the first skip of a stream socket's receive queue
     * without a peek offset (kernels before 6.9 have none for TCP): the skipped ones are copied
     * to skipArea. Bytes after skip (0 for none now), -1 at end of stream, or -errno.
     */
    int peekPast(int fd, MemorySegment skipArea, int skip, MemorySegment buf, long offset, int length);

    /** Drops the oldest length bytes of a stream socket's receive queue: bytes or -errno. */
    int discard(int fd, int length);

    /** About how many bytes a TCP socket's send buffer still takes ({@link Sockets#sendSpace}): 0 or more, or -errno. */
    int sendSpace(int fd);

    /**
     * {@link #sendSpace} of a TCP socket nothing was written to yet (its send queue is empty): the
     * usable size of its send buffer, one system call instead of two. 0 or more, or -errno.
     */
    default int emptySendSpace(int fd) {
        return sendSpace(fd);
    }

    /** ioctl SIOCINQ / SIOCOUTQ: bytes in a TCP socket's receive queue, or in its send queue (not yet acknowledged); or -errno. */
    int queued(int fd, boolean receive);


    /** Writes two slices in one call; lengthB may be 0. Bytes or -errno. */
    long writev2(int fd, MemorySegment a, long offsetA, int lengthA, MemorySegment b, long offsetB, int lengthB);

    /**
     * sendmmsg(2) of messages [first, first + count) of v on the connected datagram socket fd:
     * how many went, or -errno when the first failed. (A fake: one write each.)
     */
    default int sendMany(int fd, MessageVector v, int first, int count) {
        for (int i = 0; i < count; i++) {
            int n = write(fd, v.buffer(first + i), v.offset(first + i), v.size(first + i));
            if (n < 0) return i == 0 ? n : i;
            v.length(first + i, n);
        }
        return count;
    }

    /** recvmmsg(2) into messages [0, count) of v from the datagram socket fd: how many came, or -errno (EAGAIN: none). (A fake: one read each.) */
    default int receiveMany(int fd, MessageVector v, int count) {
        for (int i = 0; i < count; i++) {
            int n = read(fd, v.buffer(i), v.offset(i), v.size(i));
            if (n < 0) return i == 0 ? n : i;
            v.length(i, n);
        }
        return count;
    }

    /** One datagram (truncated to length), its source in peer: bytes or -errno. */
    int recvFrom(int fd, MemorySegment buf, long offset, int length, long[] peer);

    /** One datagram to [hi:lo]:port: bytes or -errno. */
    int sendTo(int fd, MemorySegment buf, long offset, int length, long hi, long lo, int port);

    /** The pending error (SO_ERROR, which it clears) as a positive errno, 0 for none. */
    int soError(int fd);

    /** setsockopt with an int value: 0 or -errno. */
    int setInt(int fd, int level, int option, int value);

    /** SO_BINDTODEVICE: the socket takes only what comes through interface ifname. 0 or -errno. */
    default int bindToDevice(int fd, String ifname) {
        return Sockets.bindToDevice(fd, ifname);
    }

    /** SO_LINGER {on, 0 s}: closing then resets the connection. 0 or -errno. */
    int setLingerZero(int fd);

    /** 0 or -errno ({@link Sockets#SHUT_WR}...). */
    int shutdown(int fd, int how);

    /** 0 or -errno; the descriptor is released either way. */
    int close(int fd);
}
