package io.jslirp.forward;

import io.jslirp.nat.Family;

import io.jslirp.loop.Handler;
import io.jslirp.loop.Reactor;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.flow.TupleIndex;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The bound host socket of one forwarded UDP port, IPv4 or IPv6, and its clients' mappings. Each
 * new client reaches the guest over the IP version {@link GuestRoutes} chooses, and keeps it.
 */
public final class UdpForwardSocket implements HostForward, Handler {
    private static final int READ_BUDGET = 64;

    private final Reactor loop;
    private final ForwardSocket socket;
    private final HostSockets sockets;
    private final AddressBook addresses;
    private final GuestRoutes routes;
    private final UdpForwards forwards;
    /** Mappings by client (handle, port, 0, 0); each mapping holds one reference of its client's handle. */
    private final TupleIndex<UdpForwards.Mapping> clients = new TupleIndex<>(8);
    private final long[] client = new long[3];
    /** Takes the datagrams of clients on the host's loopback, or null. */
    private final LoopbackDatagrams.Receiver loopbackClients;

    /**
     * Binds the forward's host port; IllegalArgumentException (e.g. the port is taken) saying what
     * failed. loopbackDatagrams, if not null, takes the datagrams of clients on the host's loopback.
     */
    public UdpForwardSocket(ForwardContext context, UdpForwards forwards, PortForward forward, LoopbackDatagrams loopbackDatagrams) {
        this.loop = context.loop();
        this.sockets = context.sockets();
        this.addresses = context.addresses();
        this.routes = context.routes();
        this.forwards = forwards;
        this.socket = new ForwardSocket(sockets, addresses, forward);
        this.loopbackClients = loopbackDatagrams == null ? null
                : loopbackDatagrams.open(sockets, socket.fd, !forward.host().isIpv4(), forward.guestPort());
        loop.register(socket.fd, Epoll.IN, this);
    }

    @Override
    public PortForward forward() {
        return socket.forward;
    }

    /** Datagrams from clients, read into the frame of the family they usually go by (copied when a client's goes by the other). */
    @Override
    public void onEvents(int events) {
        GuestOutput into = routes.usual(socket.forward).output();
        MemorySegment frame = into.frame();
        int offset = into.udpPayloadOffset();
        for (int i = 0; i < READ_BUDGET; i++) {
            int n = sockets.recvFrom(socket.fd, frame, offset, into.maxUdpPayload(), client);
            if (n == -Errno.EAGAIN) return;
            if (n < 0) continue; // an ICMP error for an earlier reply to a client: nothing to tell the guest
            if (Inbound.spliced(loopbackClients, client)) {
                loopbackClients.take(frame, offset, n, client);
                continue;
            }
            UdpForwards.Mapping m = mapping(addresses.acquire(client[0], client[1]), (int) client[2]);
            if (m == null) continue;
            GuestOutput to = m.family.output();
            if (to != into) MemorySegment.copy(frame, offset, to.frame(), to.udpPayloadOffset(), n);
            forwards.toGuest(m, n);
        }
        loop.runAgain();
    }

    /** The mapping of the client (a handle, whose reference passes to the mapping or is dropped) at port, or null. */
    private UdpForwards.Mapping mapping(int client, int port) {
        UdpForwards.Mapping m = clients.get(0, client, port, 0, 0);
        if (m != null) {
            addresses.release(client); // the mapping holds its own reference
            return m;
        }
        Family family = routes.family(socket.forward, socket.fixedGuest);
        m = forwards.open(this, family, client, port, GuestRoutes.guest(family, socket.fixedGuest), socket.forward.guestPort());
        if (m == null) {
            addresses.release(client);
            return null;
        }
        clients.put(0, client, port, 0, 0, m);
        return m;
    }

    /** Sends the guest's datagram (len bytes at off) to m's client. */
    void toClient(MemorySegment f, long off, int len, UdpForwards.Mapping m) {
        sockets.sendTo(socket.fd, f, off, len, addresses.hi(m.client), addresses.lo(m.client), m.clientPort);
    }

    /** A mapping closed. */
    void forget(UdpForwards.Mapping m) {
        clients.remove(0, m.client, m.clientPort, 0, 0);
        addresses.release(m.client);
    }

    @Override
    public void close() {
        List<UdpForwards.Mapping> all = new ArrayList<>();
        clients.forEach(all::add);
        all.forEach(UdpForwards.Mapping::close);
        if (loopbackClients != null) loopbackClients.close();
        loop.unregister(socket.fd);
        socket.close();
    }
}
