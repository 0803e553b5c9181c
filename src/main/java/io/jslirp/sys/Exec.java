package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** Replacing this process's program, and the descriptors the next program inherits. */
public final class Exec {
    private Exec() {}

    private static final long EXECVE = nr(59, 221), CLOSE_RANGE = nr(436, 436), FCNTL = nr(72, 25);
    private static final int CLOSE_RANGE_CLOEXEC = 1 << 2, F_GETFD = 1, F_SETFD = 2, FD_CLOEXEC = 1;

    /**
     * Marks every descriptor from 3 up close-on-exec but those in keep, which are made inheritable:
     * the next program gets stdio, keep and nothing else this process had open.
     */
    public static void inheritOnly(int... keep) {
        MemorySegment err = scratch().errno;
        if ((int) syscall(CLOSE_RANGE, err, 3, 0xffffffffL, CLOSE_RANGE_CLOEXEC) < 0) {
            throw new SysException("close_range CLOSE_RANGE_CLOEXEC", errno(err));
        }
        for (int fd : keep) {
            int flags = (int) syscall(FCNTL, err, fd, F_GETFD, 0);
            if (flags < 0 || (int) syscall(FCNTL, err, fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
                throw new SysException("fcntl F_SETFD fd " + fd, errno(err));
            }
        }
    }

    /**
     * execve(2) from the calling thread: the kernel ends every other thread and this one runs
     * program with argv and env (each "NAME=value"). Returns only by throwing {@link SysException}.
     */
    public static void execve(String program, List<String> argv, List<String> env) {
        MemorySegment err = scratch().errno;
        int e;
        try (Arena arena = Arena.ofConfined()) {
            long r = syscall(EXECVE, err, arena.allocateFrom(program).address(), strings(arena, argv).address(),
                    strings(arena, env).address());
            e = r < 0 ? errno(err) : Errno.EINVAL;
        }
        throw new SysException("execve " + program, e);
    }

    /** A NULL-terminated array of C strings. */
    private static MemorySegment strings(Arena arena, List<String> values) {
        MemorySegment array = arena.allocate(ValueLayout.ADDRESS, values.size() + 1L);
        for (int i = 0; i < values.size(); i++) array.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(values.get(i)));
        array.setAtIndex(ValueLayout.ADDRESS, values.size(), MemorySegment.NULL);
        return array;
    }
}
