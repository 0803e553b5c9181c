package io.jslirp.pasta;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import io.jslirp.sys.Netlink;

/**
 * Address literals as glibc's inet_pton reads them (pasta validates every address option with it),
 * and the address classes pasta's checks name (IN6_IS_ADDR_LOOPBACK and the like). Never a name
 * lookup: a string that is not a literal is simply not an address.
 */
final class Inet {
    private Inet() {}

    /** inet_pton(AF_INET): four decimal octets of 0..255, no leading zeros, nothing else; null if not. */
    static Inet4Address parse4(String s) {
        byte[] out = new byte[4];
        int octets = 0, value = 0, digits = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') {
                if (digits > 0 && value == 0) return null; // "01": glibc refuses a leading zero
                value = value * 10 + (c - '0');
                if (value > 255) return null;
                digits++;
            } else if (c == '.' && digits > 0 && octets < 3) {
                out[octets++] = (byte) value;
                value = digits = 0;
            } else {
                return null;
            }
        }
        if (digits == 0 || octets != 3) return null;
        out[3] = (byte) value;
        return (Inet4Address) of(out);
    }

    /**
     * inet_pton(AF_INET6): up to eight groups of one to four hex digits, one "::" standing for a
     * run of zero groups, and optionally a dotted IPv4 address for the last 32 bits; no brackets,
     * no zone ("%eth0"). Null if not. A v4-mapped address stays an {@link Inet6Address}.
     */
    static Inet6Address parse6(String s) {
        byte[] out = new byte[16];
        int at = 0, gap = -1, i = 0, n = s.length();
        if (n == 0) return null;
        if (s.charAt(0) == ':') {
            if (n < 2 || s.charAt(1) != ':') return null;
            i = 1; // the loop sees the second ':' as the "::"
        }
        int groupStart = i, value = 0, digits = 0;
        for (; i < n; i++) {
            char c = s.charAt(i);
            int hex = Character.digit(c, 16);
            if (hex >= 0 && c < 128) {
                if (++digits > 4) return null;
                value = (value << 4) | hex;
            } else if (c == ':') {
                if (digits == 0) {
                    if (gap >= 0) return null; // a second "::", or ":::"
                    gap = at;
                } else {
                    if (i + 1 == n || at + 2 > 16) return null; // a trailing single ':'
                    out[at++] = (byte) (value >>> 8);
                    out[at++] = (byte) value;
                }
                groupStart = i + 1;
                value = digits = 0;
            } else if (c == '.') {
                if (at + 4 > 16) return null;
                Inet4Address v4 = parse4(s.substring(groupStart));
                if (v4 == null) return null;
                System.arraycopy(v4.getAddress(), 0, out, at, 4);
                at += 4;
                digits = 0;
                break;
            } else {
                return null;
            }
        }
        if (digits > 0) {
            if (at + 2 > 16) return null;
            out[at++] = (byte) (value >>> 8);
            out[at++] = (byte) value;
        }
        if (gap >= 0) {
            if (at == 16) return null; // "::" must stand for at least one group
            int tail = at - gap;
            System.arraycopy(out, gap, out, 16 - tail, tail);
            java.util.Arrays.fill(out, gap, 16 - tail, (byte) 0);
        } else if (at != 16) {
            return null;
        }
        try {
            return Inet6Address.getByAddress(null, out, -1);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An IPv4 literal, else an IPv6 one, else null. */
    static InetAddress parse(String s) {
        InetAddress a = parse4(s);
        return a != null ? a : parse6(s);
    }

    /** The address of these 4 or 16 bytes (an {@link Inet6Address} for 16, v4-mapped or not). */
    static InetAddress of(byte[] bytes) {
        try {
            return bytes.length == 16 ? Inet6Address.getByAddress(null, bytes, -1) : InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("an address has 4 or 16 bytes, not " + bytes.length);
        }
    }

    /** As inet_ntop writes it ({@link Netlink#format}). */
    static String text(InetAddress a) {
        return Netlink.format(a);
    }

    static boolean unspecified(InetAddress a) {
        for (byte b : a.getAddress()) if (b != 0) return false;
        return true;
    }

    /** 127.0.0.0/8, or ::1. */
    static boolean loopback(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 4) return b[0] == 127;
        return zeros(b, 0, 15) && b[15] == 1;
    }

    /** 224.0.0.0/4, or ff00::/8. */
    static boolean multicast(InetAddress a) {
        byte[] b = a.getAddress();
        return b.length == 4 ? (b[0] & 0xf0) == 0xe0 : (b[0] & 0xff) == 0xff;
    }

    /** 255.255.255.255 (INADDR_BROADCAST; glibc's IN4_IS_ADDR_BROADCAST knows no other). */
    static boolean broadcast(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length != 4) return false;
        for (byte x : b) if (x != (byte) 0xff) return false;
        return true;
    }

    /** ::ffff:0:0/96. */
    static boolean v4Mapped(InetAddress a) {
        byte[] b = a.getAddress();
        return b.length == 16 && zeros(b, 0, 10) && b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    /** ::a.b.c.d, the deprecated IPv4-compatible form: 96 zero bits, then more than 1 (:: and ::1 are not). */
    static boolean v4Compatible(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length != 16 || !zeros(b, 0, 12)) return false;
        long last = ((b[12] & 0xffL) << 24) | ((b[13] & 0xff) << 16) | ((b[14] & 0xff) << 8) | (b[15] & 0xff);
        return last > 1;
    }

    /** fe80::/10. */
    static boolean linkLocal6(InetAddress a) {
        byte[] b = a.getAddress();
        return b.length == 16 && (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80;
    }

    private static boolean zeros(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] != 0) return false;
        return true;
    }
}
