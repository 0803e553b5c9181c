package io.jslirp.pasta;

import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Parsers for the host's routes and IPv6 addresses as /proc/net shows them: route (IPv4, the
 * main table), ipv6_route (every table) and if_inet6. Only what pasta would take from its netlink
 * dumps survives: unicast routes of the main table through a device, not source-specific; and
 * every IPv6 address with its scope and flags. Lines that do not parse are skipped.
 */
final class ProcNet {
    private ProcNet() {}

    private static final int RTF_GATEWAY = 0x2, RTF_REJECT = 0x200, RTF_ANYCAST = 0x100000, RTF_CACHE = 0x01000000,
            RTF_LOCAL = 0x80000000;

    /** A route through ifname: to destination/prefixLength, via gateway (null: on-link), with its metric. */
    record Route(String ifname, InetAddress destination, int prefixLength, InetAddress gateway, int metric) {}

    /** An IPv6 address of ifname, with the scope and flags (IFA_F_*) if_inet6 gives it. */
    record Address6(String ifname, InetAddress address, int prefixLength, int scope, int flags) {
        static final int SCOPE_HOST = 0x10, SCOPE_LINK = 0x20, IFA_F_DEPRECATED = 0x20;
    }

    /**
     * /proc/net/route: "Iface Destination Gateway Flags RefCnt Use Metric Mask ...", the addresses
     * as the kernel's 32-bit words in hex, so in this machine's byte order. Rejecting routes
     * (unreachable, prohibit, blackhole) and those without a device are left out.
     */
    static List<Route> routes4(String text) {
        List<Route> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || f[0].equals("Iface") || f[0].equals("*")) continue;
            try {
                int flags = Integer.parseInt(f[3], 16);
                if ((flags & RTF_REJECT) != 0) continue;
                int mask = (int) Long.parseLong(f[7], 16);
                int prefix = Integer.bitCount(mask);
                InetAddress gateway = (flags & RTF_GATEWAY) != 0 ? word(f[2]) : null;
                out.add(new Route(f[0], word(f[1]), prefix, gateway, Integer.parseInt(f[6])));
            } catch (NumberFormatException malformed) {
                // skipped
            }
        }
        return out;
    }

    /**
     * /proc/net/ipv6_route: "dest plen src srclen nexthop metric refcnt use flags dev", addresses
     * as 32 hex digits. It lists the local table too: local, anycast and multicast routes, cached
     * ones, rejecting ones and those through lo are left out, and source-specific ones.
     */
    static List<Route> routes6(String text) {
        List<Route> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10) continue;
            try {
                int flags = (int) Long.parseLong(f[8], 16);
                if ((flags & (RTF_REJECT | RTF_LOCAL | RTF_ANYCAST | RTF_CACHE)) != 0 || f[9].equals("lo")) continue;
                if (Integer.parseInt(f[3], 16) != 0) continue;
                InetAddress destination = hex16(f[0]);
                int prefix = Integer.parseInt(f[1], 16);
                if (Inet.multicast(destination) || prefix > 128) continue;
                InetAddress gateway = (flags & RTF_GATEWAY) != 0 ? hex16(f[4]) : null;
                out.add(new Route(f[9], destination, prefix, gateway, (int) Long.parseLong(f[5], 16)));
            } catch (IllegalArgumentException malformed) {
                // skipped
            }
        }
        return out;
    }

    /** /proc/net/if_inet6: "address ifindex prefixlen scope flags name", all but the name in hex. */
    static List<Address6> addresses6(String text) {
        List<Address6> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6) continue;
            try {
                out.add(new Address6(f[5], hex16(f[0]), Integer.parseInt(f[2], 16), Integer.parseInt(f[3], 16),
                        Integer.parseInt(f[4], 16)));
            } catch (IllegalArgumentException malformed) {
                // skipped
            }
        }
        return out;
    }

    /** A 32-bit word of /proc/net/route: the address's bytes in memory order. */
    private static InetAddress word(String hex) {
        int v = (int) Long.parseLong(hex, 16);
        if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) v = Integer.reverseBytes(v);
        return Inet.of(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    private static InetAddress hex16(String hex) {
        if (hex.length() != 32) throw new IllegalArgumentException("not 16 bytes of hex: " + hex);
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) b[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
        return Inet.of(b);
    }
}
