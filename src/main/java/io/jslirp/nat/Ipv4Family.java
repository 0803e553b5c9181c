package io.jslirp.nat;

import io.jslirp.policy.OutboundPolicy;

import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.TcpOutput;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv4;

/** IPv4 flows: the stack's IPv4 output and host IPv4 sockets, by the {@link OutboundPolicy}; addresses are handles. */
public final class Ipv4Family implements Family {
    private final GuestOutput stack;
    private final AddressBook addresses;
    private final OutboundPolicy policy;
    /** Handles held for the life of the family. */
    private final int gateway, dns;

    public Ipv4Family(GuestOutput stack, OutboundPolicy policy) {
        this.stack = stack;
        this.addresses = stack.addresses();
        this.policy = policy;
        this.gateway = stack.gateway();
        this.dns = stack.dns();
        addresses.retain(gateway);
        addresses.retain(dns);
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

    @Override
    public boolean resolveGuestMac(int guest) {
        return stack.resolveGuestMac(guest);
    }

    @Override
    public int target(int destination) {
        return policy.target(destination);
    }

    @Override
    public int tcpSocket() {
        return Sockets.tcp4();
    }

    @Override
    public int udpSocket() {
        return Sockets.udp4();
    }

    @Override
    public int connect(int fd, int target, int port) {
        int r = policy.bindSource(fd);
        return r == 0 ? Sockets.connect4(fd, addresses.ipv4(target), port) : r;
    }

    @Override
    public int udpPayloadOffset() {
        return stack.udpPayloadOffset();
    }

    @Override
    public int maxUdpPayload() {
        return 65535 - Ipv4.MIN_HEADER_LENGTH - 8;
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
