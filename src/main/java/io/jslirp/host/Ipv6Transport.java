package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack6;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;

/**
 * Carries the guest's IPv6 TCP and UDP flows over host IPv6 sockets ({@link OutboundPolicy6}) and
 * serves the DNS address fd00::3 by forwarding to the nameservers of resolv.conf, as
 * {@link HostTransport} does for IPv4. Its flows count against the limits apart from IPv4's.
 */
public final class Ipv6Transport implements Transport {
    private final TcpNat tcp;
    private final UdpNat udp;
    /** Null with --disable-dns. */
    private final DnsForwarder dns;
    private final Counters counters;

    /** @param nameservers where queries to the DNS address go; null disables it (--disable-dns) */
    public Ipv6Transport(EventLoop loop, Stack6 stack, List<Nameserver> nameservers, TcpConfig tcpConfig,
                         long idleTimeoutNanos, Limits limits) {
        Family family = new Ipv6Family(stack);
        this.dns = nameservers == null ? null : new DnsForwarder(loop, family, nameservers);
        this.tcp = new TcpNat(loop, family, dns, null, tcpConfig, limits); // no forwards to the guest over IPv6 yet
        this.udp = new UdpNat(loop, family, idleTimeoutNanos, limits);
        this.counters = stack.counters();
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

    /** Echo to hosts beyond the router is not relayed over IPv6 (IPv4's goes through ping sockets). */
    @Override
    public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
        counters.unsupported++;
    }

    /** A snapshot of every open TCP connection and UDP flow, from the loop's thread only. */
    public void flows(Consumer<FlowStatus> sink) {
        tcp.statuses(sink);
        udp.statuses(sink);
    }

    /** Resets every TCP connection and closes every UDP and DNS flow. */
    public void shutdown() {
        tcp.resetAll();
        udp.closeAll();
        if (dns != null) dns.closeAll();
    }
}
