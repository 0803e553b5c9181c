package io.jslirp.engine;

import io.jslirp.forward.PortForward;
import io.jslirp.loop.Reactor;
import io.jslirp.nat.Family;
import io.jslirp.policy.AddressPlan;
import io.jslirp.policy.ForwardSource;
import io.jslirp.policy.HostAddress;
import io.jslirp.policy.Nameservers;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.stack.Counters;
import io.jslirp.stack.FrameSink;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Stack6;
import io.jslirp.sys.HostSockets;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.util.AddressBook;

/**
 * The virtual network behind a link, without the link and the loop: the stacks of both IP
 * versions and, above them, the host side that carries their flows (one {@link Family} per
 * version, one {@link HostTransport}), on a {@link Reactor} with {@link HostSockets}. The engine
 * runs it on the event loop and the kernel's sockets; tests on virtual time and fake sockets.
 */
final class VirtualNetwork {
    private final Stack stack;
    /** Null without --enable-ipv6. */
    private final Stack6 stack6;
    private final HostTransport transport;

    /** Throws UncheckedIOException when the TFTP directory cannot be resolved, IllegalArgumentException when a forward cannot be bound. */
    VirtualNetwork(EngineConfig config, FrameSink sink, AddressBook addresses, Reactor loop, HostSockets sockets) {
        this.stack = new Stack(config.network(), config.bootFile(), sink, new Counters(), addresses);
        this.stack6 = config.ipv6() == null ? null : new Stack6(config.ipv6(), sink, stack.counters(), addresses);
        Nameservers nameservers = config.nameservers() == null ? null : new Nameservers(config.nameservers());
        Family ipv4 = family(stack, AddressPlan.of(config.network()),
                config.outboundAddress() == 0 ? null : HostAddress.ipv4(config.outboundAddress()), config.tcp(), config, sockets);
        Family ipv6 = stack6 == null ? null
                : family(stack6, AddressPlan.of(config.ipv6()), config.outboundAddress6(), config.tcp6(), config, sockets);
        this.transport = new HostTransport(loop, sockets, ipv4, ipv6, nameservers, config.udpIdleNanos(), config.limits());
        stack.setTransport(transport.entry(ipv4));
        if (stack6 != null) {
            stack6.setTransport(transport.entry(ipv6));
            stack.setIpv6(stack6);
        }
        if (config.tftpRoot() != null) transport.serveTftp(stack, config.tftpRoot());
        for (PortForward forward : config.forwards()) transport.forward(forward);
    }

    /** One IP version's family: its stack's output, where its flows go (--allow, --deny, --outbound-addr), its TCP's MSS. */
    private static Family family(GuestOutput out, AddressPlan plan, HostAddress outboundAddress, TcpConfig tcp, EngineConfig config,
                                 HostSockets sockets) {
        OutboundPolicy policy = new OutboundPolicy(out.addresses(), plan, config.rules(), outboundAddress, sockets);
        ForwardSource source = new ForwardSource(out.addresses(), plan, out.gateway(), config.preserveSource());
        return new Family(out, policy, source, tcp, sockets);
    }

    /** IPv4's stack, which takes the guest's frames (and hands IPv6's to {@link #stack6()}). */
    public Stack stack() {
        return stack;
    }

    /** IPv6's stack, or null without --enable-ipv6. */
    public Stack6 stack6() {
        return stack6;
    }

    /** Every flow of both versions. */
    public HostTransport transport() {
        return transport;
    }

    public Counters counters() {
        return stack.counters();
    }
}
