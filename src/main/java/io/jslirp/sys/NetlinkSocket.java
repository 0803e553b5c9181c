package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A blocking netlink socket of one protocol, bound in the calling thread's network namespace (it
 * stays there), with a request buffer and an answer buffer: the plumbing {@link Netlink} and
 * {@link SockDiag} share. Requests carry a sequence number; answers are read whole into the answer
 * buffer (64 KiB, as large as the dumps the kernel sends).
 */
final class NetlinkSocket implements AutoCloseable {
    static final int NETLINK_ROUTE = 0, NETLINK_SOCK_DIAG = 4;
    static final short NLMSG_ERROR = 2, NLMSG_DONE = 3;
    static final short NLM_F_REQUEST = 0x1, NLM_F_ACK = 0x4, NLM_F_DUMP = 0x300;
    /** struct nlmsghdr: u32 length, u16 type, u16 flags, u32 sequence, u32 port ID. */
    static final int HEADER = 16;

    private static final int AF_NETLINK = 16, SOCK_RAW = 3, SOCK_CLOEXEC = 0x80000;
    private static final long SOCKET = nr(41, 198), BIND = nr(49, 200), SEND = nr(44, 206), RECV = nr(45, 207);
    private static final int REQUEST = 512, ANSWER = 65536;

    private final int fd;
    private final Arena arena = Arena.ofShared();
    final MemorySegment request = arena.allocate(REQUEST, 8);
    final MemorySegment answer = arena.allocate(ANSWER, 8);
    /** The request's length so far, as the request's parts are appended. */
    int length;
    private int sequence;

    /** Throws {@link SysException}, its message beginning with what (e.g. "open rtnetlink socket"). */
    NetlinkSocket(int protocol, String what) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(SOCKET, err, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
        if (r < 0) {
            arena.close();
            throw new SysException(what, errno(err));
        }
        fd = r;
        // struct sockaddr_nl: family, padding, port ID 0 (the kernel picks one), no groups.
        request.fill((byte) 0);
        request.set(JAVA_SHORT_UNALIGNED, 0, (short) AF_NETLINK);
        if (syscall(BIND, err, fd, request.address(), 12) < 0) {
            int e = errno(err);
            close();
            throw new SysException(what + ": bind", e);
        }
    }

    /** Starts a request of type with flags (NLM_F_REQUEST added): a zeroed buffer with its header. The sequence number it gets. */
    int begin(short type, short flags) {
        request.fill((byte) 0);
        request.set(JAVA_SHORT_UNALIGNED, 4, type);
        request.set(JAVA_SHORT_UNALIGNED, 6, (short) (flags | NLM_F_REQUEST));
        request.set(JAVA_INT_UNALIGNED, 8, ++sequence);
        length = HEADER;
        return sequence;
    }

    /** The sequence number of the request last begun. */
    int requestSequence() {
        return sequence;
    }

    /** Sends the request built since {@link #begin}. */
    void send(String what) {
        request.set(JAVA_INT_UNALIGNED, 0, length);
        MemorySegment err = scratch().errno;
        long sent;
        do {
            sent = syscall(SEND, err, fd, request.address(), length, 0, 0, 0);
        } while (sent < 0 && errno(err) == Errno.EINTR);
        if (sent < 0) throw new SysException(what + ": send to netlink", errno(err));
    }

    /** Reads one datagram of answers into {@link #answer}: its length. */
    int receive(String what) {
        MemorySegment err = scratch().errno;
        while (true) {
            long n = syscall(RECV, err, fd, answer.address(), ANSWER, 0, 0, 0);
            if (n >= 0) return (int) n;
            if (errno(err) != Errno.EINTR) throw new SysException(what + ": receive from netlink", errno(err));
        }
    }

    /** The offset of the message after the one at off in answer (of length bytes); length when none follows. */
    static int next(MemorySegment answer, int off, int length) {
        int msgLength = answer.get(JAVA_INT_UNALIGNED, off);
        if (msgLength < HEADER || off + msgLength > length) return length;
        return off + ((msgLength + 3) & ~3);
    }

    static int messageLength(MemorySegment answer, int off) {
        return answer.get(JAVA_INT_UNALIGNED, off);
    }

    static short type(MemorySegment answer, int off) {
        return answer.get(JAVA_SHORT_UNALIGNED, off + 4);
    }

    static int sequence(MemorySegment answer, int off) {
        return answer.get(JAVA_INT_UNALIGNED, off + 8);
    }

    /** The error of the NLMSG_ERROR (or NLMSG_DONE) message at off: 0, or -errno. */
    static int error(MemorySegment answer, int off) {
        return answer.get(JAVA_INT_UNALIGNED, off + HEADER);
    }

    @Override
    public void close() {
        Libc.close(fd);
        arena.close();
    }
}
