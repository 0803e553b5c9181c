package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Tap devices through /dev/net/tun. */
public final class Tap {
    private Tap() {}

    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TAP = 0x0002, IFF_NO_PI = 0x1000;

    /**
     * Opens /dev/net/tun as the tap device ifname (IFF_TAP | IFF_NO_PI; created if missing),
     * non-blocking and close-on-exec, in the calling thread's network namespace. Throws
     * {@link SysException}, e.g. "cannot create tap device tap0: Operation not permitted (EPERM)".
     */
    public static int open(String ifname) {
        int fd;
        try {
            fd = Libc.open("/dev/net/tun", Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC);
        } catch (SysException e) {
            throw new SysException("cannot create tap device " + ifname + ": open /dev/net/tun", e.errno());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            ifr.set(JAVA_SHORT, Ifreq.UNION, (short) (IFF_TAP | IFF_NO_PI));
            int r = Native.ioctl(fd, TUNSETIFF, ifr.address());
            if (r < 0) {
                Libc.close(fd);
                throw new SysException("cannot create tap device " + ifname, -r);
            }
        }
        return fd;
    }
}
