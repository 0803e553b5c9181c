package io.jslirp.link;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.TimerFd;
import io.jslirp.util.Log;

/**
 * The listening socket of a link that polls its own descriptors (the stream and vhost-user
 * links), resting while accept fails for want of resources ({@link Errno#isResourceShortage}).
 *
 * <p>Such a link stands in the loop as one descriptor, its own epoll instance. A listener whose
 * waiting client cannot be taken (no descriptor left) stays readable, so that epoll instance does
 * too, and the loop would call the link and fail the accept in every iteration: a core at 100 %.
 * Resting, the listener is out of the link's epoll instance and a one-shot timer descriptor in it
 * brings it back after {@link #REST_NANOS}; the front-end waits in the kernel's accept queue and
 * is taken once a flow's end has freed a descriptor. The loop's own listeners rest the same way
 * through its timers (loop.AcceptPause), which a link does not have. Warns once.
 */
final class ListenerRest implements AutoCloseable {
    /** How long the listener rests after accept failed for want of resources. */
    static final long REST_NANOS = 100_000_000L;

    private final Epoll poller;
    private final int listener;
    private final int listenerTag;
    private final String what;
    private final TimerFd timer = new TimerFd();
    private boolean resting;
    private boolean warned;

    /**
     * For listener, watched by poller for Epoll.IN with listenerTag; the timer goes into poller
     * with timerTag. what names the listener in the warning ("the VM's socket PATH").
     */
    ListenerRest(Epoll poller, int listener, int listenerTag, int timerTag, String what) {
        this.poller = poller;
        this.listener = listener;
        this.listenerTag = listenerTag;
        this.what = what;
        poller.add(timer.fd(), Epoll.IN, timerTag);
    }

    /**
     * accept on the listener returned -errno: for want of resources the listener rests (and this
     * says true); otherwise (EAGAIN, a client gone before it was taken) it stays watched.
     */
    boolean failed(int errno) {
        if (!Errno.isResourceShortage(errno)) return false;
        if (!warned) {
            warned = true;
            Log.warn(what + ": cannot take a connection (" + Errno.describe(errno)
                    + "): it waits, and is taken once a descriptor is free");
        }
        if (!resting) {
            resting = true;
            poller.remove(listener);
        }
        timer.arm(REST_NANOS);
        return true;
    }

    /** Whether the listener rests now: out of the poller, which must not take it back before {@link #wake}. */
    boolean resting() {
        return resting;
    }

    /**
     * Reads the timer if it fired (its descriptor is then no longer readable) and, the rest being
     * over, puts the listener back in the poller: whether it did. A link calls it when the timer's
     * tag comes up, or while {@link #resting} before it looks for a connection.
     */
    boolean wake() {
        if (!timer.drain() || !resting) return false;
        resting = false;
        poller.add(listener, Epoll.IN, listenerTag);
        return true;
    }

    @Override
    public void close() {
        timer.close();
    }
}
