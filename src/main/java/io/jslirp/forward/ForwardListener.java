package io.jslirp.forward;

import io.jslirp.nat.TcpNat;

import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv4;

import java.util.function.IntSupplier;

/** The host socket of a forwarded TCP port: each client it accepts is opened toward the guest. */
public final class ForwardListener implements HostForward {
    private final Reactor loop;
    private final PortForward forward;
    private final int fd;
    private final int[] client = new int[2];
    private final AddressBook addresses;
    /** The forward's own guest address (a handle held while listening), or NONE for the guest's latest. */
    private final int fixedGuest;

    /**
     * Listens for forward; guestAddress gives the guest's latest address (a handle). Throws
     * IllegalArgumentException (e.g. the port is taken) saying what failed.
     */
    public ForwardListener(Reactor loop, TcpNat nat, AddressBook addresses, PortForward forward, IntSupplier guestAddress) {
        this.loop = loop;
        this.forward = forward;
        this.addresses = addresses;
        int s = Sockets.tcp4();
        if (s < 0) throw new IllegalArgumentException("cannot create a socket for forward " + forward + ": " + Errno.describe(-s));
        Sockets.setInt(s, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        int r = Sockets.bind4(s, forward.hostAddress(), forward.hostPort());
        if (r == 0) r = Sockets.listen(s, 128);
        if (r < 0) {
            Libc.close(s);
            throw new IllegalArgumentException("cannot listen on " + Ipv4.format(forward.hostAddress()) + ":" + forward.hostPort()
                    + " for forward " + forward + ": " + Errno.describe(-r));
        }
        this.fd = s;
        this.fixedGuest = forward.guestAddress() != 0 ? addresses.acquire4(forward.guestAddress()) : AddressBook.NONE;
        loop.register(fd, Epoll.IN, events -> {
            for (int i = 0; i < 64; i++) {
                int accepted = Sockets.accept4(fd, client);
                if (accepted < 0) return;
                int guest = fixedGuest != AddressBook.NONE ? fixedGuest : guestAddress.getAsInt();
                int from = addresses.acquire4(client[0]);
                nat.forward(accepted, guest, forward.guestPort(), from, client[1]);
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
