package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Tap devices through /dev/net/tun. */
public final class Tap {
    private Tap() {}

    private static final long TUNSETIFF = 0x400454caL, TUNSETPERSIST = 0x400454cbL, TUNSETOFFLOAD = 0x400454d0L;
    private static final short IFF_TAP = 0x0002, IFF_NO_PI = 0x1000, IFF_MULTI_QUEUE = 0x0100, IFF_VNET_HDR = 0x4000;
    /** TUNSETOFFLOAD flags: the guest may hand over partial checksums and TCP segments of up to 64 KiB. */
    private static final int TUN_F_CSUM = 0x01, TUN_F_TSO4 = 0x02, TUN_F_TSO6 = 0x04, TUN_F_TSO_ECN = 0x08;
    /** The clone device every tap is opened through. */
    public static final String CLONE_DEVICE = "/dev/net/tun";
    /** Size of the struct virtio_net_hdr before each frame on a tap opened with {@link #openQueues}'s vnetHeader. */
    public static final int VNET_HEADER_LENGTH = 10;

    /**
     * Opens /dev/net/tun as the tap device ifname (IFF_TAP | IFF_NO_PI; created if missing),
     * non-blocking and close-on-exec, in the calling thread's network namespace. Throws
     * {@link TunUnusable} when /dev/net/tun cannot be opened, else {@link SysException}, e.g.
     * "cannot create tap device tap0: Operation not permitted (EPERM)".
     */
    public static int open(String ifname) {
        return open(ifname, (short) 0);
    }

    /**
     * Opens the tap device ifname with the given number of queues (IFF_MULTI_QUEUE), one
     * descriptor each, like {@link #open}. An existing single-queue device of that name is
     * opened with its one queue. With vnetHeader, every read and write carries a struct
     * virtio_net_hdr ({@link #VNET_HEADER_LENGTH} bytes) before the frame, and the device offers
     * the guest checksum and TCP segmentation offload ({@link #offloadTcp}).
     */
    public static int[] openQueues(String ifname, int queues, boolean vnetHeader) {
        short extra = vnetHeader ? IFF_VNET_HDR : 0;
        if (queues == 1) return new int[] {open(ifname, extra)};
        int[] fds = new int[queues];
        for (int i = 0; i < queues; i++) {
            try {
                fds[i] = open(ifname, (short) (IFF_MULTI_QUEUE | extra));
            } catch (RuntimeException e) {
                for (int j = 0; j < i; j++) Libc.close(fds[j]);
                if (i == 0 && e instanceof SysException s && s.errno() == Errno.EINVAL) return new int[] {open(ifname, extra)};
                throw e;
            }
        }
        return fds;
    }

    /**
     * Lets the guest send TCP segments of up to 64 KiB with partial checksums through the tap
     * whose (vnet-header) descriptor fd is given (TUNSETOFFLOAD): it then skips segmenting and
     * checksumming them itself, and so does jslirp.
     */
    public static void offloadTcp(int fd) {
        int r = Native.ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN);
        if (r < 0) throw new SysException("cannot enable offloads on the tap device", -r);
    }

    /**
     * Lets the device of the (any) descriptor fd outlive its descriptors (TUNSETPERSIST): it goes
     * with its network namespace instead, which the kernel tears down in the background. Closing
     * the last descriptor of a device that does not persist waits for the device to be
     * unregistered (docs/benchmarks.md, Why the code is as it is).
     */
    public static void persist(int fd) {
        persist(fd, true);
    }

    /**
     * Sets whether the device of fd outlives its descriptors (TUNSETPERSIST). A device that no
     * longer persists goes when its last descriptor closes.
     */
    public static void persist(int fd, boolean persistent) {
        int r = Native.ioctl(fd, TUNSETPERSIST, persistent ? 1 : 0);
        if (r < 0) throw new SysException("cannot make the tap device " + (persistent ? "persistent" : "transient"), -r);
    }

    /** /dev/net/tun itself could not be opened (missing, or not usable by this user). */
    public static final class TunUnusable extends RuntimeException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;
        private final int errno;

        public TunUnusable(String ifname, int errno) {
            super("cannot create tap device " + ifname + ": open " + CLONE_DEVICE + ": " + Errno.describe(errno));
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    private static int open(String ifname, short flags) {
        int fd;
        try {
            fd = Libc.open(CLONE_DEVICE, Libc.O_RDWR | Libc.O_NONBLOCK | Libc.O_CLOEXEC);
        } catch (SysException e) {
            throw new TunUnusable(ifname, e.errno());
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
