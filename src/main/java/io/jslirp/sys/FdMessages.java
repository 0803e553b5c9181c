package io.jslirp.sys;

import static io.jslirp.sys.Native.address;
import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Bytes and file descriptors over a unix stream socket: recvmsg(2) with SCM_RIGHTS control
 * messages, and sendmsg(2) with them (a front-end in the tests passes descriptors this way too).
 * One instance per socket user; its msghdr and control buffer are reused, so a call allocates
 * nothing. Received descriptors are close-on-exec (MSG_CMSG_CLOEXEC).
 *
 * <pre>
 *  struct msghdr (56 bytes)            struct cmsghdr
 *   0  msg_name        8 (0)            0  cmsg_len    8  (16 + 4 per descriptor)
 *   8  msg_namelen     4 (0)            8  cmsg_level  4  (SOL_SOCKET)
 *  16  msg_iov         8               12  cmsg_type   4  (SCM_RIGHTS)
 *  24  msg_iovlen      8 (1)           16  int fds[n]
 *  32  msg_control     8
 *  40  msg_controllen  8
 *  48  msg_flags       4 (MSG_CTRUNC: descriptors were dropped)
 * </pre>
 */
public final class FdMessages {
    /** The most descriptors one call takes or gives: a vhost-user message carries at most 8. */
    public static final int MAX_FDS = 16;
    private static final int SCM_RIGHTS = 1, MSG_CTRUNC = 0x8, MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int MSGHDR = 56, IOVEC = 16, CMSG_HEADER = 16;
    private static final int CONTROL = CMSG_HEADER + 4 * MAX_FDS;
    private static final long RECVMSG = nr(47, 212), SENDMSG = nr(46, 211);

    private final MemorySegment msg, iov, control;
    private final int[] fds = new int[MAX_FDS];
    private int fdCount;
    private boolean truncated;

    public FdMessages() {
        Arena arena = Arena.ofAuto();
        msg = arena.allocate(MSGHDR, 8);
        iov = arena.allocate(IOVEC, 8);
        control = arena.allocate(CONTROL, 8);
    }

    /**
     * Receives up to len bytes into buf at off, and the descriptors that came with them (see
     * {@link #fdCount()}): bytes, 0 at end of stream, or -errno. Descriptors beyond
     * {@link #MAX_FDS} are closed by the kernel and {@link #truncated()} says so.
     */
    public int receive(int fd, MemorySegment buf, long off, int len) {
        fill(buf, off, len, CONTROL);
        MemorySegment err = scratch().errno;
        long r = syscall(RECVMSG, err, fd, msg.address(), MSG_CMSG_CLOEXEC | Sockets.MSG_DONTWAIT);
        fdCount = 0;
        truncated = false;
        if (r < 0) return -errno(err);
        truncated = (msg.get(JAVA_INT_UNALIGNED, 48) & MSG_CTRUNC) != 0;
        collect(msg.get(JAVA_LONG_UNALIGNED, 40));
        return (int) r;
    }

    /** Reads the SCM_RIGHTS messages in the first length bytes of the control buffer into fds. */
    private void collect(long length) {
        long at = 0;
        while (at + CMSG_HEADER <= length) {
            long cmsgLen = control.get(JAVA_LONG_UNALIGNED, at);
            if (cmsgLen < CMSG_HEADER || at + cmsgLen > length) return;
            boolean rights = control.get(JAVA_INT_UNALIGNED, at + 8) == Sockets.SOL_SOCKET
                    && control.get(JAVA_INT_UNALIGNED, at + 12) == SCM_RIGHTS;
            for (long p = at + CMSG_HEADER; rights && p + 4 <= at + cmsgLen && fdCount < MAX_FDS; p += 4) {
                fds[fdCount++] = control.get(JAVA_INT_UNALIGNED, p);
            }
            at += (cmsgLen + 7) & ~7L;
        }
    }

    /** Descriptors the last {@link #receive} brought; they are the caller's to close. */
    public int fdCount() {
        return fdCount;
    }

    public int fd(int i) {
        return fds[i];
    }

    /** Whether the last {@link #receive} lost descriptors that did not fit. */
    public boolean truncated() {
        return truncated;
    }

    /** Sends len bytes of buf at off with the descriptors given (none for an empty array): bytes sent or -errno. */
    public int send(int fd, MemorySegment buf, long off, int len, int... give) {
        if (give.length > MAX_FDS) throw new IllegalArgumentException(give.length + " descriptors");
        int controlLength = give.length == 0 ? 0 : CMSG_HEADER + 4 * give.length;
        fill(buf, off, len, (controlLength + 7) & ~7);
        if (give.length == 0) msg.set(JAVA_LONG_UNALIGNED, 32, 0L);
        else {
            control.set(JAVA_LONG_UNALIGNED, 0, controlLength);
            control.set(JAVA_INT_UNALIGNED, 8, Sockets.SOL_SOCKET);
            control.set(JAVA_INT_UNALIGNED, 12, SCM_RIGHTS);
            for (int i = 0; i < give.length; i++) control.set(JAVA_INT_UNALIGNED, CMSG_HEADER + 4L * i, give[i]);
        }
        MemorySegment err = scratch().errno;
        long r = syscall(SENDMSG, err, fd, msg.address(), Sockets.MSG_NOSIGNAL | Sockets.MSG_DONTWAIT);
        return r < 0 ? -errno(err) : (int) r;
    }

    private void fill(MemorySegment buf, long off, int len, int controlLength) {
        iov.set(JAVA_LONG_UNALIGNED, 0, address(buf, off, len));
        iov.set(JAVA_LONG_UNALIGNED, 8, len);
        msg.fill((byte) 0);
        msg.set(JAVA_LONG_UNALIGNED, 16, iov.address());
        msg.set(JAVA_LONG_UNALIGNED, 24, 1L);
        msg.set(JAVA_LONG_UNALIGNED, 32, controlLength == 0 ? 0L : control.address());
        msg.set(JAVA_LONG_UNALIGNED, 40, controlLength);
    }
}
