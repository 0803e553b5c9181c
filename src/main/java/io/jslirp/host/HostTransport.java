package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Carries the guest's TCP, UDP and ICMP echo flows over host sockets, and serves the DNS
 * address (unless disabled) by forwarding to the nameservers of resolv.conf.
 */
public final class HostTransport implements Transport {
    private final EventLoop loop;
    private final Stack stack;
    private final TcpNat tcp;
    private final UdpNat udp;
    private final PingNat ping;
    /** Null with --disable-dns: the DNS address is then as silent as any unassigned one. */
    private final DnsForwarder dns;
    private final List<ForwardListener> forwards = new ArrayList<>();

    /**
     * @param nameservers where queries to the DNS address go, in resolv.conf's order; null
     *                    disables the DNS address (--disable-dns)
     */
    public HostTransport(EventLoop loop, Stack stack, OutboundPolicy policy, List<Nameserver> nameservers,
                         TcpConfig tcpConfig, long idleTimeoutNanos) {
        this.loop = loop;
        this.stack = stack;
        this.dns = nameservers == null ? null : new DnsForwarder(loop, stack, nameservers);
        this.tcp = new TcpNat(loop, stack, policy, dns, tcpConfig);
        this.udp = new UdpNat(loop, stack, policy, idleTimeoutNanos);
        this.ping = new PingNat(loop, stack, policy, idleTimeoutNanos);
    }

    /**
     * Forwards a host TCP port to the guest: its clients reach the guest's address (the one it
     * last sent from) at the forward's guest port, from the gateway. Throws
     * IllegalArgumentException when the host port cannot be listened on.
     */
    public void forwardTcp(TcpForward forward) {
        forwards.add(new ForwardListener(loop, tcp, forward, stack::guestAddress));
    }

    @Override
    public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
        tcp.segment(frame, offset, length, source, destination);
    }

    @Override
    public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
        if (dns != null && dns.serves(destination, destinationPort)) dns.query(frame, offset, length, source, sourcePort);
        else udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    @Override
    public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
        ping.echo(frame, offset, length, source, destination);
    }

    /** Closes the forwarded ports, resets every TCP connection and closes every UDP, DNS and ping flow. */
    public void shutdown() {
        forwards.forEach(ForwardListener::close);
        tcp.resetAll();
        udp.closeAll();
        ping.closeAll();
        if (dns != null) dns.closeAll();
    }
}
