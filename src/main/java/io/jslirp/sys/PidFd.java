package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.MemorySegment;

/**
 * A descriptor for a process (pidfd_open, Linux 5.3): it becomes readable, for epoll and poll, when
 * the process exits, so a loop can wait for another process's end without polling /proc or taking
 * signals. pasta's stand-in exits when its target PID is gone; this tells it at once.
 */
public final class PidFd implements AutoCloseable {
    /** One number on x86-64 and aarch64: calls after 424 share the generic table. */
    private static final long PIDFD_OPEN = 434;

    private final int fd;
    private final int pid;
    private final Poll poll = new Poll(1);

    private PidFd(int fd, int pid) {
        this.fd = fd;
        this.pid = pid;
        poll.add(fd);
    }

    /**
     * Opens a descriptor for the process pid of this PID namespace (close-on-exec). Throws
     * {@link SysException}, e.g. "pidfd_open 4242: No such process (ESRCH)"; a process that has
     * exited but not been reaped is found, and its descriptor is readable at once.
     */
    public static PidFd open(int pid) {
        if (pid <= 0) throw new IllegalArgumentException("not a process ID: " + pid);
        MemorySegment err = scratch().errno;
        int r = (int) syscall(PIDFD_OPEN, err, pid, 0);
        if (r < 0) throw new SysException("pidfd_open " + pid, errno(err));
        return new PidFd(r, pid);
    }

    /** The descriptor, to add to an epoll set for input ({@link Epoll#IN}). */
    public int fd() {
        return fd;
    }

    public int pid() {
        return pid;
    }

    /** Whether the process has exited, without waiting. */
    public boolean exited() {
        int r = poll.poll();
        if (r < 0) throw new SysException("poll pidfd of " + pid, -r);
        return r > 0;
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
