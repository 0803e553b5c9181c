package io.jslirp.nat;

import io.jslirp.policy.OutboundPolicy;

import io.jslirp.stack.Counters;
import io.jslirp.tcp.TcpOutput;

/**
 * What the TCP and UDP NATs need of one IP version: the guest-facing output, where flows go on
 * the host, and host sockets of that version. Addresses are ints: IPv4 addresses, or for IPv6
 * handles of the stack's {@link io.jslirp.util.AddressBook}, which a flow retains while it keeps
 * them. Used when flows open and close and per UDP datagram toward the guest, not per TCP segment.
 */
public interface Family {
    TcpOutput output();

    Counters counters();

    /** The gateway's address, which forwarded connections come from. */
    int gateway();

    /** The DNS address, which {@code service.DnsForwarder} serves. */
    int dns();

    /** See {@link io.jslirp.stack.Stack#resolveGuestMac}. */
    boolean resolveGuestMac(int guest);

    /**
     * The host address a guest flow to destination goes to, or {@link OutboundPolicy#UNREACHABLE},
     * or a refusal ({@link OutboundPolicy#refusalCode} names its answer).
     */
    int target(int destination);

    /** A non-blocking host socket for a target of this family: fd or -errno. */
    int tcpSocket();

    int udpSocket();

    /**
     * Connects fd to a target this family's policy gave (from the outbound address, if one is
     * set): as {@link io.jslirp.sys.Sockets#connect4}.
     */
    int connect(int fd, int target, int port);

    /** Where a UDP payload toward the guest goes in {@link TcpOutput#frame()}, and how long it may be. */
    int udpPayloadOffset();

    int maxUdpPayload();

    /** Sends the UDP payload of length bytes at {@link #udpPayloadOffset()} to the guest. */
    void sendUdp(int source, int sourcePort, int destination, int destinationPort, int length);

    /** An ICMP destination unreachable (ICMPv4 code) for the guest's packet of protocol to remote. */
    void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead);

    /** A flow keeps address (a no-op for IPv4). */
    void retain(int address);

    /** A flow no longer keeps address. */
    void release(int address);

    /** The address as text, for logs. */
    String format(int address);
}
