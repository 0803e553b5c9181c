package io.jslirp.nat;

import io.jslirp.policy.DestinationRules;
import io.jslirp.policy.HostAddress;
import io.jslirp.policy.AddressPlan;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.sys.HostSockets;

import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack6;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.TcpOutput;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Udp;

/** IPv6 flows: the {@link Stack6}'s output and host IPv6 sockets, by the {@link OutboundPolicy}; addresses are handles. */
public final class Ipv6Family implements Family {
    private final Stack6 stack;
    private final AddressBook addresses;
    private final OutboundPolicy policy;
    /** Handles held for the life of the family. */
    private final int gateway, dns;

    /** outboundAddress: what outbound sockets are bound to (--outbound-addr6), or null; rules: --allow and --deny. */
    public Ipv6Family(Stack6 stack, HostAddress outboundAddress, DestinationRules rules) {
        this.stack = stack;
        this.addresses = stack.addresses();
        this.policy = new OutboundPolicy(addresses, AddressPlan.of(stack.network()), rules, outboundAddress, HostSockets.SYSTEM);
        this.gateway = addresses.acquire(stack.network().gatewayHi(), stack.network().gatewayLo());
        this.dns = addresses.acquire(stack.network().dnsHi(), stack.network().dnsLo());
    }

    @Override
    public TcpOutput output() {
        return stack;
    }

    @Override
    public Counters counters() {
        return stack.counters();
    }

    @Override
    public int gateway() {
        return gateway;
    }

    @Override
    public int dns() {
        return dns;
    }

    /** The guest's MAC is known from its Neighbor and Router Solicitations before any flow. */
    @Override
    public boolean resolveGuestMac(int guest) {
        return true;
    }

    @Override
    public int target(int destination) {
        return policy.target(destination);
    }

    @Override
    public int tcpSocket() {
        return Sockets.tcp6();
    }

    @Override
    public int udpSocket() {
        return Sockets.udp6();
    }

    @Override
    public int connect(int fd, int target, int port) {
        int r = policy.bindSource(fd);
        return r == 0 ? Sockets.connect6(fd, addresses.hi(target), addresses.lo(target), port) : r;
    }

    @Override
    public int udpPayloadOffset() {
        return Stack6.UDP_PAYLOAD_OFFSET;
    }

    /** What fits the frame buffer; more than the MTU is dropped by the stack anyway (IPv6 routers do not fragment). */
    @Override
    public int maxUdpPayload() {
        return 65536 - Ipv6.HEADER_LENGTH - Udp.HEADER_LENGTH;
    }

    @Override
    public void sendUdp(int source, int sourcePort, int destination, int destinationPort, int length) {
        stack.sendUdp(source, sourcePort, destination, destinationPort, length);
    }

    @Override
    public void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead) {
        stack.sendUnreachable(icmp4Code, protocol, guest, remote, transportHead);
    }

    @Override
    public void retain(int address) {
        addresses.retain(address);
    }

    @Override
    public void release(int address) {
        addresses.release(address);
    }

    @Override
    public String format(int address) {
        return addresses.format(address);
    }
}
