package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An epoll instance with a pre-allocated event array. Each registration stores the fd in
 * {@code data.u64}, so {@link #readyFd(int)} gives the descriptor back. Meant for one thread.
 */
public final class Epoll implements AutoCloseable {
    public static final int IN = 0x1, PRI = 0x2, OUT = 0x4, ERR = 0x8, HUP = 0x10, RDHUP = 0x2000;
    public static final int ET = 1 << 31;

    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int CTL_ADD = 1, CTL_DEL = 2, CTL_MOD = 3;
    // struct epoll_event { uint32_t events; epoll_data_t data; } is packed on x86_64 only.
    private static final int EVENT_SIZE = Native.X86_64 ? 12 : 16;
    private static final int DATA_OFFSET = Native.X86_64 ? 4 : 8;
    private static final ValueLayout.OfLong DATA_U64 = JAVA_LONG.withByteAlignment(4);

    // System call numbers (x86-64, aarch64); aarch64 has no epoll_wait, only epoll_pwait.
    private static final long CREATE1 = nr(291, 20), CTL = nr(233, 21), PWAIT = nr(281, 22);

    private final int epfd;
    private final int maxEvents;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment events;
    private final MemorySegment ctlEvent;
    private boolean closed;

    /** epoll_create1(EPOLL_CLOEXEC); throws {@link SysException}. */
    public Epoll(int maxEvents) {
        if (maxEvents <= 0) {
            throw new IllegalArgumentException("maxEvents must be positive: " + maxEvents);
        }
        this.maxEvents = maxEvents;
        MemorySegment err = scratch().errno;
        int fd = (int) syscall(CREATE1, err, EPOLL_CLOEXEC);
        if (fd < 0) {
            arena.close();
            throw new SysException("epoll_create1", errno(err));
        }
        epfd = fd;
        events = arena.allocate((long) EVENT_SIZE * maxEvents, 8);
        ctlEvent = arena.allocate(16, 8);
    }

    /** The epoll descriptor itself (e.g. to nest it in another epoll). */
    public int fd() {
        return epfd;
    }

    public void add(int fd, int events) {
        add(fd, events, 0);
    }

    /** Adds fd with a tag that comes back with its events ({@link #readyTag}). */
    public void add(int fd, int events, int tag) {
        int e = ctl(CTL_ADD, fd, events, tag);
        if (e != 0) {
            throw new SysException("epoll_ctl ADD fd " + fd, e);
        }
    }

    public void modify(int fd, int events) {
        modify(fd, events, 0);
    }

    /** Changes fd's events; the tag must be the one it was added with. */
    public void modify(int fd, int events, int tag) {
        int e = ctl(CTL_MOD, fd, events, tag);
        if (e != 0) {
            throw new SysException("epoll_ctl MOD fd " + fd, e);
        }
    }

    /** Removes fd; a descriptor that is not registered or already closed is not an error. */
    public void remove(int fd) {
        int e = ctl(CTL_DEL, fd, 0, 0);
        if (e != 0 && e != Errno.ENOENT && e != Errno.EBADF) {
            throw new SysException("epoll_ctl DEL fd " + fd, e);
        }
    }

    /** 0 or errno. */
    private int ctl(int op, int fd, int events, int tag) {
        ctlEvent.set(JAVA_INT, 0, events);
        ctlEvent.set(DATA_U64, DATA_OFFSET, ((long) tag << 32) | (fd & 0xffffffffL));
        MemorySegment err = scratch().errno;
        int r = (int) syscall(CTL, err, epfd, op, fd, ctlEvent.address());
        return r < 0 ? errno(err) : 0;
    }

    /**
     * Waits up to timeoutMillis (-1 = forever, 0 = poll). Returns the number of ready descriptors,
     * 0 when interrupted by a signal (EINTR), or -errno for other failures (a bad epoll fd).
     */
    public int wait(int timeoutMillis) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(PWAIT, err, epfd, events.address(), maxEvents, timeoutMillis, 0); // no signal mask
        if (r >= 0) {
            return r;
        }
        int e = errno(err);
        return e == Errno.EINTR ? 0 : -e;
    }

    /** The descriptor of the i-th ready event of the last {@link #wait}. */
    public int readyFd(int i) {
        return events.get(JAVA_INT, (long) i * EVENT_SIZE + DATA_OFFSET);
    }

    /** The tag the i-th ready event's descriptor was added with. */
    public int readyTag(int i) {
        return events.get(JAVA_INT, (long) i * EVENT_SIZE + DATA_OFFSET + 4);
    }

    /** The event bits of the i-th ready event of the last {@link #wait}. */
    public int readyEvents(int i) {
        return events.get(JAVA_INT, (long) i * EVENT_SIZE);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(epfd);
        arena.close();
    }
}
