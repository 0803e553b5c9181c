package io.jslirp.forward;

import io.jslirp.nat.Family;
import io.jslirp.nat.FlowStatus;
import io.jslirp.nat.GatewayPorts;
import io.jslirp.nat.UdpNat;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.util.FlowTable;
import io.jslirp.util.Log;

import io.jslirp.wire.UdpDatagram;

import java.util.function.Consumer;

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
    /** The guest's own UDP flows, whose gateway ports a mapping must not take. */
    private final UdpNat guestFlows;
    /** Mappings by what the guest's replies carry: (guest address, guest port, source, source port). */
    private final FlowTable<Mapping> byGuestSide = new FlowTable<>(16);
    private final GatewayPorts gatewayPorts = new GatewayPorts();

    public UdpForwards(Reactor loop, Counters counters, UdpNat guestFlows, long idleTimeoutNanos) {
        this.loop = loop;
        this.clock = loop.clock();
        this.guestFlows = guestFlows;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.counters = counters;
    }

    public int size() {
        return byGuestSide.size();
    }

    /**
     * Takes a datagram the guest sent when it answers a forwarded client (returns true: sent on to
     * that client), else returns false.
     */
    public boolean fromGuest(UdpDatagram d) {
        Mapping m = byGuestSide.get(d.source(), d.sourcePort(), d.destination(), d.destinationPort());
        if (m == null) return false;
        m.socket.toClient(d.frame(), d.payloadOffset(), d.payloadLength(), m); // a full buffer drops it, as a router would
        m.fromGuest += d.payloadLength();
        m.touch();
        return true;
    }

    /** A snapshot of every forwarded client's mapping. */
    public void statuses(Consumer<FlowStatus> sink) {
        long now = clock.now();
        byGuestSide.forEach(m -> sink.accept(new FlowStatus("udp", "open", true, m.family.format(m.guestAddress), m.guestPort,
                m.family.format(m.source), m.sourcePort, m.socket.formatClientAddress(m), m.clientPort, m.fromGuest, m.toGuest,
                now - m.openedAt)));
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
        Mapping m = new Mapping(socket, family, client, clientPort, guest, guestPort, source, port);
        byGuestSide.put(guest, guestPort, source, port, m);
        family.retain(guest);
        family.retain(source);
        counters.udpFlows++;
        Log.debug(() -> m + " opened");
        return m;
    }

    /** Sends length bytes at the UDP payload offset of m's family's frame to the guest, through m. */
    void toGuest(Mapping m, int length) {
        if (!m.family.output().resolveGuestMac(m.guestAddress)) {
            counters.sendDropped++; // the guest's ARP answer teaches its MAC; the client's next datagram gets through
            return;
        }
        m.family.output().sendUdp(m.source, m.sourcePort, m.guestAddress, m.guestPort, length);
        m.toGuest += length;
        m.touch();
    }

    private boolean free(int guestAddress, int guestPort, int source, int port) {
        return byGuestSide.get(guestAddress, guestPort, source, port) == null && !guestFlows.has(guestAddress, guestPort, source, port);
    }

    /** One host client of a forwarded UDP port, and the address and port the guest sees it at. */
    final class Mapping {
        final UdpForwardSocket socket;
        final Family family;
        /** The client (a handle held by the mapping) and its port. */
        final int client, clientPort;
        final int guestAddress, guestPort, source, sourcePort;
        final Timer idle = new Timer(this::close);
        final long openedAt = clock.now();
        /** Payload bytes the guest sent the client, and the client the guest. */
        long fromGuest, toGuest;

        Mapping(UdpForwardSocket socket, Family family, int client, int clientPort, int guestAddress, int guestPort, int source, int sourcePort) {
            this.socket = socket;
            this.family = family;
            this.client = client;
            this.clientPort = clientPort;
            this.guestAddress = guestAddress;
            this.guestPort = guestPort;
            this.source = source;
            this.sourcePort = sourcePort;
        }

        void touch() {
            loop.schedule(idle, clock.now() + idleTimeoutNanos);
        }

        void close() {
            loop.schedule(idle, Long.MAX_VALUE);
            socket.forget(this);
            byGuestSide.remove(guestAddress, guestPort, source, sourcePort);
            family.release(guestAddress);
            family.release(source);
            Log.debug(() -> this + " closed");
        }

        @Override
        public String toString() {
            return "forwarded udp " + socket.formatClient(this) + " as " + family.format(source) + ":" + sourcePort
                    + " -> " + family.format(guestAddress) + ":" + guestPort;
        }
    }
}
