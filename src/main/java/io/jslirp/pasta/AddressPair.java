package io.jslirp.pasta;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * An option pasta takes "zero to two times (for IPv4 and IPv6)", such as -a, -g, --dns-forward or
 * --map-guest-addr: at most one address of each version, the last one given winning. Either may be null.
 */
public record AddressPair(Inet4Address ipv4, Inet6Address ipv6) {
    public static final AddressPair NONE = new AddressPair(null, null);

    /** This pair with a's version replaced by a. */
    AddressPair with(InetAddress a) {
        return a instanceof Inet4Address v4 ? new AddressPair(v4, ipv6) : new AddressPair(ipv4, (Inet6Address) a);
    }

    public boolean isEmpty() {
        return ipv4 == null && ipv6 == null;
    }

    @Override
    public String toString() {
        if (isEmpty()) return "none";
        if (ipv6 == null) return Inet.text(ipv4);
        return ipv4 == null ? Inet.text(ipv6) : Inet.text(ipv4) + ", " + Inet.text(ipv6);
    }
}
