package io.jslirp.nat;

import io.jslirp.policy.ForwardSource;

import io.jslirp.loop.Timer;
import io.jslirp.tcp.FlowAddresses;

/**
 * A host client's connection to a forwarded port, while jslirp's SYN toward the guest waits for
 * its SYN-ACK. The guest sees the connection come from source:sourcePort (the gateway and a port of
 * its own, or the client's address and port; see {@link ForwardSource}).
 */
final class GuestDial {
    /** SYN retransmissions before the host client is reset (after 1 + 2 + 4 s). */
    static final int MAX_SYNS = 4;

    final Family family;
    final int fd;
    final int guestAddress, guestPort, source, sourcePort;
    /** The host client's address, as text (an IPv6 client's handle is not kept), and its port. */
    final String client;
    final int clientPort;
    final long openedAt;
    final int iss;
    /** Resends the SYN, then gives up (set by the owner, whose method it runs). */
    Timer timer;
    int syns;

    /**
     * The dial of flow (the guest's address and port, and the source it sees the connection come
     * from) for the forwarded host client whose socket and address peer gives; iss is our SYN's
     * sequence number.
     */
    GuestDial(Family family, FlowAddresses flow, HostPeer peer, int iss, long openedAt) {
        this.openedAt = openedAt;
        this.family = family;
        this.fd = peer.fd();
        this.client = peer.forwardClient();
        this.clientPort = peer.port();
        this.guestAddress = flow.guestAddress();
        this.guestPort = flow.guestPort();
        this.source = flow.remoteAddress();
        this.sourcePort = flow.remotePort();
        this.iss = iss;
    }

    /** For the status report; the owner writes the addresses (an IPv4 address or an IPv6 handle). */
    FlowStatus status(long now) {
        return new FlowStatus("tcp", "SYN_SENT", true, family.format(guestAddress), guestPort, family.format(source), sourcePort,
                client, clientPort, 0, 0, now - openedAt);
    }
}
