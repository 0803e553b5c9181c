package io.jslirp.cli;

import io.jslirp.policy.HostAddress;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.wire.Ipv4;

/**
 * Host addresses checked at start by binding a socket to them: slirp4netns's
 * {@code --outbound-addr} (IPv4) and {@code --outbound-addr6}, and the IPv6 loopback.
 */
final class OutboundAddress {
    private OutboundAddress() {}

    /** The address (host order); IllegalArgumentException when it is not an IPv4 address of this host. */
    static int check(String text) {
        int address;
        try {
            address = Ipv4.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--outbound-addr must be an IPv4 address (interface names are not supported): " + text);
        }
        int fd = Sockets.udp4();
        if (fd < 0) throw new IllegalArgumentException("cannot create a socket: " + Errno.describe(-fd));
        int r = Sockets.bind4(fd, address, 0);
        Libc.close(fd);
        if (r < 0) throw new IllegalArgumentException("--outbound-addr " + text + " cannot be used: " + Errno.describe(-r));
        return address;
    }

    /** The IPv6 address; IllegalArgumentException when it is not an IPv6 address of this host. */
    static HostAddress check6(String text) {
        HostAddress address;
        try {
            address = HostAddress.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--outbound-addr6 must be an IPv6 address (interface names are not supported): " + text);
        }
        int fd = Sockets.udp6();
        if (fd < 0) throw new IllegalArgumentException("cannot create a socket: " + Errno.describe(-fd));
        int r = Sockets.bind(fd, address.hi(), address.lo(), 0);
        Libc.close(fd);
        if (r < 0) throw new IllegalArgumentException("--outbound-addr6 " + text + " cannot be used: " + Errno.describe(-r));
        return address;
    }

    /**
     * Whether the host has ::1 (IPv6 is not disabled), so that forwards without an address listen
     * there too; where it has not, they listen on 127.0.0.1 only instead of failing.
     */
    static boolean ipv6LoopbackUsable() {
        int fd = Sockets.udp6();
        if (fd < 0) return false;
        int r = Sockets.bind(fd, HostAddress.LOOPBACK.hi(), HostAddress.LOOPBACK.lo(), 0);
        Libc.close(fd);
        return r == 0;
    }
}
