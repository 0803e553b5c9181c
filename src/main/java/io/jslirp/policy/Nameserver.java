package io.jslirp.policy;

import io.jslirp.sys.HostSockets;
import io.jslirp.wire.Ipv4;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/**
 * An upstream DNS server from resolv.conf: an IPv4 address (host order) or an IPv6 one (16
 * bytes, with the interface index of a link-local address); the host socket toward it is of the
 * matching family.
 */
public record Nameserver(int ipv4, byte[] ipv6, int scopeId) {
    static final int PORT = Nameservers.PORT;

    public static Nameserver ofIpv4(int address) {
        return new Nameserver(address, null, 0);
    }

    /**
     * Parses a resolv.conf address: dotted IPv4, or an IPv6 literal with an optional
     * {@code %interface} scope. Never looks a name up. IllegalArgumentException when it is neither.
     */
    public static Nameserver parse(String text) {
        if (text.indexOf(':') < 0) return ofIpv4(Ipv4.parse(text));
        int percent = text.indexOf('%');
        String literal = percent < 0 ? text : text.substring(0, percent);
        InetAddress address = InetAddress.ofLiteral(literal);
        if (!(address instanceof Inet6Address)) return ofIpv4(Ipv4.parse(address.getHostAddress())); // ::ffff:a.b.c.d
        int scope = percent < 0 ? 0 : interfaceIndex(text.substring(percent + 1));
        return new Nameserver(0, address.getAddress(), scope);
    }

    private static int interfaceIndex(String scope) {
        if (!scope.isEmpty() && scope.chars().allMatch(Character::isDigit)) return Integer.parseInt(scope);
        try {
            NetworkInterface nif = NetworkInterface.getByName(scope);
            if (nif != null) return nif.getIndex();
        } catch (SocketException e) {
            // fall through
        }
        throw new IllegalArgumentException("no interface " + scope);
    }

    public boolean isIpv6() {
        return ipv6 != null;
    }

    /** A new non-blocking socket toward this server, TCP or UDP: fd or -errno. */
    public int socket(HostSockets sockets, boolean tcp) {
        return tcp ? sockets.tcp(isIpv6()) : sockets.udp(isIpv6());
    }

    /** Connects fd (from {@link #socket}) to port 53 of this server: as {@link HostSockets#connect}. */
    public int connect(HostSockets sockets, int fd) {
        return sockets.connect(fd, hi(), lo(), scopeId, PORT);
    }

    /** The address's high half (network order; 0 for IPv4, held as ::ffff:a.b.c.d). */
    long hi() {
        return isIpv6() ? half(0) : 0;
    }

    long lo() {
        return isIpv6() ? half(8) : 0xffffL << 32 | (ipv4 & 0xffffffffL);
    }

    private long half(int from) {
        long v = 0;
        for (int i = from; i < from + 8; i++) v = v << 8 | (ipv6[i] & 0xff);
        return v;
    }

    @Override
    public String toString() {
        if (!isIpv6()) return Ipv4.format(ipv4);
        try {
            return InetAddress.getByAddress(ipv6).getHostAddress() + (scopeId != 0 ? "%" + scopeId : "");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Nameserver n && n.ipv4 == ipv4 && java.util.Arrays.equals(n.ipv6, ipv6) && n.scopeId == scopeId;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * ipv4 + java.util.Arrays.hashCode(ipv6)) + scopeId;
    }
}
