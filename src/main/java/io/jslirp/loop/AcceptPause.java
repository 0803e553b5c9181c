package io.jslirp.loop;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.util.Log;

/**
 * A listening socket that stops being watched for a while when accept fails for want of
 * resources: no descriptor left (EMFILE, ENFILE: the instance's ulimit -n, or the system's) or no
 * memory (ENOBUFS, ENOMEM). Its clients stay in the kernel's accept queue, and the loop does not
 * spin: a listener watched by level (epoll without EPOLLET) stays ready while clients wait, so each
 * iteration would try the accept again at once (a forwarded port at the descriptor limit held a
 * core at 100 %). After {@link #PAUSE_NANOS} it is watched again, and what a closed flow freed is
 * taken up. Warns once per listener.
 */
public final class AcceptPause {
    /** How long a listener rests after accept failed for want of resources. */
    public static final long PAUSE_NANOS = 100_000_000L;

    private final Reactor loop;
    private final int fd;
    private final String what;
    private final Timer resume;
    private boolean warned;

    /** For fd, a listener registered on loop for Epoll.IN; what names it in the warning. */
    public AcceptPause(Reactor loop, int fd, String what) {
        this.loop = loop;
        this.fd = fd;
        this.what = what;
        this.resume = new Timer(() -> loop.modify(fd, Epoll.IN));
    }

    /**
     * accept on the listener returned -errno (the caller stops accepting for this event): for want
     * of resources, the listener rests. EAGAIN, and a client that went away before it was taken,
     * leave it watched.
     */
    public void failed(int errno) {
        if (!Errno.isResourceShortage(errno)) return;
        if (!warned) {
            warned = true;
            Log.warn(what + ": cannot take a client (" + Errno.describe(errno) + "): clients wait, and are taken as flows end");
        }
        loop.modify(fd, 0);
        loop.schedule(resume, loop.clock().now() + PAUSE_NANOS);
    }

    /** The listener closes: no resumption. */
    public void cancel() {
        loop.schedule(resume, Long.MAX_VALUE);
    }
}
