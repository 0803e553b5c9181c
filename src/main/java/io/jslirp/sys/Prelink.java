package io.jslirp.sys;

/**
 * Links, on a thread of its own, the native calls that starting an instance makes, while the
 * caller goes on parsing its command line: each takes milliseconds to link, and on a machine with
 * a free core that time no longer adds to start-up. A call the caller needs before its turn here
 * is linked by the caller (or waits for this thread if it is linking that very call).
 */
public final class Prelink {
    /** The C functions a {@code jslirp run} or {@code attach} calls to start, in about the order it calls them. */
    private static final String[] AT_START = {"unshare", "setns", "open", "ioctl", "socket", "close", "eventfd", "epoll_create1",
            "epoll_ctl", "epoll_wait", "write", "read", "readv"};

    private Prelink() {
    }

    /** Starts the linking (a daemon thread: it does not keep the JVM alive). */
    public static void startInBackground() {
        Thread.ofPlatform().daemon().name("jslirp-prelink").start(() -> {
            // Loading these classes creates their downcalls, which are linked below.
            for (Class<?> c : new Class<?>[] {Namespaces.class, Libc.class, Sockets.class, EventFd.class, Epoll.class}) {
                try {
                    Class.forName(c.getName(), true, c.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(e);
                }
            }
            for (String name : AT_START) LazyDowncall.link(name);
        });
    }
}
