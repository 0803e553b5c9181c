package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A non-blocking timerfd on the monotonic clock, for tests: readable once its one-shot timer expires. */
public final class TimerFd implements AutoCloseable {
    private static final int CLOCK_MONOTONIC = 1, TFD_NONBLOCK = 0x800, TFD_CLOEXEC = 0x80000;
    private static final long CREATE = Native.nr(283, 85), SETTIME = Native.nr(286, 86);

    private final int fd;
    private final MemorySegment buffer = Arena.ofAuto().allocate(32, 8);

    public TimerFd() {
        MemorySegment err = Native.scratch().errno;
        int r = (int) Native.syscall(CREATE, err, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (r < 0) throw new SysException("timerfd_create", Native.errno(err));
        fd = r;
    }

    public int fd() {
        return fd;
    }

    /** Makes the descriptor readable nanos from now. */
    public void arm(long nanos) {
        buffer.fill((byte) 0); // struct itimerspec: no interval, then the expiry
        buffer.set(JAVA_LONG, 16, nanos / 1_000_000_000L);
        buffer.set(JAVA_LONG, 24, nanos % 1_000_000_000L);
        MemorySegment err = Native.scratch().errno;
        if (Native.syscall(SETTIME, err, fd, 0, buffer.address(), 0) < 0) {
            throw new SysException("timerfd_settime", Native.errno(err));
        }
    }

    /** Takes the expiry count, making the descriptor not readable. */
    public void drain() {
        Libc.read(fd, buffer, 0, 8);
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
