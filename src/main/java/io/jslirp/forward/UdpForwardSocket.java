package io.jslirp.forward;

import io.jslirp.engine.Ipv6Transport;
import io.jslirp.nat.Family;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Handler;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.AddressBook;
import io.jslirp.util.FlowTable;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * The bound host socket of one forwarded UDP port, IPv4 or IPv6, and its clients' mappings. A
 * client of an IPv4 address goes to the guest over IPv4; one of an IPv6 address over IPv6 when
 * IPv6 is on and the guest's IPv6 address is known, else over IPv4 (from the gateway).
 */
public final class UdpForwardSocket implements HostForward, Handler {
    private static final int READ_BUDGET = 64;

    private final Reactor loop;
    private final PortForward forward;
    private final int fd;
    private final UdpForwards ipv4;
    private final IntSupplier guest4;
    /** The IPv6 side; null for an IPv4 socket or without IPv6. */
    private final Ipv6Transport ipv6;
    /** Where datagrams are read to: the frame of the guest side they usually go to. */
    private final UdpForwards readInto;
    /** Mappings by client (handle, port, 0, 0); each mapping holds one reference of its client's handle. */
    private final FlowTable<UdpForwards.Mapping> clients = new FlowTable<>(8);
    private final AddressBook addresses;
    /** The forward's own IPv4 guest address (a handle held while bound), or NONE for the guest's latest. */
    private final int fixedGuest;
    private final int[] client4 = new int[2];
    private final long[] client6 = new long[3];

    /**
     * Binds the forward's host port (IPv6 when the forward has an IPv6 host address; ipv6 is null
     * without --enable-ipv6); guest4 gives the guest's latest IPv4 address (a handle). Throws
     * IllegalArgumentException (e.g. the port is taken) saying what failed.
     */
    public UdpForwardSocket(Reactor loop, PortForward forward, UdpForwards ipv4, AddressBook addresses, IntSupplier guest4,
                            Ipv6Transport ipv6) {
        this.loop = loop;
        this.forward = forward;
        this.ipv4 = ipv4;
        this.addresses = addresses;
        this.guest4 = guest4;
        this.ipv6 = forward.ipv6() ? ipv6 : null;
        this.readInto = this.ipv6 != null ? this.ipv6.udpForwards() : ipv4;
        int s = forward.ipv6() ? Sockets.udp6() : Sockets.udp4();
        if (s < 0) throw new IllegalArgumentException("cannot create a socket for forward " + forward + ": " + Errno.describe(-s));
        int r;
        if (forward.ipv6()) {
            Sockets.setInt(s, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1);
            r = Sockets.bind6(s, forward.host6().hi(), forward.host6().lo(), forward.hostPort());
        } else {
            r = Sockets.bind4(s, forward.hostAddress(), forward.hostPort());
        }
        if (r < 0) {
            Libc.close(s);
            String host = forward.ipv6() ? forward.host6().toString() : Ipv4.format(forward.hostAddress());
            throw new IllegalArgumentException("cannot bind " + host + ":" + forward.hostPort() + " for forward " + forward + ": "
                    + Errno.describe(-r));
        }
        this.fd = s;
        this.fixedGuest = forward.guestAddress() != 0 ? addresses.acquire4(forward.guestAddress()) : AddressBook.NONE;
        loop.register(fd, Epoll.IN, this);
    }

    @Override
    public PortForward forward() {
        return forward;
    }

    int size() {
        return clients.size();
    }

    @Override
    public void onEvents(int events) {
        Family family = readInto.family;
        MemorySegment frame = family.output().frame();
        int offset = family.udpPayloadOffset();
        for (int i = 0; i < READ_BUDGET; i++) {
            int n = forward.ipv6() ? Sockets.recvFrom6(fd, frame, offset, family.maxUdpPayload(), client6)
                    : Sockets.recvFrom4(fd, frame, offset, family.maxUdpPayload(), client4);
            if (n == -Errno.EAGAIN) return;
            if (n < 0) continue; // an ICMP error for an earlier reply to a client: nothing to tell the guest
            UdpForwards.Mapping m = forward.ipv6() ? mapping(addresses.acquire(client6[0], client6[1]), (int) client6[2])
                    : mapping(addresses.acquire4(client4[0]), client4[1]);
            if (m == null) continue;
            UdpForwards to = m.owner();
            if (to != readInto) { // an IPv6 client going to the guest over IPv4
                MemorySegment.copy(frame, offset, to.family.output().frame(), to.family.udpPayloadOffset(), n);
            }
            to.toGuest(m, n);
        }
        loop.runAgain();
    }

    /** The mapping of the client (a handle, whose reference passes to the mapping or is dropped) at port, or null. */
    private UdpForwards.Mapping mapping(int client, int port) {
        UdpForwards.Mapping m = clients.get(client, port, 0, 0);
        if (m != null) {
            addresses.release(client); // the mapping holds its own reference
            return m;
        }
        int guest6 = ipv6 != null && fixedGuest == AddressBook.NONE ? ipv6.guestAddress() : AddressBook.NONE;
        if (guest6 != AddressBook.NONE) {
            m = ipv6.udpForwards().open(this, client, port, guest6, forward.guestPort());
        } else {
            int guest = fixedGuest != AddressBook.NONE ? fixedGuest : guest4.getAsInt();
            m = ipv4.open(this, client, port, guest, forward.guestPort());
        }
        if (m == null) {
            addresses.release(client);
            return null;
        }
        clients.put(client, port, 0, 0, m);
        return m;
    }

    /** Sends the guest's datagram (len bytes at off) to m's client. */
    void toClient(MemorySegment f, long off, int len, UdpForwards.Mapping m) {
        if (forward.ipv6()) Sockets.sendTo6(fd, f, off, len, addresses.hi(m.client), addresses.lo(m.client), m.clientPort);
        else Sockets.sendTo4(fd, f, off, len, addresses.ipv4(m.client), m.clientPort);
    }

    /** A mapping closed. */
    void forget(UdpForwards.Mapping m) {
        clients.remove(m.client, m.clientPort, 0, 0);
        addresses.release(m.client);
    }

    String formatClient(UdpForwards.Mapping m) {
        return addresses.format(m.client) + ":" + m.clientPort;
    }

    String formatClientAddress(UdpForwards.Mapping m) {
        return addresses.format(m.client);
    }

    @Override
    public void close() {
        List<UdpForwards.Mapping> all = new ArrayList<>();
        clients.forEach(all::add);
        all.forEach(UdpForwards.Mapping::close);
        loop.unregister(fd);
        Libc.close(fd);
        if (fixedGuest != AddressBook.NONE) addresses.release(fixedGuest);
    }
}
