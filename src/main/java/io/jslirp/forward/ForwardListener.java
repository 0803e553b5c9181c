package io.jslirp.forward;

import io.jslirp.nat.Family;
import io.jslirp.nat.TcpNat;

import io.jslirp.loop.AcceptPause;
import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;

/**
 * The listening host socket of a forwarded TCP port, IPv4 or IPv6: each client it accepts is
 * opened toward the guest, over the IP version {@link GuestRoutes} chooses.
 */
public final class ForwardListener implements HostForward {
    private static final int ACCEPT_BUDGET = 64;

    private final Reactor loop;
    private final ForwardSocket socket;
    private final AcceptPause pause;
    private final long[] client = new long[3];

    /**
     * Listens for forward; IllegalArgumentException (e.g. the port is taken) saying what failed.
     * loopbackClients, if not null, takes the clients from the host's loopback.
     */
    public ForwardListener(ForwardContext context, TcpNat nat, PortForward forward, LoopbackClients loopbackClients) {
        this.loop = context.loop();
        HostSockets sockets = context.sockets();
        AddressBook addresses = context.addresses();
        GuestRoutes routes = context.routes();
        this.socket = new ForwardSocket(sockets, addresses, forward);
        int fd = socket.fd;
        this.pause = new AcceptPause(loop, fd, "forward " + forward);
        loop.register(fd, Epoll.IN, events -> {
            for (int i = 0; i < ACCEPT_BUDGET; i++) {
                int accepted = sockets.accept(fd, client);
                if (accepted < 0) {
                    pause.failed(-accepted);
                    return;
                }
                if (Inbound.spliced(loopbackClients, client) && loopbackClients.take(accepted, client, forward.guestPort())) {
                    continue;
                }
                Family family = routes.family(forward, socket.fixedGuest);
                int from = addresses.acquire(client[0], client[1]);
                nat.forward(family, accepted, GuestRoutes.guest(family, socket.fixedGuest), forward.guestPort(), from, (int) client[2]);
                addresses.release(from);
            }
        });
    }

    @Override
    public PortForward forward() {
        return socket.forward;
    }

    @Override
    public void close() {
        pause.cancel();
        loop.unregister(socket.fd);
        socket.close();
    }
}
