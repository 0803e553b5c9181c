package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A non-blocking eventfd: lets another thread wake an epoll loop. */
public final class EventFd implements AutoCloseable {
    private static final int EFD_NONBLOCK = 0x800, EFD_CLOEXEC = 0x80000;
    private static final long EVENTFD2 = Native.nr(290, 19);

    private final int fd;
    private final MemorySegment counter = Arena.ofAuto().allocate(8, 8);

    public EventFd() {
        MemorySegment err = Native.scratch().errno;
        int r = (int) Native.syscall(EVENTFD2, err, 0, EFD_NONBLOCK | EFD_CLOEXEC);
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
