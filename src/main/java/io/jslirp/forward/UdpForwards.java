package io.jslirp.forward;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.nat.NatContext;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.nat.Family;
import io.jslirp.nat.GatewayPorts;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.util.Log;

import io.jslirp.wire.UdpDatagram;


/**
 * The guest side of forwarded host UDP ports, both IP versions: each host client of a
 * forwarded port ({@link UdpForwardSocket}) gets a mapping here, its datagrams reach the guest
 * from the gateway and a port of the gateway's own (32768–60999), or with --preserve-source from
 * the client's own address and port (see {@link ForwardSource}), and what the guest sends back
 * there goes to that client from the forwarded socket. A mapping keeps the {@link Family} it
 * reaches the guest by, and ends after the UDP idle timeout.
 */
public final class UdpForwards {
    private final Reactor loop;
    private final Clock clock;
    private final long idleTimeoutNanos;
    private final Counters counters;
    /**
     * The one table, where each mapping is a forwarded UDP flow whose guest side is what the
     * guest's replies carry (guest address and port, source and source port), beside the guest's
     * own UDP flows, whose gateway ports a mapping must not take.
     */
    private final Flows flows;
    private final GatewayPorts gatewayPorts = new GatewayPorts();

    public UdpForwards(NatContext context) {
        this.loop = context.loop();
        this.clock = loop.clock();
        this.flows = context.flows();
        this.idleTimeoutNanos = context.idleTimeoutNanos();
        this.counters = context.counters();
    }

    /**
     * A datagram the guest sent (read once) for found, the table's UDP flow of its guest side:
     * returns whether it answers a forwarded client, and then went on to that client.
     */
    public boolean fromGuest(Flow found, UdpDatagram d) {
        if (!(found instanceof Mapping m)) return false;
        m.socket.toClient(d.frame(), d.payloadOffset(), d.payloadLength(), m); // a full buffer drops it, as a router would
        m.carriedFromGuest(d.payloadLength());
        m.touch();
        return true;
    }

    /**
     * A new client of socket at client:clientPort (a handle of either version, held by the caller
     * during the call, which the mapping keeps): a mapping toward guest:guestPort over family, or
     * null when no port is left. A client of the other IP version comes from the gateway.
     */
    Mapping open(UdpForwardSocket socket, Family family, int client, int clientPort, int guest, int guestPort) {
        int source = family.forwardSource(client);
        int port = clientPort;
        if (source == family.gateway() || !free(guest, guestPort, source, port)) {
            int gateway = family.gateway();
            source = gateway;
            port = gatewayPorts.take(p -> free(guest, guestPort, gateway, p));
        }
        if (port < 0) {
            Log.warn("no free port left for a forwarded UDP client of " + socket.forward());
            return null;
        }
        Mapping m = new Mapping(socket, family, client, clientPort, new FlowAddresses(guest, guestPort, source, port));
        flows.add(m, State.OPEN, clock.now());
        return m;
    }

    /** Sends length bytes at the UDP payload offset of m's family's frame to the guest, through m. */
    void toGuest(Mapping m, int length) {
        if (!m.family.output().resolveGuestMac(m.guestAddress())) {
            counters.sendDropped++; // the guest's ARP answer teaches its MAC; the client's next datagram gets through
            return;
        }
        m.family.output().sendUdp(m.remoteAddress(), m.remotePort(), m.guestAddress(), m.guestPort(), length);
        m.carriedToGuest(length);
        m.touch();
    }

    private boolean free(int guestAddress, int guestPort, int source, int port) {
        return flows.find(Kind.UDP, guestAddress, guestPort, source, port) == null;
    }

    /** One host client of a forwarded UDP port, and the address and port the guest sees it at. */
    final class Mapping extends Flow {
        final UdpForwardSocket socket;
        final Family family;
        /** The client (a handle held by the mapping) and its port. */
        final int client, clientPort;
        final Timer idle = new Timer(this::close);
        /** The mapping of socket's client at clientPort whose guest side is guest (its remote: where the guest sees the client). */
        Mapping(UdpForwardSocket socket, Family family, int client, int clientPort, FlowAddresses guest) {
            super(Kind.UDP, true, guest.guestAddress(), guest.guestPort(), guest.remoteAddress(), guest.remotePort());
            this.socket = socket;
            this.family = family;
            this.client = client;
            this.clientPort = clientPort;
            this.hostAddress = client;
            this.hostPort = clientPort;
        }

        void touch() {
            loop.schedule(idle, clock.now() + idleTimeoutNanos);
        }

        void close() {
            loop.schedule(idle, Long.MAX_VALUE);
            socket.forget(this);
            flows.transition(this, State.CLOSED);
        }
    }
}
