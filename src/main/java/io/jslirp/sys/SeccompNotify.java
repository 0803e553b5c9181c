package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * seccomp user notification (Linux 5.0; ADDFD 5.9, TSYNC with a listener 5.7), for the socket
 * bypass: the kernel holds a process's system call until a supervisor answers it through a
 * listener descriptor. One notification at a time is read into this object's buffer
 * ({@link #receive}); its fields are then read with the accessors. Every call returns 0 or -errno
 * where the target's end (ENOENT) is an ordinary outcome; the rest throw {@link SysException}.
 *
 * <pre>
 * struct seccomp_notif      { u64 id; u32 pid; u32 flags; struct seccomp_data data; }   80 bytes
 * struct seccomp_data       { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }
 * struct seccomp_notif_resp { u64 id; s64 val; s32 error; u32 flags; }                  24 bytes
 * struct seccomp_notif_addfd { u64 id; u32 flags; u32 srcfd; u32 newfd; u32 newfd_flags; } 24 bytes
 * </pre>
 */
public final class SeccompNotify implements AutoCloseable {
    private static final int NOTIF_SIZE = 80, RESP_SIZE = 24, ADDFD_SIZE = 24;
    private static final int ID = 0, PID = 8, NR = 16, ARGS = 32;
    private static final long IOCTL = Native.nr(16, 29), PROCESS_VM_READV = Native.nr(310, 270), PIDFD_OPEN = 434, PIDFD_GETFD = 438;
    private static final long NOTIF_RECV = 0xc0502100L, NOTIF_SEND = 0xc0182101L, NOTIF_ID_VALID = 0x40082102L,
            NOTIF_ADDFD = 0x40182103L, NOTIF_SET_FLAGS = 0x40082104L;
    /** seccomp_notif_resp.flags: let the call go on in the kernel as if nothing had held it. */
    private static final int FLAG_CONTINUE = 1;
    /** seccomp_notif_addfd.flags: install at newfd, replacing what is there (as dup2). */
    private static final int ADDFD_FLAG_SETFD = 1;
    /** pidfd_open's flag for a thread rather than a process (Linux 6.9): O_EXCL. */
    private static final int PIDFD_THREAD = 0x80;
    /** SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6): the target runs on the supervisor's CPU when answered. */
    private static final int SYNC_WAKE_UP = 1;

    private final int fd;
    private boolean closed;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment notif = arena.allocate(NOTIF_SIZE, 8);
    private final MemorySegment resp = arena.allocate(RESP_SIZE, 8);
    private final MemorySegment addfd = arena.allocate(ADDFD_SIZE, 8);
    private final MemorySegment id = arena.allocate(8, 8);
    private final MemorySegment iov = arena.allocate(32, 8);

    /** Takes the listener descriptor fd (close-on-exec, as the kernel makes it). */
    public SeccompNotify(int fd) {
        this.fd = fd;
        MemorySegment err = scratch().errno;
        id.set(JAVA_LONG, 0, SYNC_WAKE_UP);
        syscall(IOCTL, err, fd, NOTIF_SET_FLAGS, id.address()); // best effort: older kernels lack it
    }

    /** The listener, readable (epoll IN) when a notification waits. */
    public int fd() {
        return fd;
    }

    /** Reads the next notification: 0, -EAGAIN-like -ENOENT when its target has gone meanwhile, or another -errno. */
    public int receive() {
        notif.fill((byte) 0); // the kernel refuses a buffer that is not zeroed
        MemorySegment err = scratch().errno;
        int r = (int) syscall(IOCTL, err, fd, NOTIF_RECV, notif.address());
        return r < 0 ? -errno(err) : 0;
    }

    public long id() {
        return notif.get(JAVA_LONG, ID);
    }

    /** The thread that made the call, in this process's PID namespace. */
    public int tid() {
        return notif.get(JAVA_INT, PID);
    }

    public int nr() {
        return notif.get(JAVA_INT, NR);
    }

    public long arg(int i) {
        return notif.get(JAVA_LONG, ARGS + 8L * i);
    }

    /** Whether notification id is still waiting for its answer (its thread still in the call). */
    public boolean valid(long notification) {
        id.set(JAVA_LONG, 0, notification);
        return (int) syscall(IOCTL, scratch().errno, fd, NOTIF_ID_VALID, id.address()) == 0;
    }

    /** Answers notification: the call returns value, or fails with errno when errno > 0. 0 or -errno. */
    public int answer(long notification, long value, int errno) {
        return send(notification, errno > 0 ? 0 : value, errno > 0 ? -errno : 0, 0);
    }

    /** Lets the call go on in the kernel, which reads its arguments again. 0 or -errno. */
    public int pass(long notification) {
        return send(notification, 0, 0, FLAG_CONTINUE);
    }

    private int send(long notification, long value, int error, int flags) {
        resp.set(JAVA_LONG, 0, notification);
        resp.set(JAVA_LONG, 8, value);
        resp.set(JAVA_INT, 16, error);
        resp.set(JAVA_INT, 20, flags);
        MemorySegment err = scratch().errno;
        int r = (int) syscall(IOCTL, err, fd, NOTIF_SEND, resp.address());
        return r < 0 ? -errno(err) : 0;
    }

    /** Puts a copy of our descriptor source at number target in the waiting thread's table (as dup2; closeOnExec as given). 0 or -errno. */
    public int replace(long notification, int source, int target, boolean closeOnExec) {
        addfd.set(JAVA_LONG, 0, notification);
        addfd.set(JAVA_INT, 8, ADDFD_FLAG_SETFD);
        addfd.set(JAVA_INT, 12, source);
        addfd.set(JAVA_INT, 16, target);
        addfd.set(JAVA_INT, 20, closeOnExec ? Libc.O_CLOEXEC : 0);
        MemorySegment err = scratch().errno;
        int r = (int) syscall(IOCTL, err, fd, NOTIF_ADDFD, addfd.address());
        return r < 0 ? -errno(err) : 0;
    }

    /** Reads len bytes at address in process pid's memory into buf: the count read, or -errno. */
    public int read(int pid, long address, MemorySegment buf, int len) {
        iov.set(JAVA_LONG, 0, buf.address());
        iov.set(JAVA_LONG, 8, len);
        iov.set(JAVA_LONG, 16, address);
        iov.set(JAVA_LONG, 24, len);
        MemorySegment err = scratch().errno;
        long r = syscall(PROCESS_VM_READV, err, pid, iov.address(), 1, iov.address() + 16, 1, 0);
        return r < 0 ? -errno(err) : (int) r;
    }

    /**
     * A descriptor for the thread tid (pidfd_open of the thread, Linux 6.9; before, of tid as a
     * process, which only a thread group's leader is), readable once it has exited; close-on-exec.
     * The descriptor, or -errno.
     */
    public static int openThread(int tid) {
        MemorySegment err = scratch().errno;
        int pidfd = (int) syscall(PIDFD_OPEN, err, tid, PIDFD_THREAD);
        if (pidfd < 0 && errno(err) == Errno.EINVAL) pidfd = (int) syscall(PIDFD_OPEN, err, tid, 0);
        return pidfd < 0 ? -errno(err) : pidfd;
    }

    /** A copy in this process of descriptor number target of the process or thread pidfd names (pidfd_getfd, close-on-exec), or -errno. */
    public static int take(int pidfd, int target) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(PIDFD_GETFD, err, pidfd, target, 0);
        return r < 0 ? -errno(err) : r;
    }

    /**
     * Where this process's C library has its code ([start, end) of its executable mapping, from
     * /proc/self/maps): every system call of the JVM's is made there. Throws IllegalStateException
     * where there is not exactly one such mapping (a static or unusual C library).
     */
    public static long[] libcCode() {
        try {
            return libcCode(java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps")));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot read /proc/self/maps: " + e.getMessage(), e);
        }
    }

    /** As {@link #libcCode()}, from the lines of a maps file. */
    static long[] libcCode(java.util.List<String> maps) {
        long[] found = null;
        for (String line : maps) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || !f[1].startsWith("r-x")) continue;
            String name = f[5].substring(f[5].lastIndexOf('/') + 1);
            if (!name.startsWith("libc.so") && !name.matches("libc-[0-9.]+\\.so")) continue;
            if (found != null) throw new IllegalStateException("more than one executable mapping of the C library");
            int dash = f[0].indexOf('-');
            found = new long[] {Long.parseUnsignedLong(f[0].substring(0, dash), 16), Long.parseUnsignedLong(f[0].substring(dash + 1), 16)};
        }
        if (found == null) throw new IllegalStateException("no executable mapping of the C library in /proc/self/maps");
        return found;
    }

    /** Closes the listener (once: later calls do nothing). */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
        arena.close();
    }
}
