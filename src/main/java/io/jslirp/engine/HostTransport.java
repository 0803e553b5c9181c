package io.jslirp.engine;

import io.jslirp.forward.ForwardListener;
import io.jslirp.forward.ForwardListener6;
import io.jslirp.policy.ForwardSource;
import io.jslirp.forward.HostForward;
import io.jslirp.policy.AddressPlan;
import io.jslirp.forward.PortForward;
import io.jslirp.forward.UdpForwardSocket;
import io.jslirp.forward.UdpForwards;
import io.jslirp.nat.Family;
import io.jslirp.nat.FlowStatus;
import io.jslirp.nat.Ipv4Family;
import io.jslirp.nat.Limits;
import io.jslirp.nat.PingNat;
import io.jslirp.nat.TcpNat;
import io.jslirp.nat.UdpNat;
import io.jslirp.policy.Nameservers;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.service.DnsForwarder;
import io.jslirp.service.TftpFiles;
import io.jslirp.service.TftpServer;

import io.jslirp.loop.Reactor;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.wire.Tftp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Carries the guest's IPv4 TCP, UDP and ICMP echo flows over host sockets (IPv6's are
 * {@link Ipv6Transport}'s), serves the DNS address
 * (unless disabled) by forwarding to the nameservers of resolv.conf, the gateway's TFTP port when
 * asked, and the host ports forwarded to the guest.
 */
public final class HostTransport implements Transport {
    private final Reactor loop;
    private final Stack stack;
    private final TcpNat tcp;
    private final UdpNat udp;
    private final PingNat ping;
    /** Null with --disable-dns: the DNS address is then as silent as any unassigned one. */
    private final DnsForwarder dns;
    /** Null unless a TFTP directory is served, when the gateway's TFTP port is answered here. */
    private TftpServer tftp;
    private final UdpForwards udpForwards;
    /** The gateway's address handle (its family holds it). */
    private final int gateway;
    private final List<HostForward> forwards = new ArrayList<>();
    /** The IPv6 side (--enable-ipv6), where clients of IPv6 forwards go when they can; else null. */
    private Ipv6Transport ipv6;

    /**
     * @param nameservers    where queries to the DNS address go, in resolv.conf's order; null
     *                       disables the DNS address (--disable-dns)
     * @param preserveSource whether forwarded clients reach the guest from their own addresses (--preserve-source)
     */
    public HostTransport(Reactor loop, Stack stack, OutboundPolicy policy, Nameservers nameservers,
                         TcpConfig tcpConfig, long idleTimeoutNanos, Limits limits, boolean preserveSource) {
        this.loop = loop;
        this.stack = stack;
        Family family = new Ipv4Family(stack, policy);
        this.gateway = family.gateway();
        this.dns = nameservers == null ? null : new DnsForwarder(loop, family, nameservers);
        ForwardSource forwardSource = new ForwardSource(stack.addresses(), AddressPlan.of(stack.config()), family.gateway(), preserveSource);
        this.tcp = new TcpNat(loop, family, nameservers, forwardSource, tcpConfig, limits);
        this.udp = new UdpNat(loop, family, idleTimeoutNanos, limits);
        this.ping = new PingNat(loop, stack, policy, idleTimeoutNanos);
        this.udpForwards = new UdpForwards(loop, family, udp, forwardSource, idleTimeoutNanos);
    }

    /** With --enable-ipv6, before the forwards are opened: clients of IPv6 host addresses then reach the guest over IPv6. */
    public void setIpv6(Ipv6Transport ipv6) {
        this.ipv6 = ipv6;
    }

    /**
     * Forwards a host port to the guest: TCP clients, or each UDP client's datagrams, reach the
     * forward's guest address (by default the one the guest last sent from) at its guest port,
     * from the gateway (or the client, with --preserve-source). Throws IllegalArgumentException when the host port cannot be bound.
     */
    public HostForward forward(PortForward forward) {
        HostForward f = forward.protocol() == PortForward.Protocol.UDP
                ? new UdpForwardSocket(loop, forward, udpForwards, stack.addresses(), stack::guestAddress, ipv6)
                : forward.ipv6() ? new ForwardListener6(loop, tcp, stack.addresses(), stack::guestAddress, ipv6, forward)
                : new ForwardListener(loop, tcp, stack.addresses(), forward, stack::guestAddress);
        forwards.add(f);
        return f;
    }

    /** Closes a forwarded port: no new clients; TCP connections made through it carry on. */
    public void unforward(HostForward forward) {
        if (forwards.remove(forward)) forward.close();
    }

    /** Open TCP connections (also those through forwarded ports), IPv6's included. */
    public int tcpConnections() {
        return tcp.size() + (ipv6 == null ? 0 : ipv6.tcpConnections());
    }

    /** Open UDP flows: the guest's own and forwarded clients', IPv6's included. */
    public int udpFlows() {
        return udp.size() + udpForwards.size() + (ipv6 == null ? 0 : ipv6.udpFlows());
    }

    /**
     * A snapshot of every open TCP connection and UDP flow (TFTP transfers excepted), from the
     * loop's thread only.
     */
    public void flows(Consumer<FlowStatus> sink) {
        tcp.statuses(sink);
        udp.statuses(sink);
        udpForwards.statuses(sink);
    }

    /**
     * Serves dir read-only over TFTP on the gateway's port 69, which then no longer leads to the
     * host's loopback. Throws UncheckedIOException when dir cannot be resolved.
     */
    public void serveTftp(Path dir) {
        try {
            tftp = new TftpServer(loop, stack, new TftpFiles(dir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve TFTP from " + dir, e);
        }
    }

    @Override
    public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
        tcp.segment(frame, offset, length, source, destination);
    }

    @Override
    public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
        if (destination == gateway && tftp != null && destinationPort == Tftp.PORT) {
            tftp.datagram(frame, offset, length, source, sourcePort);
            return;
        }
        if (udpForwards.fromGuest(frame, offset, length, source, sourcePort, destination, destinationPort)) return;
        if (dns != null && dns.serves(destination, destinationPort)) dns.query(frame, offset, length, source, sourcePort);
        else udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    @Override
    public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
        ping.echo(frame, offset, length, source, destination);
    }

    /** Closes the forwarded ports, resets every TCP connection and closes every UDP, DNS and ping flow. */
    public void shutdown() {
        forwards.forEach(HostForward::close);
        forwards.clear();
        tcp.resetAll();
        udp.closeAll();
        ping.closeAll();
        if (dns != null) dns.closeAll();
        if (tftp != null) tftp.closeAll();
    }
}
