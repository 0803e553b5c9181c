package io.jslirp.host;

import io.jslirp.loop.Timer;

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
    final int iss;
    /** Resends the SYN, then gives up (set by the owner, whose method it runs). */
    Timer timer;
    int syns;

    GuestDial(int fd, int guestAddress, int guestPort, int source, int sourcePort, int iss) {
        this.fd = fd;
        this.guestAddress = guestAddress;
        this.guestPort = guestPort;
        this.source = source;
        this.sourcePort = sourcePort;
        this.iss = iss;
    }
}
