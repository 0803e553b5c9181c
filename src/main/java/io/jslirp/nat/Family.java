package io.jslirp.nat;

import io.jslirp.policy.ForwardSource;
import io.jslirp.policy.OutboundPolicy;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.HostSockets;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

/**
 * One IP version as the NAT, the forwards and the services see it, all data: the guest-facing
 * output of that version ({@link GuestOutput}, which carries what differs in the headers), where its
 * flows go on the host ({@link OutboundPolicy}), where forwarded clients appear to come from
 * ({@link ForwardSource}), its TCP parameters (the MSS), and host sockets of that version. Every
 * flow keeps the family it came by. Addresses are handles of the engine's {@link AddressBook}, the
 * same for both versions; a flow retains those it keeps.
 */
public final class Family {
    private final GuestOutput out;
    private final OutboundPolicy policy;
    private final ForwardSource forwardSource;
    private final TcpConfig tcp;
    private final HostSockets sockets;
    private final AddressBook addresses;
    private final boolean ipv6;
    /** ICMP as this version numbers it: the protocol, and echo request and reply types. */
    private final int icmpProtocol, echoRequest, echoReply;

    public Family(GuestOutput out, OutboundPolicy policy, ForwardSource forwardSource, TcpConfig tcp, HostSockets sockets) {
        this.out = out;
        this.policy = policy;
        this.forwardSource = forwardSource;
        this.tcp = tcp;
        this.sockets = sockets;
        this.addresses = out.addresses();
        this.ipv6 = out.version() == 6;
        this.icmpProtocol = ipv6 ? Ipv6.PROTO_ICMPV6 : Ipv4.PROTO_ICMP;
        this.echoRequest = ipv6 ? Icmpv6.ECHO_REQUEST : Icmpv4.ECHO_REQUEST;
        this.echoReply = ipv6 ? Icmpv6.ECHO_REPLY : Icmpv4.ECHO_REPLY;
    }

    public GuestOutput output() {
        return out;
    }

    public Counters counters() {
        return out.counters();
    }

    public AddressBook addresses() {
        return addresses;
    }

    public boolean ipv6() {
        return ipv6;
    }

    public TcpConfig tcp() {
        return tcp;
    }

    public HostSockets sockets() {
        return sockets;
    }

    /** The gateway's address, which forwarded connections come from. */
    public int gateway() {
        return out.gateway();
    }

    /** The DNS address, which {@code service.DnsForwarder} serves. */
    public int dns() {
        return out.dns();
    }

    /**
     * The host address a guest flow to destination goes to, or {@link OutboundPolicy#UNREACHABLE},
     * or a refusal ({@link OutboundPolicy#refusalCode} names its answer).
     */
    public int target(int destination) {
        return policy.target(destination);
    }

    /** Where a forwarded client at address (a handle of either version) appears to come from in the guest. */
    public int forwardSource(int client) {
        return forwardSource.of(client);
    }

    /** A non-blocking TCP socket of this version: fd or -errno. */
    public int tcpSocket() {
        return sockets.tcp(ipv6);
    }

    public int udpSocket() {
        return sockets.udp(ipv6);
    }

    /** An ICMP echo ("ping") socket of this version: fd or -errno. */
    public int pingSocket() {
        return sockets.ping(ipv6);
    }

    /** Connects fd to target, a host address the policy gave, from the outbound address if one is set: as {@link HostSockets#connect}. */
    public int connect(int fd, int target, int port) {
        int r = policy.bindSource(fd);
        return r == 0 ? sockets.connect(fd, addresses.hi(target), addresses.lo(target), port) : r;
    }

    /** ICMP's protocol number in this version's IP header (1, or 58 for ICMPv6). */
    public int icmpProtocol() {
        return icmpProtocol;
    }

    public int echoRequestType() {
        return echoRequest;
    }

    public int echoReplyType() {
        return echoReply;
    }

    /** An ICMP destination unreachable (ICMPv4 code; the output maps it) for the guest's packet of protocol to remote. */
    public void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead) {
        out.sendUnreachable(icmp4Code, protocol, guest, remote, transportHead);
    }

    /** A flow keeps address. */
    public void retain(int address) {
        addresses.retain(address);
    }

    /** A flow no longer keeps address. */
    public void release(int address) {
        addresses.release(address);
    }

    /** The address as text, for logs and the status report. */
    public String format(int address) {
        return addresses.format(address);
    }
}
