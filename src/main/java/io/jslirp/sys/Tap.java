package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Tap devices through /dev/net/tun. */
public final class Tap {
    private Tap() {}

    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TAP = 0x0002, IFF_NO_PI = 0x1000, IFF_MULTI_QUEUE = 0x0100;

    /**
     * Opens /dev/net/tun as the tap device ifname (IFF_TAP | IFF_NO_PI; created if missing),
     * non-blocking and close-on-exec, in the calling thread's network namespace. Throws
     * {@link SysException}, e.g. "cannot create tap device tap0: Operation not permitted (EPERM)".
     */
    public static int open(String ifname) {
        return open(ifname, (short) 0);
    }

    /**
     * Opens the tap device ifname with the given number of queues (IFF_MULTI_QUEUE), one
     * descriptor each, like {@link #open}. An existing single-queue device of that name is
     * opened with its one queue.
     */
    public static int[] openQueues(String ifname, int queues) {
        if (queues == 1) return new int[] {open(ifname)};
        int[] fds = new int[queues];
        for (int i = 0; i < queues; i++) {
            try {
                fds[i] = open(ifname, IFF_MULTI_QUEUE);
            } catch (SysException e) {
                for (int j = 0; j < i; j++) Libc.close(fds[j]);
                if (i == 0 && e.errno() == Errno.EINVAL) return new int[] {open(ifname)};
                throw e;
            }
        }
        return fds;
    }

    private static int open(String ifname, short flags) {
        int fd;
        try {
            fd = Libc.open("/dev/net/tun", Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC);
        } catch (SysException e) {
            throw new SysException("cannot create tap device " + ifname + ": open /dev/net/tun", e.errno());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            ifr.set(JAVA_SHORT, Ifreq.UNION, (short) (IFF_TAP | IFF_NO_PI | flags));
            int r = Native.ioctl(fd, TUNSETIFF, ifr.address());
            if (r < 0) {
                Libc.close(fd);
                throw new SysException("cannot create tap device " + ifname, -r);
            }
        }
        return fd;
    }
}
