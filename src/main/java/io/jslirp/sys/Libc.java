package io.jslirp.sys;

import static io.jslirp.sys.Native.address;
import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Basic file-descriptor calls. Data-path calls ({@code read}, {@code write}, {@code readv2},
 * {@code writev2}, {@code close}) return a non-negative result or {@code -errno} and do not
 * allocate; they throw only for programming errors (slice out of bounds, closed segment).
 * {@code read}/{@code write} also take heap segments, but then run as critical calls that hold up the
 * GC for their duration: use heap segments only on non-blocking descriptors.
 */
public final class Libc {
    private Libc() {}

    public static final int O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_CREAT = 0x40, O_APPEND = 0x400, O_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
    /** O_NOFOLLOW, whose value differs between the architectures. */
    public static final int O_NOFOLLOW = Native.X86_64 ? 0x20000 : 0x8000;
    /** O_PATH: a descriptor that names a file without opening it for reading or writing. */
    public static final int O_PATH = 0x200000;
    /** flock(2) operations. */
    public static final int LOCK_EX = 2, LOCK_NB = 4;
    private static final int F_GETFL = 3, F_SETFL = 4;

    // System call numbers (x86-64, aarch64). Buffers are passed as raw addresses: slicing a segment
    // per call would allocate.
    private static final long READ = nr(0, 63), WRITE = nr(1, 64), READV = nr(19, 65), WRITEV = nr(20, 66),
            CLOSE = nr(3, 57), OPENAT = nr(257, 56), FCNTL = nr(72, 25), GETTID = nr(186, 178), GETPID = nr(39, 172), GETEUID = nr(107, 175), CLOCK_GETTIME = nr(228, 113),
            DUP3 = nr(292, 24), SETSID = nr(112, 157), MMAP = nr(9, 222), FLOCK = nr(73, 32), KILL = nr(62, 129);
    private static final int PROT_READ_WRITE = 0x3, MAP_PRIVATE_ANONYMOUS = 0x22;
    private static final int AT_FDCWD = -100;

    /** Bytes read, 0 at end of file, or -errno. */
    public static int read(int fd, MemorySegment buf, long offset, int len) {
        MemorySegment err = scratch().errno;
        long r = buf.isNative()
                ? syscall(READ, err, fd, address(buf, offset, len), len)
                : syscall(READ, err, fd, buf.asSlice(offset, len), len);
        return r < 0 ? -errno(err) : (int) r;
    }

    /** Bytes written or -errno. */
    public static int write(int fd, MemorySegment buf, long offset, int len) {
        MemorySegment err = scratch().errno;
        long r = buf.isNative()
                ? syscall(WRITE, err, fd, address(buf, offset, len), len)
                : syscall(WRITE, err, fd, buf.asSlice(offset, len), len);
        return r < 0 ? -errno(err) : (int) r;
    }

    /** Writes two slices of native segments in one writev (ring buffers wrap); lenB may be 0. Bytes or -errno. */
    public static long writev2(int fd, MemorySegment a, long offA, int lenA, MemorySegment b, long offB, int lenB) {
        return vector(WRITEV, fd, a, offA, lenA, b, offB, lenB);
    }

    /** Reads into two slices of native segments in one readv; lenB may be 0. Bytes, 0 at EOF, or -errno. */
    public static long readv2(int fd, MemorySegment a, long offA, int lenA, MemorySegment b, long offB, int lenB) {
        return vector(READV, fd, a, offA, lenA, b, offB, lenB);
    }

    /** Fills entry index of an iovec array with len bytes at offset of a native segment (no allocation). */
    public static void iovec(MemorySegment iov, int index, MemorySegment buf, long offset, int len) {
        if (!buf.isNative()) throw new IllegalArgumentException("writev needs native segments");
        iov.set(JAVA_LONG, 16L * index, address(buf, offset, len));
        iov.set(JAVA_LONG, 16L * index + 8, len);
    }

    /** Writes the count entries of an iovec array filled by {@link #iovec}. Bytes or -errno. */
    public static long writev(int fd, MemorySegment iov, int count) {
        MemorySegment err = scratch().errno;
        long r = syscall(WRITEV, err, fd, address(iov, 0, 16L * count), count);
        return r < 0 ? -errno(err) : r;
    }

    private static long vector(long nr, int fd, MemorySegment a, long offA, int lenA,
                               MemorySegment b, long offB, int lenB) {
        if (!a.isNative() || (lenB > 0 && !b.isNative())) {
            throw new IllegalArgumentException("readv/writev need native segments");
        }
        Native.Scratch s = scratch();
        MemorySegment iov = s.iov;
        iov.set(JAVA_LONG, 0, address(a, offA, lenA));
        iov.set(JAVA_LONG, 8, lenA);
        int count = 1;
        if (lenB > 0) {
            iov.set(JAVA_LONG, 16, address(b, offB, lenB));
            iov.set(JAVA_LONG, 24, lenB);
            count = 2;
        }
        long r = syscall(nr, s.errno, fd, iov.address(), count);
        return r < 0 ? -errno(s.errno) : r;
    }

    /**
     * size bytes of private anonymous memory (mmap), zero and not resident until written: for
     * areas sized for the largest case that mostly hold small things. Kept for the process's life.
     */
    public static MemorySegment mapAnonymous(long size) {
        MemorySegment err = scratch().errno;
        long r = syscall(MMAP, err, 0L, size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1L, 0L);
        if (r == -1) throw new SysException("mmap", errno(err));
        return MemorySegment.ofAddress(r).reinterpret(size);
    }

    /** 0 or -errno. The descriptor is released even when this reports EINTR (Linux semantics). */
    public static int close(int fd) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(CLOSE, err, fd);
        return r < 0 ? -errno(err) : r;
    }

    /** Opens an existing file; throws {@link SysException} on failure. */
    public static int open(String path, int flags) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(OPENAT, err, AT_FDCWD, arena.allocateFrom(path).address(), flags, 0);
        }
        if (r < 0) {
            throw new SysException("open " + path, errno(err));
        }
        return r;
    }

    /** Opens path, creating it with mode (less the umask) when flags has O_CREAT: fd or -errno. */
    public static int openCreate(String path, int flags, int mode) {
        MemorySegment err = scratch().errno;
        try (Arena arena = Arena.ofConfined()) {
            int r = (int) syscall(OPENAT, err, AT_FDCWD, arena.allocateFrom(path).address(), flags, mode);
            return r < 0 ? -errno(err) : r;
        }
    }

    /** flock(2): 0 or -errno (-EAGAIN when LOCK_NB finds the lock taken). */
    public static int flock(int fd, int operation) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(FLOCK, err, fd, operation);
        return r < 0 ? -errno(err) : r;
    }

    /** kill(2): sends signal to process pid; 0 or -errno. */
    public static int kill(long pid, int signal) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(KILL, err, pid, signal);
        return r < 0 ? -errno(err) : r;
    }

    /** Sets O_NONBLOCK; throws {@link SysException} on failure. */
    public static void setNonBlocking(int fd) {
        int flags = fcntl(fd, F_GETFL, 0);
        if ((flags & O_NONBLOCK) == 0) {
            fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        }
    }

    /** The file status flags (F_GETFL: O_NONBLOCK, O_APPEND...); throws {@link SysException}. */
    public static int flags(int fd) {
        return fcntl(fd, F_GETFL, 0);
    }

    /** Clears O_NONBLOCK; throws {@link SysException} on failure. */
    public static void setBlocking(int fd) {
        int flags = fcntl(fd, F_GETFL, 0);
        if ((flags & O_NONBLOCK) != 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }

    private static int fcntl(int fd, int cmd, int arg) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(FCNTL, err, fd, cmd, arg);
        if (r < 0) {
            throw new SysException("fcntl fd " + fd, errno(err));
        }
        return r;
    }

    /** Makes newFd a copy of oldFd (dup3 without flags: newFd is not close-on-exec); throws {@link SysException}. */
    public static void dup2(int oldFd, int newFd) {
        MemorySegment err = scratch().errno;
        if ((int) syscall(DUP3, err, oldFd, newFd, 0) < 0) throw new SysException("dup2 " + oldFd + " " + newFd, errno(err));
    }

    /** Starts a new session with this process its leader, without a controlling terminal; throws {@link SysException}. */
    public static void setsid() {
        MemorySegment err = scratch().errno;
        if ((int) syscall(SETSID, err) < 0) throw new SysException("setsid", errno(err));
    }

    /** Kernel thread id of the calling (platform) thread, as in /proc/PID/task/TID. */
    public static int gettid() {
        return (int) syscall(GETTID, scratch().errno);
    }

    public static int getpid() {
        return (int) syscall(GETPID, scratch().errno);
    }

    /**
     * The CPU time so far of thread tid of this process, in nanoseconds (its per-thread CPU clock,
     * which the kernel lets the process read without /proc); -1 when there is no such thread.
     */
    public static long threadCpuNanos(int tid) {
        MemorySegment err = scratch().errno;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(16, 8);
            long clock = ((long) ~tid << 3) | 6; // the kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
            if ((int) syscall(CLOCK_GETTIME, err, clock, ts.address()) < 0) return -1;
            return ts.get(JAVA_LONG, 0) * 1_000_000_000L + ts.get(JAVA_LONG, 8);
        }
    }

    /** The calling thread's effective user id, in its user namespace. */
    public static int geteuid() {
        return (int) syscall(GETEUID, scratch().errno);
    }
}
