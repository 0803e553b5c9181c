package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.wire.Ipv4;

/**
 * A host client's connection to a forwarded port, while jslirp's SYN toward the guest waits for
 * its SYN-ACK. The guest sees the connection come from source:sourcePort (the gateway and a port of
 * its own, or the client's address and port; see {@link ForwardSource}).
 */
final class GuestDial {
    /** SYN retransmissions before the host client is reset (after 1 + 2 + 4 s). */
    static final int MAX_SYNS = 4;

    final int fd;
    final int guestAddress, guestPort, source, sourcePort;
    /** The host client (IPv4, host order) and its port. */
    final int clientAddress, clientPort;
    final long openedAt = EventLoop.now();
    final int iss;
    /** Resends the SYN, then gives up (set by the owner, whose method it runs). */
    Timer timer;
    int syns;

    GuestDial(int fd, int guestAddress, int guestPort, int source, int sourcePort, int clientAddress, int clientPort, int iss) {
        this.fd = fd;
        this.clientAddress = clientAddress;
        this.clientPort = clientPort;
        this.guestAddress = guestAddress;
        this.guestPort = guestPort;
        this.source = source;
        this.sourcePort = sourcePort;
        this.iss = iss;
    }

    /** Forwards are IPv4 only. */
    FlowStatus status(long now) {
        return new FlowStatus("tcp", "SYN_SENT", true, Ipv4.format(guestAddress), guestPort, Ipv4.format(source), sourcePort,
                Ipv4.format(clientAddress), clientPort, 0, 0, now - openedAt);
    }

    @Override
    public String toString() {
        return "forwarded tcp " + io.jslirp.wire.Ipv4.format(source) + ":" + sourcePort + " -> "
                + io.jslirp.wire.Ipv4.format(guestAddress) + ":" + guestPort;
    }
}
