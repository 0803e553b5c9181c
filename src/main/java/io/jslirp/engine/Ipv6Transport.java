package io.jslirp.engine;

import io.jslirp.policy.ForwardSource;
import io.jslirp.policy.AddressPlan;
import io.jslirp.forward.UdpForwards;
import io.jslirp.nat.Family;
import io.jslirp.nat.FlowStatus;
import io.jslirp.nat.Ipv6Family;
import io.jslirp.nat.Limits;
import io.jslirp.nat.TcpNat;
import io.jslirp.nat.UdpNat;
import io.jslirp.policy.DestinationRules;
import io.jslirp.policy.HostAddress;
import io.jslirp.policy.Nameservers;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.service.DnsForwarder;

import io.jslirp.loop.Reactor;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack6;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.Ipv6;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;

/**
 * Carries the guest's IPv6 TCP and UDP flows over host IPv6 sockets ({@link OutboundPolicy}) and
 * serves the DNS address fd00::3 by forwarding to the nameservers of resolv.conf, as
 * {@link HostTransport} does for IPv4. Its flows count against the limits apart from IPv4's.
 */
public final class Ipv6Transport implements Transport {
    private final TcpNat tcp;
    private final UdpNat udp;
    /** Clients of forwarded UDP ports of IPv6 host addresses, toward the guest's IPv6 address. */
    private final UdpForwards udpForwards;
    /** Null with --disable-dns. */
    private final DnsForwarder dns;
    private final Counters counters;
    private final Stack6 stack;
    private final Family family;

    /**
     * @param nameservers    where queries to the DNS address go; null disables it (--disable-dns)
     * @param preserveSource whether forwarded clients reach the guest from their own addresses (--preserve-source)
     * @param outboundAddress what outbound sockets are bound to (--outbound-addr6), or null
     * @param rules          the host destinations the guest may reach (--allow, --deny), as for IPv4
     */
    public Ipv6Transport(Reactor loop, Stack6 stack, Nameservers nameservers, TcpConfig tcpConfig,
                         long idleTimeoutNanos, Limits limits, boolean preserveSource, HostAddress outboundAddress,
                         DestinationRules rules) {
        this.stack = stack;
        Ipv6Family family = new Ipv6Family(stack, outboundAddress, rules);
        this.family = family;
        this.dns = nameservers == null ? null : new DnsForwarder(loop, family, nameservers);
        ForwardSource forwardSource = new ForwardSource(stack.addresses(), AddressPlan.of(stack.network()), family.gateway(), preserveSource);
        this.tcp = new TcpNat(loop, family, nameservers, forwardSource, tcpConfig, limits);
        this.udp = new UdpNat(loop, family, idleTimeoutNanos, limits);
        this.udpForwards = new UdpForwards(loop, family, udp, forwardSource, idleTimeoutNanos);
        this.counters = stack.counters();
    }

    /**
     * Opens a forwarded host client's connection (fd, from client:clientPort, a handle the caller
     * holds) to the guest's IPv6 address at guestPort; false (nothing done) while that address is
     * not known.
     */
    public boolean forward(int fd, int guestPort, int client, int clientPort) {
        int guest = guestAddress();
        if (guest == AddressBook.NONE) return false;
        tcp.forward(fd, guest, guestPort, client, clientPort);
        return true;
    }

    /** The guest's IPv6 address (a handle of {@link #addresses()}), or {@link AddressBook#NONE} while unknown. */
    public int guestAddress() {
        return stack.guestAddress();
    }

    public AddressBook addresses() {
        return stack.addresses();
    }

    int tcpConnections() {
        return tcp.size();
    }

    int udpFlows() {
        return udp.size() + udpForwards.size();
    }

    public UdpForwards udpForwards() {
        return udpForwards;
    }

    @Override
    public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
        tcp.segment(frame, offset, length, source, destination);
    }

    @Override
    public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
        if (udpForwards.fromGuest(frame, offset, length, source, sourcePort, destination, destinationPort)) return;
        if (dns != null && dns.serves(destination, destinationPort)) dns.query(frame, offset, length, source, sourcePort);
        else udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    /**
     * Echo to hosts beyond the router is not relayed over IPv6 (IPv4's goes through ping sockets),
     * but one the policy refuses is answered as IPv4's is, so the guest learns why.
     */
    @Override
    public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
        int refusal = OutboundPolicy.refusalCode(family.target(destination));
        if (refusal < 0) {
            counters.unsupported++;
            return;
        }
        counters.policyRefused++;
        long echoHead = ((long) Icmpv6.ECHO_REQUEST << 56) | (Bytes.u32(frame, offset + 4) & 0xffffffffL); // identifier, sequence
        family.sendUnreachable(refusal, Ipv6.PROTO_ICMPV6, source, destination, echoHead);
    }

    /** A snapshot of every open TCP connection and UDP flow, from the loop's thread only. */
    public void flows(Consumer<FlowStatus> sink) {
        tcp.statuses(sink);
        udp.statuses(sink);
        udpForwards.statuses(sink);
    }

    /** Resets every TCP connection and closes every UDP and DNS flow. */
    public void shutdown() {
        tcp.resetAll();
        udp.closeAll();
        if (dns != null) dns.closeAll();
    }
}
