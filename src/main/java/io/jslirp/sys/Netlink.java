package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * Interfaces, addresses and routes through rtnetlink, in the network namespace of the thread that
 * opens it (a netlink socket stays bound to the namespace it was made in, so the instance may then
 * be used from any one thread at a time). What pasta configures in its namespace, and ioctl cannot:
 * IPv6 addresses (with IFA_F_NODAD, as pasta adds them: the address is the host's, so duplicate
 * address detection would only delay it) and IPv6 routes. Each request waits for the kernel's
 * answer; a refusal throws {@link SysException} naming the operation, e.g. "add address
 * 192.0.2.2/24 to tap0: File exists (EEXIST)".
 */
public final class Netlink implements AutoCloseable {
    private static final int AF_INET = 2, AF_INET6 = 10;
    private static final short RTM_NEWLINK = 16, RTM_GETLINK = 18, RTM_NEWADDR = 20, RTM_NEWROUTE = 24;
    private static final short NLM_F_ACK = NetlinkSocket.NLM_F_ACK, NLM_F_EXCL = 0x200, NLM_F_CREATE = 0x400;
    private static final short IFLA_IFNAME = 3, IFLA_MTU = 4;
    private static final short IFA_ADDRESS = 1, IFA_LOCAL = 2, IFA_BROADCAST = 4;
    private static final short RTA_DST = 1, RTA_OIF = 4, RTA_GATEWAY = 5, RTA_PRIORITY = 6;
    private static final int IFF_UP = 0x1, IFA_F_NODAD = 0x02;
    private static final int RT_TABLE_MAIN = 254, RTPROT_BOOT = 3, RT_SCOPE_UNIVERSE = 0, RT_SCOPE_LINK = 253, RTN_UNICAST = 1;

    /** struct ifinfomsg is 16 bytes (its index at 4), ifaddrmsg 8, rtmsg 12. */
    private static final int IFINFOMSG = 16, IFADDRMSG = 8, RTMSG = 12;

    /** An interface of this namespace: its index and the name it was looked up by (for messages). */
    public record Link(int index, String name) {}

    /**
     * A route: to destination/prefixLength (the network's address; 0.0.0.0/0 or ::/0 for the
     * default), via gateway or, when it is null, on-link, with a metric (0: the kernel's default,
     * 1024 for IPv6).
     */
    public record Route(InetAddress destination, int prefixLength, InetAddress gateway, int metric) {
        public Route {
            int bits = destination.getAddress().length * 8;
            if (prefixLength < 0 || prefixLength > bits) {
                throw new IllegalArgumentException("prefix length " + prefixLength + " out of range for " + format(destination));
            }
            if (gateway != null && gateway.getClass() != destination.getClass()) {
                throw new IllegalArgumentException("gateway " + format(gateway) + " is not of the destination's IP version");
            }
            if (metric < 0) throw new IllegalArgumentException("negative metric " + metric);
        }

        /** The default route of gateway's IP version, via gateway. */
        public static Route defaultVia(InetAddress gateway) {
            return new Route(any(gateway), 0, gateway, 0);
        }

        /** How ip route writes it: "default via 192.0.2.1", "203.0.113.0/24", "2001:db8::/32 via fd00::1". */
        @Override
        public String toString() {
            String to = prefixLength == 0 ? "default" : format(destination) + "/" + prefixLength;
            return gateway == null ? to : to + " via " + format(gateway);
        }

        private static InetAddress any(InetAddress like) {
            try {
                return InetAddress.getByAddress(new byte[like.getAddress().length]);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final NetlinkSocket socket;
    private final MemorySegment request;

    private Netlink(NetlinkSocket socket) {
        this.socket = socket;
        this.request = socket.request;
    }

    /** A NETLINK_ROUTE socket in the calling thread's network namespace; throws {@link SysException}. */
    public static Netlink open() {
        return new Netlink(new NetlinkSocket(NetlinkSocket.NETLINK_ROUTE, "open rtnetlink socket"));
    }

    /** The interface called name; throws {@link SysException} ("find interface eth9: No such device (ENODEV)"). */
    public Link link(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length > 15) throw new IllegalArgumentException("bad interface name (1 to 15 characters): " + name);
        socket.begin(RTM_GETLINK, (short) 0);
        socket.length += IFINFOMSG;
        byte[] cString = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        attribute(IFLA_IFNAME, cString);
        int reply = exchange("find interface " + name);
        return new Link(socket.answer.get(JAVA_INT_UNALIGNED, reply + NetlinkSocket.HEADER + 4), name);
    }

    /** Sets IFF_UP on the link, as ip link set up does. */
    public void setUp(Link link) {
        linkRequest(link, IFF_UP, IFF_UP);
        exchange("bring up " + link.name());
    }

    /** Sets the link's MTU. */
    public void setMtu(Link link, int mtu) {
        linkRequest(link, 0, 0);
        attributeInt(IFLA_MTU, mtu);
        exchange("set MTU " + mtu + " on " + link.name());
    }

    /**
     * Adds an address with its prefix length to the link: for IPv4 with the broadcast address of
     * its network (as ip's "brd +"; none for /31 and /32), for IPv6 without duplicate address
     * detection (IFA_F_NODAD). The kernel adds the route to the prefix itself.
     */
    public void addAddress(Link link, InetAddress address, int prefixLength) {
        byte[] a = address.getAddress();
        if (prefixLength < 0 || prefixLength > a.length * 8) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " out of range for " + format(address));
        }
        boolean v6 = address instanceof Inet6Address;
        socket.begin(RTM_NEWADDR, (short) (NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL));
        int msg = socket.length;
        request.set(JAVA_BYTE, msg, (byte) (v6 ? AF_INET6 : AF_INET));
        request.set(JAVA_BYTE, msg + 1, (byte) prefixLength);
        request.set(JAVA_BYTE, msg + 2, (byte) (v6 ? IFA_F_NODAD : 0));
        request.set(JAVA_BYTE, msg + 3, (byte) RT_SCOPE_UNIVERSE);
        request.set(JAVA_INT_UNALIGNED, msg + 4, link.index());
        socket.length += IFADDRMSG;
        if (!v6) attribute(IFA_LOCAL, a);
        attribute(IFA_ADDRESS, a);
        if (!v6 && prefixLength <= 30) attribute(IFA_BROADCAST, broadcast(a, prefixLength));
        exchange("add address " + format(address) + "/" + prefixLength + " to " + link.name());
    }

    /** Adds the route through the link to the main table, as ip route add does (protocol boot). */
    public void addRoute(Link link, Route route) {
        boolean v6 = route.destination() instanceof Inet6Address;
        socket.begin(RTM_NEWROUTE, (short) (NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL));
        int msg = socket.length;
        request.set(JAVA_BYTE, msg, (byte) (v6 ? AF_INET6 : AF_INET));
        request.set(JAVA_BYTE, msg + 1, (byte) route.prefixLength());
        request.set(JAVA_BYTE, msg + 4, (byte) RT_TABLE_MAIN);
        request.set(JAVA_BYTE, msg + 5, (byte) RTPROT_BOOT);
        // A route without a gateway reaches its destination on the link itself (IPv6 has no scopes for routes).
        request.set(JAVA_BYTE, msg + 6, (byte) (route.gateway() == null && !v6 ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE));
        request.set(JAVA_BYTE, msg + 7, (byte) RTN_UNICAST);
        socket.length += RTMSG;
        if (route.prefixLength() > 0) attribute(RTA_DST, route.destination().getAddress());
        if (route.gateway() != null) attribute(RTA_GATEWAY, route.gateway().getAddress());
        attributeInt(RTA_OIF, link.index());
        if (route.metric() > 0) attributeInt(RTA_PRIORITY, route.metric());
        exchange("add route " + route + " dev " + link.name());
    }

    /**
     * An address as ip and inet_ntop write it: dotted IPv4; IPv6 in RFC 5952's form, the longest run
     * of two or more zero groups as "::", lower case, a v4-mapped address as ::ffff:a.b.c.d and a
     * v4-compatible one as ::a.b.c.d (InetAddress writes 2001:db8:0:0:0:0:0:1).
     */
    public static String format(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length == 4) return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && (g[5] == 0xffff || g[5] == 0 && g[6] != 0)) {
            // v4-mapped and (deprecated) v4-compatible addresses end in dotted IPv4, as inet_ntop writes them
            return (g[5] == 0 ? "::" : "::ffff:") + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
        }
        int bestStart = -1, bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLength - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') s.append(':');
            s.append(Integer.toHexString(g[i]));
        }
        return s.toString();
    }

    private void linkRequest(Link link, int flags, int change) {
        socket.begin(RTM_NEWLINK, NLM_F_ACK);
        int msg = socket.length;
        request.asSlice(msg, IFINFOMSG).fill((byte) 0);
        request.set(JAVA_INT_UNALIGNED, msg + 4, link.index());
        request.set(JAVA_INT_UNALIGNED, msg + 8, flags);
        request.set(JAVA_INT_UNALIGNED, msg + 12, change);
        socket.length += IFINFOMSG;
    }

    private static byte[] broadcast(byte[] a, int prefixLength) {
        int v = ((a[0] & 0xff) << 24) | ((a[1] & 0xff) << 16) | ((a[2] & 0xff) << 8) | (a[3] & 0xff);
        int b = v | (prefixLength == 0 ? -1 : -1 >>> prefixLength);
        return new byte[] {(byte) (b >>> 24), (byte) (b >>> 16), (byte) (b >>> 8), (byte) b};
    }

    /** Appends a struct rtattr (u16 length, u16 type, the value, padding to 4 bytes). */
    private void attribute(short type, byte[] value) {
        int at = socket.length, attrLength = 4 + value.length;
        request.set(JAVA_SHORT_UNALIGNED, at, (short) attrLength);
        request.set(JAVA_SHORT_UNALIGNED, at + 2, type);
        MemorySegment.copy(value, 0, request, JAVA_BYTE, at + 4, value.length);
        socket.length += (attrLength + 3) & ~3;
    }

    private void attributeInt(short type, int value) {
        int at = socket.length;
        request.set(JAVA_SHORT_UNALIGNED, at, (short) 8);
        request.set(JAVA_SHORT_UNALIGNED, at + 2, type);
        request.set(JAVA_INT_UNALIGNED, at + 4, value);
        socket.length += 8;
    }

    /**
     * Sends the request and reads until the kernel's answer to it: a message of its own (its offset
     * in the answer buffer is returned) or an acknowledgement (NLMSG_ERROR, error 0). A refusal
     * throws {@link SysException}(what, errno).
     */
    private int exchange(String what) {
        int sequence = socket.requestSequence();
        socket.send(what);
        while (true) {
            int n = socket.receive(what);
            MemorySegment a = socket.answer;
            for (int off = 0; off + NetlinkSocket.HEADER <= n; off = NetlinkSocket.next(a, off, n)) {
                if (NetlinkSocket.sequence(a, off) != sequence) continue;
                int error = NetlinkSocket.error(a, off);
                if (NetlinkSocket.type(a, off) == NetlinkSocket.NLMSG_ERROR && error < 0) throw new SysException(what, -error);
                return off;
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
