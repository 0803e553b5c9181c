package io.jslirp.engine;

import io.jslirp.forward.ForwardContext;
import io.jslirp.forward.ForwardListener;
import io.jslirp.forward.LoopbackClients;
import io.jslirp.forward.LoopbackDatagrams;
import io.jslirp.forward.GuestRoutes;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.forward.UdpForwardSocket;
import io.jslirp.forward.UdpForwards;
import io.jslirp.flow.Flow;
import io.jslirp.flow.FlowStatus;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.nat.Destinations;
import io.jslirp.nat.Family;
import io.jslirp.nat.NatContext;
import io.jslirp.nat.Limits;
import io.jslirp.nat.PingNat;
import io.jslirp.nat.TcpNat;
import io.jslirp.nat.UdpNat;
import io.jslirp.policy.DnsServers;
import io.jslirp.service.DnsForwarder;
import io.jslirp.service.TftpFiles;
import io.jslirp.service.TftpServer;

import io.jslirp.loop.Reactor;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.Transport;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.util.BufferPool;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.UdpDatagram;
import io.jslirp.wire.Ipv4;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/**
 * Carries the guest's TCP, UDP and ICMP echo flows of both IP versions over host sockets (one TCP,
 * one UDP and one ping NAT, each flow keeping the {@link Family} it came by), serves the DNS
 * addresses (unless disabled) by forwarding to the nameservers of resolv.conf, the gateway's TFTP
 * port when asked, and the host ports forwarded to the guest. Every flow is in its one table
 * ({@link Flows}): a packet from the guest goes to the flow of its guest side if there is one, and
 * only otherwise to the one decision of where a new flow goes ({@link Destinations}). The one place
 * that lists and shuts down every flow. The stack hands its traffic to {@link #entry}.
 */
public final class HostTransport {
    private final Reactor loop;
    /** The socket bypass's connections (jslirp run --bypass), or null. */
    private io.jslirp.bypass.ConnectBypass bypass;
    private final HostSockets sockets;
    private final AddressBook addresses;
    private final Flows flows;
    private final Destinations destinations;
    private final Family ipv4;
    /** Null without --enable-ipv6. */
    private final Family ipv6;
    private final TcpNat tcp;
    private final UdpNat udp;
    private final PingNat ping;
    /** Null with --disable-dns: the DNS addresses are then as silent as any unassigned one. */
    private final DnsForwarder dns;
    /** Null unless a TFTP directory is served, when the IPv4 gateway's TFTP port is answered here. */
    private TftpServer tftp;
    private final UdpForwards udpForwards;
    private final ForwardContext forwardContext;
    private final List<HostForward> forwards = new ArrayList<>();
    /** Takes forwarded TCP ports' clients from the host's loopback (pasta's splice), or null. */
    private LoopbackClients loopbackClients;
    /** Takes forwarded UDP ports' datagrams from the host's loopback, or null. */
    private LoopbackDatagrams loopbackDatagrams;

    /**
     * @param ipv4   IPv4's family
     * @param ipv6   IPv6's (--enable-ipv6), or null
     * @param config where queries to the DNS addresses go (its nameservers, in resolv.conf's order;
     *               none: --disable-dns), how many flows the guest may have (both versions
     *               together) and how long a datagram flow may stay idle
     */
    public HostTransport(Reactor loop, HostSockets sockets, Family ipv4, Family ipv6, EngineConfig config) {
        DnsServers nameservers = DnsServers.of(config.nameservers(), config.nameservers6());
        long idleTimeoutNanos = config.udpIdleNanos();
        Limits limits = config.limits();
        this.loop = loop;
        this.sockets = sockets;
        this.addresses = ipv4.addresses();
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
        Counters counters = ipv4.counters();
        this.flows = new Flows(addresses);
        this.destinations = new Destinations(nameservers);
        NatContext nat = new NatContext(loop, flows, sockets, counters, limits, idleTimeoutNanos);
        this.dns = nameservers == null ? null : new DnsForwarder(loop, sockets, counters, nameservers);
        this.tcp = new TcpNat(nat, nameservers, ipv4.tcp().bufferBudget(), ipv4.output().transmitBatch());
        this.udp = new UdpNat(nat);
        this.ping = new PingNat(nat);
        this.udpForwards = new UdpForwards(nat);
        this.forwardContext = new ForwardContext(loop, sockets, addresses, new GuestRoutes(ipv4, ipv6));
    }

    /**
     * What the stack hands its guest traffic to: each packet goes in by its version's family,
     * which the addresses' handles tell (the stack drops IPv6 packets naming IPv4-mapped addresses).
     */
    public Transport entry() {
        Entry v4 = new Entry(ipv4), v6 = ipv6 == null ? null : new Entry(ipv6);
        return v6 == null ? v4 : new Transport() {
            @Override
            public void tcp(TcpSegment segment) {
                (addresses.isIpv4(segment.source()) ? v4 : v6).tcp(segment);
            }

            @Override
            public void udp(UdpDatagram datagram) {
                (addresses.isIpv4(datagram.source()) ? v4 : v6).udp(datagram);
            }

            @Override
            public void icmpEcho(IcmpEcho echo) {
                (addresses.isIpv4(echo.source()) ? v4 : v6).icmpEcho(echo);
            }
        };
    }

    /**
     * Forwards a host port to the guest: TCP clients, or each UDP client's datagrams, reach the
     * forward's guest address (by default the one the guest last sent from) at its guest port,
     * from the gateway (or the client, with --preserve-source). Throws IllegalArgumentException when the host port cannot be bound.
     */
    public HostForward forward(PortForward forward) {
        HostForward f = forward.protocol() == PortForward.Protocol.UDP
                ? new UdpForwardSocket(forwardContext, udpForwards, forward, loopbackDatagrams)
                : new ForwardListener(forwardContext, tcp, forward, loopbackClients);
        forwards.add(f);
        return f;
    }

    /**
     * From now on, clients of forwarded TCP ports that come from the host's loopback go to taker
     * instead of the guest's link (pasta splices them into the namespace); null: through the link.
     */
    public void loopbackClients(LoopbackClients taker) {
        this.loopbackClients = taker;
    }

    /** As {@link #loopbackClients} for the datagrams of forwarded UDP ports. */
    public void loopbackDatagrams(LoopbackDatagrams taker) {
        this.loopbackDatagrams = taker;
    }

    /** Closes a forwarded port: no new clients; TCP connections made through it carry on. */
    public void unforward(HostForward forward) {
        if (forwards.remove(forward)) forward.close();
    }

    /**
     * From now on, the connects that notify holds (the socket bypass of {@code jslirp run --bypass})
     * become host sockets where the one decision of where a flow goes ({@link Destinations}) sends
     * a guest's connection to a host address; the rest go through the namespace.
     */
    public void bypassConnects(io.jslirp.sys.SeccompNotify notify, io.jslirp.bypass.ConnectBypass.Defaults defaults) {
        bypass(defaults).serve(notify);
    }

    /** The socket bypass's supervisor, made at the first call (defaults: a new socket's buffer sizes in the guest's namespace). */
    public io.jslirp.bypass.ConnectBypass bypass(io.jslirp.bypass.ConnectBypass.Defaults defaults) {
        if (bypass == null) bypass = new io.jslirp.bypass.ConnectBypass(loop, destinations, ipv4, ipv6, ipv4.counters(), defaults);
        return bypass;
    }

    /** The family of IPv6 (null without it) or IPv4, for tests of what takes one. */
    Family family(boolean v6) {
        return v6 ? ipv6 : ipv4;
    }

    /** The one table of flows, every kind. */
    public Flows flowTable() {
        return flows;
    }

    /** The host side's figures by name: the table's flows opened and open by kind, then the TCP window credit's. */
    public void figures(ObjLongConsumer<String> sink) {
        flows.figures(sink);
        tcp.figures(sink);
    }

    /** Open TCP connections (also those through forwarded ports, and forwarded clients not yet answered), both versions. */
    public int tcpConnections() {
        return flows.size(Kind.TCP);
    }

    /** The TCP connections' buffer memory: in use, and kept free for reuse until trimmed. */
    public BufferPool tcpBuffers() {
        return tcp.buffers();
    }

    /** Open UDP flows: the guest's own and forwarded clients', both versions. */
    public int udpFlows() {
        return flows.size(Kind.UDP);
    }

    /**
     * A snapshot of every flow of the table, both versions: TCP, UDP, ping and spliced (TFTP
     * transfers and DNS queries over UDP, which the services answer, excepted), from the loop's
     * thread only.
     */
    public void flows(Consumer<FlowStatus> sink) {
        flows.statuses(loop.clock().now(), sink);
        if (bypass != null) bypass.flows(sink);
    }

    /**
     * Serves dir read-only over TFTP on the IPv4 gateway's port 69, which then no longer leads to
     * the host's loopback. Throws UncheckedIOException when dir cannot be resolved.
     */
    public void serveTftp(GuestOutput stack, Path dir) {
        try {
            tftp = new TftpServer(loop, stack, new TftpFiles(dir));
            destinations.serveTftp();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve TFTP from " + dir, e);
        }
    }

    /** End of the loop iteration: what the flows' events produced goes out (before the link flushes its frames). */
    public void flush() {
        udp.flush();
        ping.flush();
        tcp.flush();
    }

    /** Closes the forwarded ports, resets every TCP connection and closes every UDP, DNS, ping and TFTP flow. */
    public void shutdown() {
        forwards.forEach(HostForward::close);
        forwards.clear();
        tcp.resetAll();
        udp.closeAll();
        ping.closeAll();
        if (dns != null) dns.closeAll();
        if (tftp != null) tftp.closeAll();
    }

    /** One version's way in: its stack's traffic, with the family it came by. */
    private final class Entry implements Transport {
        private final Family family;

        Entry(Family family) {
            this.family = family;
        }

        /**
         * Whether a packet of this version names an address of the other (an IPv4-mapped one in an
         * IPv6 packet): dropped, as IPv4's flows and policy must not be reached that way.
         */
        private boolean crossed(int source, int destination) {
            if (addresses.isIpv4(source) == !family.ipv6() && addresses.isIpv4(destination) == !family.ipv6()) return false;
            family.counters().unsupported++;
            return true;
        }

        @Override
        public void tcp(TcpSegment s) {
            int source = s.source(), destination = s.destination();
            if (crossed(source, destination)) return;
            int sourcePort = s.header().sourcePort(), destinationPort = s.header().destinationPort();
            if (tcp.segment(family, flows.find(Kind.TCP, source, sourcePort, destination, destinationPort), s)) return;
            tcp.open(family, s, destinations.decide(family, Ipv4.PROTO_TCP, destination, destinationPort));
        }

        @Override
        public void udp(UdpDatagram d) {
            int source = d.source(), destination = d.destination(), destinationPort = d.destinationPort();
            if (crossed(source, destination)) return;
            Flow found = flows.find(Kind.UDP, source, d.sourcePort(), destination, destinationPort);
            if (found != null) {
                if (!udpForwards.fromGuest(found, d)) udp.fromGuest(found, d);
                return;
            }
            long to = destinations.decide(family, Ipv4.PROTO_UDP, destination, destinationPort);
            switch (Destinations.what(to)) {
                case Destinations.TFTP -> tftp.datagram(d.frame(), d.payloadOffset(), d.payloadLength(), source, d.sourcePort());
                case Destinations.NAMESERVERS -> dns.query(family, d.frame(), d.payloadOffset(), d.payloadLength(), source, d.sourcePort());
                default -> udp.open(family, d, to);
            }
        }

        @Override
        public void icmpEcho(IcmpEcho echo) {
            int source = echo.source(), destination = echo.destination();
            if (crossed(source, destination)) return;
            Flow found = flows.find(Kind.PING, source, echo.identifier(), destination, 0);
            if (found != null) ping.echo(found, echo);
            else ping.open(family, echo, destinations.decide(family, Ipv4.PROTO_ICMP, destination, 0));
        }
    }
}
