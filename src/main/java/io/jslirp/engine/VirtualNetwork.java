package io.jslirp.engine;

import io.jslirp.forward.PortForward;
import io.jslirp.loop.Reactor;
import io.jslirp.nat.Family;
import io.jslirp.policy.AddressPlan;
import io.jslirp.policy.ForwardSource;
import io.jslirp.policy.HostAddress;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.stack.Counters;
import io.jslirp.stack.FrameSink;
import io.jslirp.stack.GuestOutput;
import io.jslirp.service.DhcpServer;
import io.jslirp.service.Dhcpv6Server;
import io.jslirp.service.LinkServices;
import io.jslirp.service.RouterAdvertisements;
import io.jslirp.stack.Stack;
import io.jslirp.sys.HostSockets;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.util.AddressBook;

/**
 * The virtual network behind a link, without the link and the loop: the stack of both IP
 * versions, the gateway's own services on the link (DHCP, DHCPv6, Router Advertisements) and,
 * above them, the host side that carries the flows (one {@link Family} per version, one
 * {@link HostTransport}), on a {@link Reactor} with {@link HostSockets}. The engine runs it on the
 * event loop and the kernel's sockets; tests on virtual time and fake sockets.
 */
final class VirtualNetwork {
    private final Stack stack;
    private final HostTransport transport;
    /** Null without --enable-ipv6. */
    private final RouterAdvertisements advertisements;

    /** Throws UncheckedIOException when the TFTP directory cannot be resolved, IllegalArgumentException when a forward cannot be bound. */
    VirtualNetwork(EngineConfig config, FrameSink sink, AddressBook addresses, Reactor loop, HostSockets sockets) {
        this.stack = new Stack(config.network(), config.ipv6(), sink, new Counters(), addresses);
        stack.setClock(loop.clock()::now);
        // A guest whose IPv6 address is configured (pasta's model) forms none by SLAAC: nothing to advertise.
        this.advertisements = config.ipv6() == null || config.ipv6().fixedGuest() ? null
                : new RouterAdvertisements(stack.ipv6(), config.ipv6());
        stack.setServices(new LinkServices(new DhcpServer(config.network(), config.bootFile(), stack.ipv4()),
                config.ipv6() == null ? null : new Dhcpv6Server(stack.ipv6(), config.ipv6()), advertisements));
        Family ipv4 = family(stack.ipv4(), config.plan4() != null ? config.plan4() : AddressPlan.of(config.network()),
                config.outboundAddress() == 0 ? null : HostAddress.ipv4(config.outboundAddress()), config.tcp(), config, sockets);
        Family ipv6 = config.ipv6() == null ? null
                : family(stack.ipv6(), config.plan6() != null ? config.plan6() : AddressPlan.of(config.ipv6()), config.outboundAddress6(), config.tcp6(), config, sockets);
        this.transport = new HostTransport(loop, sockets, ipv4, ipv6, config);
        stack.setTransport(transport.entry());
        if (config.tftpRoot() != null) transport.serveTftp(stack.ipv4(), config.tftpRoot());
        for (PortForward forward : config.forwards()) transport.forward(forward);
    }

    /** One IP version's family: its stack's output, where its flows go (--allow, --deny, --outbound-addr), its TCP's MSS. */
    private static Family family(GuestOutput out, AddressPlan plan, HostAddress outboundAddress, TcpConfig tcp, EngineConfig config,
                                 HostSockets sockets) {
        OutboundPolicy policy = new OutboundPolicy(out.addresses(), plan, config.rules(), outboundAddress, sockets);
        ForwardSource source = new ForwardSource(out.addresses(), plan, out.gateway(), config.preserveSource());
        return new Family(out, policy, source, tcp, sockets);
    }

    /**
     * Starts what the network does by itself in time: the router's unsolicited advertisements
     * (answers to solicitations need no start).
     */
    void start(Reactor loop) {
        if (advertisements != null) advertisements.start(loop);
    }

    /** The stack, which takes the guest's frames of both versions. */
    public Stack stack() {
        return stack;
    }

    /** Every flow of both versions. */
    public HostTransport transport() {
        return transport;
    }

    public Counters counters() {
        return stack.counters();
    }
}
