package io.jslirp.forward;

import io.jslirp.policy.HostAddress;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;

/**
 * The bound host socket of a forward, TCP (listening) or UDP, of its host address's version, and
 * the forward's own guest address if it has one. An IPv6 socket takes IPv6 clients only: 0.0.0.0
 * is a forward of its own.
 */
final class ForwardSocket {
    final PortForward forward;
    final int fd;
    /** The forward's own IPv4 guest address (a handle held while bound), or NONE for the guest's latest. */
    final int fixedGuest;
    private final HostSockets sockets;
    private final AddressBook addresses;

    /** Binds (and for TCP listens on) the forward's host port; IllegalArgumentException saying what failed. */
    ForwardSocket(HostSockets sockets, AddressBook addresses, PortForward forward) {
        this.forward = forward;
        this.sockets = sockets;
        this.addresses = addresses;
        HostAddress host = forward.host();
        boolean tcp = forward.protocol() == PortForward.Protocol.TCP;
        boolean ipv6 = !host.isIpv4();
        int s = tcp ? sockets.tcp(ipv6) : sockets.udp(ipv6);
        if (s < 0) throw new IllegalArgumentException("cannot create a socket for forward " + forward + ": " + Errno.describe(-s));
        if (tcp) sockets.setInt(s, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        if (ipv6) sockets.setInt(s, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1);
        int r = forward.device() == null ? 0 : sockets.bindToDevice(s, forward.device());
        if (r < 0) {
            sockets.close(s);
            throw new IllegalArgumentException("cannot bind forward " + forward + " to interface " + forward.device() + ": " + Errno.describe(-r));
        }
        r = sockets.bind(s, host.hi(), host.lo(), forward.hostPort());
        if (r == 0 && tcp) r = sockets.listen(s, Sockets.CLIENT_BACKLOG);
        if (r < 0) {
            sockets.close(s);
            throw new IllegalArgumentException("cannot " + (tcp ? "listen on " : "bind ") + host + ":" + forward.hostPort()
                    + " for forward " + forward + ": " + Errno.describe(-r));
        }
        this.fd = s;
        this.fixedGuest = forward.guestAddress() != 0 ? addresses.acquire4(forward.guestAddress()) : AddressBook.NONE;
    }

    /** Closes the socket (already out of the loop). */
    void close() {
        sockets.close(fd);
        if (fixedGuest != AddressBook.NONE) addresses.release(fixedGuest);
    }
}
