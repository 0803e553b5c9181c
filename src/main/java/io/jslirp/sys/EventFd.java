package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** A non-blocking eventfd: lets another thread wake an epoll loop. */
public final class EventFd implements AutoCloseable {
    private static final int EFD_NONBLOCK = 0x800, EFD_CLOEXEC = 0x80000;
    private static final MethodHandle EVENTFD = Native.downcall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    private final int fd;
    private final MemorySegment counter = Arena.ofAuto().allocate(8, 8);

    public EventFd() {
        MemorySegment err = Native.scratch().errno;
        int r;
        try {
            r = (int) EVENTFD.invokeExact(err, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (r < 0) throw new SysException("eventfd", Native.errno(err));
        fd = r;
    }

    public int fd() {
        return fd;
    }

    /** Makes the descriptor readable; safe from any thread. */
    public void signal() {
        synchronized (counter) {
            counter.set(ValueLayout.JAVA_LONG, 0, 1L);
            Libc.write(fd, counter, 0, 8);
        }
    }

    /** Resets the descriptor to not readable. */
    public void drain() {
        synchronized (counter) {
            Libc.read(fd, counter, 0, 8);
        }
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
