package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

/**
 * Pipes and splice(2): bytes moved between a socket and a pipe inside the kernel, never copied
 * to user space (pasta's splice path between two sockets). Every call returns a non-negative
 * result or -errno and allocates nothing.
 */
public final class Pipes {
    private Pipes() {}

    /** splice flags: move pages rather than copy where possible; do not block on the pipe; more data follows. */
    public static final int SPLICE_F_MOVE = 1, SPLICE_F_NONBLOCK = 2, SPLICE_F_MORE = 4;

    private static final int O_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
    private static final int F_SETPIPE_SZ = 1031, F_GETPIPE_SZ = 1032;
    private static final long PIPE2 = nr(293, 59), SPLICE = nr(275, 76), FCNTL = nr(72, 25);

    /**
     * A non-blocking, close-on-exec pipe: its read end in the low 32 bits and its write end in the
     * high ones ({@link #readEnd}, {@link #writeEnd}), or -errno.
     */
    public static long pipe() {
        Native.Scratch s = scratch();
        long r = syscall(PIPE2, s.errno, s.value.address(), O_NONBLOCK | O_CLOEXEC);
        if (r < 0) return -errno(s.errno);
        return (s.value.get(JAVA_INT, 0) & 0xffffffffL) | (long) s.value.get(JAVA_INT, 4) << 32;
    }

    public static int readEnd(long pipe) {
        return (int) pipe;
    }

    public static int writeEnd(long pipe) {
        return (int) (pipe >>> 32);
    }

    /** Moves up to length bytes from in to out (one of them a pipe): bytes moved, 0 at end of stream, or -errno. */
    public static long splice(int in, int out, long length, int flags) {
        MemorySegment err = scratch().errno;
        long r = syscall(SPLICE, err, in, 0, out, 0, length, flags);
        return r < 0 ? -errno(err) : r;
    }

    /** Sets a pipe's capacity (the kernel rounds it up to pages): the capacity now, or -errno (EPERM above fs.pipe-max-size). */
    public static int setSize(int pipeFd, int bytes) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(FCNTL, err, pipeFd, F_SETPIPE_SZ, bytes);
        return r < 0 ? -errno(err) : r;
    }

    /** A pipe's capacity, or -errno. */
    public static int size(int pipeFd) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(FCNTL, err, pipeFd, F_GETPIPE_SZ);
        return r < 0 ? -errno(err) : r;
    }
}
