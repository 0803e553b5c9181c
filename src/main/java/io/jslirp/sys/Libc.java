package io.jslirp.sys;

import static io.jslirp.sys.Native.address;
import static io.jslirp.sys.Native.downcall;
import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.rethrow;
import static io.jslirp.sys.Native.scratch;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Basic file-descriptor calls. Data-path calls ({@code read}, {@code write}, {@code readv2},
 * {@code writev2}, {@code close}) return a non-negative result or {@code -errno} and do not
 * allocate; they throw only for programming errors (slice out of bounds, closed segment).
 * {@code read}/{@code write} also take heap segments, but then run as critical calls that hold up the
 * GC for their duration: use heap segments only on non-blocking descriptors.
 */
public final class Libc {
    private Libc() {}

    public static final int O_RDONLY = 0, O_RDWR = 2, O_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
    private static final int F_GETFL = 3, F_SETFL = 4;

    // Buffers are passed as raw addresses (JAVA_LONG): slicing a segment per call would allocate.
    private static final FunctionDescriptor RW_RAW =
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final FunctionDescriptor RW_SEG =
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
    private static final Linker.Option HEAP = Linker.Option.critical(true);

    private static final MethodHandle READ = downcall("read", RW_RAW);
    private static final MethodHandle READ_HEAP = downcall("read", RW_SEG, HEAP);
    private static final MethodHandle WRITE = downcall("write", RW_RAW);
    private static final MethodHandle WRITE_HEAP = downcall("write", RW_SEG, HEAP);
    private static final FunctionDescriptor IOV =
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle READV = downcall("readv", IOV);
    private static final MethodHandle WRITEV = downcall("writev", IOV);
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // open(path, flags, ...) and fcntl(fd, cmd, ...) are variadic; the third argument is the variadic one.
    private static final MethodHandle OPEN = downcall("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle FCNTL = downcall("fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle GETTID =
            Native.downcallNoErrno("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETPID =
            Native.downcallNoErrno("getpid", FunctionDescriptor.of(JAVA_INT));

    /** Bytes read, 0 at end of file, or -errno. */
    public static int read(int fd, MemorySegment buf, long offset, int len) {
        MemorySegment err = scratch().errno;
        long r;
        try {
            if (buf.isNative()) {
                r = (long) READ.invokeExact(err, fd, address(buf, offset, len), (long) len);
            } else {
                r = (long) READ_HEAP.invokeExact(err, fd, buf.asSlice(offset, len), (long) len);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? -errno(err) : (int) r;
    }

    /** Bytes written or -errno. */
    public static int write(int fd, MemorySegment buf, long offset, int len) {
        MemorySegment err = scratch().errno;
        long r;
        try {
            if (buf.isNative()) {
                r = (long) WRITE.invokeExact(err, fd, address(buf, offset, len), (long) len);
            } else {
                r = (long) WRITE_HEAP.invokeExact(err, fd, buf.asSlice(offset, len), (long) len);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
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
        long r;
        try {
            r = (long) WRITEV.invokeExact(err, fd, address(iov, 0, 16L * count), count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? -errno(err) : r;
    }

    private static long vector(MethodHandle call, int fd, MemorySegment a, long offA, int lenA,
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
        long r;
        try {
            r = (long) call.invokeExact(s.errno, fd, iov.address(), count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? -errno(s.errno) : r;
    }

    /** 0 or -errno. The descriptor is released even when this reports EINTR (Linux semantics). */
    public static int close(int fd) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) CLOSE.invokeExact(err, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? -errno(err) : r;
    }

    /** Opens an existing file; throws {@link SysException} on failure. */
    public static int open(String path, int flags) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) OPEN.invokeExact(err, arena.allocateFrom(path), flags, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) {
            throw new SysException("open " + path, errno(err));
        }
        return r;
    }

    /** Sets O_NONBLOCK; throws {@link SysException} on failure. */
    public static void setNonBlocking(int fd) {
        int flags = fcntl(fd, F_GETFL, 0);
        if ((flags & O_NONBLOCK) == 0) {
            fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        }
    }

    private static int fcntl(int fd, int cmd, int arg) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) FCNTL.invokeExact(err, fd, cmd, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) {
            throw new SysException("fcntl fd " + fd, errno(err));
        }
        return r;
    }

    /** Kernel thread id of the calling (platform) thread, as in /proc/PID/task/TID. */
    public static int gettid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getpid() {
        try {
            return (int) GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
