package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A few descriptors polled for input with ppoll(2), without waiting: to check a handful of them
 * when the loop's epoll set has others always ready. Nothing is allocated per call. Meant for one thread.
 */
public final class Poll {
    /** Event bits, the same values as {@link Epoll}'s. */
    public static final int IN = 0x1, ERR = 0x8, HUP = 0x10;
    private static final long PPOLL = nr(271, 73);
    private static final int POLLFD_SIZE = 8;

    private final int capacity;
    private final MemorySegment fds;
    /** A struct timespec of zero. */
    private final MemorySegment zeroTimeout;
    private int count;

    public Poll(int capacity) {
        this.capacity = capacity;
        Arena arena = Arena.ofAuto();
        fds = arena.allocate((long) POLLFD_SIZE * capacity, 8);
        zeroTimeout = arena.allocate(16, 8);
    }

    /** Adds fd for input; false when the set is full. */
    public boolean add(int fd) {
        if (count == capacity) return false;
        fds.set(JAVA_INT, (long) count * POLLFD_SIZE, fd);
        fds.set(JAVA_SHORT, (long) count * POLLFD_SIZE + 4, (short) IN);
        count++;
        return true;
    }

    public int size() {
        return count;
    }

    public void clear() {
        count = 0;
    }

    /** Polls the set without waiting: the number of descriptors with input, 0 if none (or a signal came), or -errno. */
    public int poll() {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(PPOLL, err, fds.address(), count, zeroTimeout.address(), 0, 0);
        if (r >= 0) return r;
        int e = errno(err);
        return e == Errno.EINTR ? 0 : -e;
    }

    /** The i-th descriptor of the set. */
    public int fd(int i) {
        return fds.get(JAVA_INT, (long) i * POLLFD_SIZE);
    }

    /** The events the last {@link #poll} found on the i-th descriptor (0 if none). */
    public int readyEvents(int i) {
        return fds.get(JAVA_SHORT, (long) i * POLLFD_SIZE + 6) & 0xffff;
    }
}
