package io.jslirp.forward;

import io.jslirp.engine.Ipv6Transport;
import io.jslirp.nat.TcpNat;

import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;

import java.util.function.IntSupplier;

/**
 * The host socket of a TCP port forwarded from an IPv6 address. Each client it accepts reaches
 * the guest over IPv6 when IPv6 is on and the guest's IPv6 address is known, else over IPv4 (from
 * the gateway 10.0.2.2): either way the guest gets the connection.
 */
public final class ForwardListener6 implements HostForward {
    private final Reactor loop;
    private final PortForward forward;
    private final int fd;
    private final long[] client = new long[3];
    private final AddressBook addresses;
    /** The forward's own IPv4 guest address (a handle held while listening), or NONE for the guest's latest. */
    private final int fixedGuest;

    /**
     * @param ipv6 the IPv6 side, or null without --enable-ipv6
     * Throws IllegalArgumentException (e.g. the port is taken) saying what failed.
     */
    public ForwardListener6(Reactor loop, TcpNat nat4, AddressBook addresses, IntSupplier guestAddress4, Ipv6Transport ipv6,
                            PortForward forward) {
        this.loop = loop;
        this.forward = forward;
        this.addresses = addresses;
        int s = Sockets.tcp6();
        if (s < 0) throw new IllegalArgumentException("cannot create a socket for forward " + forward + ": " + Errno.describe(-s));
        Sockets.setInt(s, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        Sockets.setInt(s, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1); // [::] takes IPv6 clients only; 0.0.0.0 is a forward of its own
        int r = Sockets.bind6(s, forward.host6().hi(), forward.host6().lo(), forward.hostPort());
        if (r == 0) r = Sockets.listen(s, 128);
        if (r < 0) {
            Libc.close(s);
            throw new IllegalArgumentException("cannot listen on " + forward.host6() + ":" + forward.hostPort()
                    + " for forward " + forward + ": " + Errno.describe(-r));
        }
        this.fd = s;
        this.fixedGuest = forward.guestAddress() != 0 ? addresses.acquire4(forward.guestAddress()) : AddressBook.NONE;
        loop.register(fd, Epoll.IN, events -> {
            for (int i = 0; i < 64; i++) {
                int accepted = Sockets.accept6(fd, client);
                if (accepted < 0) return;
                int from = addresses.acquire(client[0], client[1]);
                boolean toIpv6 = fixedGuest == AddressBook.NONE && ipv6 != null
                        && ipv6.forward(accepted, forward.guestPort(), from, (int) client[2]);
                if (!toIpv6) {
                    int guest = fixedGuest != AddressBook.NONE ? fixedGuest : guestAddress4.getAsInt();
                    nat4.forward(accepted, guest, forward.guestPort(), from, (int) client[2]); // an IPv6 client: from the gateway
                }
                addresses.release(from);
            }
        });
    }

    @Override
    public PortForward forward() {
        return forward;
    }

    @Override
    public void close() {
        loop.unregister(fd);
        Libc.close(fd);
        if (fixedGuest != AddressBook.NONE) addresses.release(fixedGuest);
    }
}
