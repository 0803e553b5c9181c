package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Kind;
import io.jslirp.loop.Timer;
import io.jslirp.policy.ForwardSource;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.util.AddressBook;

/**
 * A host client's connection to a forwarded port, while jslirp's SYN toward the guest waits for
 * its SYN-ACK: a TCP flow of the table, opening. The guest sees the connection come from its
 * remote end (the gateway and a port of its own, or the client's address and port; see
 * {@link ForwardSource}). Its SYN-ACK makes it a {@link TcpFlow} in its place.
 */
final class GuestDial extends Flow {
    /** SYN retransmissions before the host client is reset (after 1 + 2 + 4 s). */
    static final int MAX_SYNS = 4;

    final Family family;
    final int fd;
    /** The host client's address, as text (an IPv6 client's handle is not kept); its port is the host side's. */
    final String client;
    final int iss;
    /** Resends the SYN, then gives up (set by the owner, whose method it runs). */
    Timer timer;
    int syns;
    /** The window our SYN offers (every copy of it): decided by the window credit at the first. */
    int window;
    /** Whether the credit's unit taken for that window is still ours (until the first SYN timeout). */
    boolean unit;

    /**
     * The dial of flow (the guest's address and port, and the source it sees the connection come
     * from) for the forwarded host client whose socket and address peer gives; iss is our SYN's
     * sequence number.
     */
    GuestDial(Family family, FlowAddresses flow, HostPeer peer, int iss) {
        super(Kind.TCP, true, flow.guestAddress(), flow.guestPort(), flow.remoteAddress(), flow.remotePort());
        this.family = family;
        this.fd = peer.fd();
        this.client = peer.forwardClient();
        this.hostPort = peer.port();
        this.iss = iss;
    }

    /** The guest side, as the connection it becomes is made with. */
    FlowAddresses addresses() {
        return new FlowAddresses(guestAddress, guestPort, remoteAddress, remotePort);
    }

    @Override
    public String detail() {
        return "SYN_SENT";
    }

    @Override
    public String hostAddress(AddressBook addresses) {
        return client;
    }
}
