package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Interface and route configuration through ioctl on an AF_INET datagram socket opened in the calling
 * thread's network namespace (run it on the thread that made or joined the namespace). Each method
 * throws {@link SysException} naming the interface and the operation.
 */
public final class InterfaceConfig {
    private InterfaceConfig() {}

    private static final long SIOCADDRT = 0x890B, SIOCGIFFLAGS = 0x8913, SIOCSIFFLAGS = 0x8914,
            SIOCSIFADDR = 0x8916, SIOCSIFNETMASK = 0x891C, SIOCSIFMTU = 0x8922, SIOCSIFHWADDR = 0x8924,
            SIOCSIFTXQLEN = 0x8943;
    private static final short IFF_UP = 0x1;
    private static final short ARPHRD_ETHER = 1;
    private static final short RTF_UP = 0x1, RTF_GATEWAY = 0x2;

    // struct rtentry on 64-bit Linux (checked with gcc on x86_64): 120 bytes; rt_pad1 (8), then
    // sockaddr rt_dst at 8, rt_gateway at 24, rt_genmask at 40, unsigned short rt_flags at 56.
    private static final long RTENTRY_SIZE = 120, RT_DST = 8, RT_GATEWAY = 24, RT_GENMASK = 40, RT_FLAGS = 56;

    /** SIOCGIFFLAGS, then SIOCSIFFLAGS with IFF_UP added. */
    public static void setUp(String ifname) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            int sock = socket("bring up " + ifname);
            try {
                ioctl(sock, SIOCGIFFLAGS, ifr, "get flags of " + ifname);
                ifr.set(JAVA_SHORT, Ifreq.UNION, (short) (ifr.get(JAVA_SHORT, Ifreq.UNION) | IFF_UP));
                ioctl(sock, SIOCSIFFLAGS, ifr, "bring up " + ifname);
            } finally {
                Libc.close(sock);
            }
        }
    }

    /** SIOCSIFMTU. */
    public static void setMtu(String ifname, int mtu) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            ifr.set(JAVA_INT, Ifreq.UNION, mtu);
            ioctlOnce(SIOCSIFMTU, ifr, "set MTU " + mtu + " on " + ifname);
        }
    }

    /** SIOCSIFTXQLEN: for a tap, the frames it queues for its reader before it drops. */
    public static void setTxQueueLength(String ifname, int frames) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            ifr.set(JAVA_INT, Ifreq.UNION, frames);
            ioctlOnce(SIOCSIFTXQLEN, ifr, "set queue length " + frames + " on " + ifname);
        }
    }

    /** SIOCSIFHWADDR with an Ethernet address. */
    public static void setMac(String ifname, byte[] mac6) {
        if (mac6.length != 6) {
            throw new IllegalArgumentException("MAC address must be 6 bytes, not " + mac6.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            ifr.set(JAVA_SHORT, Ifreq.UNION, ARPHRD_ETHER); // sa_family, then sa_data
            MemorySegment.copy(mac6, 0, ifr, JAVA_BYTE, Ifreq.UNION + 2, 6);
            ioctlOnce(SIOCSIFHWADDR, ifr, "set MAC address on " + ifname);
        }
    }

    /** SIOCSIFADDR, then SIOCSIFNETMASK (the kernel derives the broadcast address). */
    public static void setIpv4(String ifname, int addr, int prefixLength) {
        if (prefixLength < 0 || prefixLength > 32) {
            throw new IllegalArgumentException("prefix length out of range: " + prefixLength);
        }
        int mask = prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
        String what = "set address " + ipv4(addr) + "/" + prefixLength + " on " + ifname;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = Ifreq.allocate(arena, ifname);
            int sock = socket(what);
            try {
                Native.sockaddrIn(ifr, Ifreq.UNION, addr, 0);
                ioctl(sock, SIOCSIFADDR, ifr, what);
                Native.sockaddrIn(ifr, Ifreq.UNION, mask, 0);
                ioctl(sock, SIOCSIFNETMASK, ifr, what + " (netmask)");
            } finally {
                Libc.close(sock);
            }
        }
    }

    /** SIOCADDRT: 0.0.0.0/0 via gateway (RTF_UP | RTF_GATEWAY); the kernel picks the interface. */
    public static void addDefaultRoute(int gateway) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rt = arena.allocate(RTENTRY_SIZE, 8);
            Native.sockaddrIn(rt, RT_DST, 0, 0);
            Native.sockaddrIn(rt, RT_GATEWAY, gateway, 0);
            Native.sockaddrIn(rt, RT_GENMASK, 0, 0);
            rt.set(JAVA_SHORT, RT_FLAGS, (short) (RTF_UP | RTF_GATEWAY));
            ioctlOnce(SIOCADDRT, rt, "add default route via " + ipv4(gateway));
        }
    }

    private static void ioctlOnce(long request, MemorySegment arg, String what) {
        int sock = socket(what);
        try {
            ioctl(sock, request, arg, what);
        } finally {
            Libc.close(sock);
        }
    }

    private static int socket(String what) {
        int sock = Sockets.udp4();
        if (sock < 0) {
            throw new SysException(what + ": socket", -sock);
        }
        return sock;
    }

    private static void ioctl(int sock, long request, MemorySegment arg, String what) {
        int r = Native.ioctl(sock, request, arg.address());
        if (r < 0) {
            throw new SysException(what, -r);
        }
    }

    private static String ipv4(int a) {
        return (a >>> 24) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
    }
}
