package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A non-blocking one-shot timer descriptor on the monotonic clock (timerfd): readable once it
 * fires, for an epoll instance to wait on with a resolution finer than epoll_wait's milliseconds.
 */
public final class TimerFd implements AutoCloseable {
    private static final int CLOCK_MONOTONIC = 1, TFD_NONBLOCK = 0x800, TFD_CLOEXEC = 0x80000;
    private static final long CREATE = Native.nr(283, 85), SETTIME = Native.nr(286, 86);

    private final int fd;
    /** struct itimerspec: it_interval (left zero: one shot), then it_value. */
    private final MemorySegment spec = Arena.ofAuto().allocate(32, 8);
    private final MemorySegment counter = Arena.ofAuto().allocate(8, 8);
    private boolean armed;

    public TimerFd() {
        MemorySegment err = Native.scratch().errno;
        int r = (int) Native.syscall(CREATE, err, CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (r < 0) throw new SysException("timerfd_create", Native.errno(err));
        fd = r;
    }

    public int fd() {
        return fd;
    }

    /** Whether it was armed and has not fired and been {@link #drain drained} since. */
    public boolean armed() {
        return armed;
    }

    /** Arms it to fire once, nanos (at least 1) from now; an armed timer is set anew. */
    public void arm(long nanos) {
        nanos = Math.max(nanos, 1); // (0 would disarm it)
        spec.set(ValueLayout.JAVA_LONG, 16, nanos / 1_000_000_000L);
        spec.set(ValueLayout.JAVA_LONG, 24, nanos % 1_000_000_000L);
        MemorySegment err = Native.scratch().errno;
        long r = Native.syscall(SETTIME, err, fd, 0, Native.address(spec, 0, 32), 0);
        if (r < 0) throw new SysException("timerfd_settime", Native.errno(err));
        armed = true;
    }

    /** Reads a fire, if any, so that the descriptor is no longer readable: whether it had fired (the timer is then unarmed). */
    public boolean drain() {
        boolean fired = Libc.read(fd, counter, 0, 8) == 8;
        if (fired) armed = false;
        return fired;
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
