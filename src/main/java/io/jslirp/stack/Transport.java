package io.jslirp.stack;

import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.UdpDatagram;

/** Receives the guest's TCP, UDP and ICMP echo traffic that is not for a service of the gateway. */
public interface Transport {
    /**
     * A TCP segment, checked (the header is complete, its checksum right) and read once with its
     * addresses and options; the view is reused, valid for this call only.
     */
    void tcp(TcpSegment segment);

    /** A UDP datagram, checked and read once with its addresses and ports; the view is reused, valid for this call only. */
    void udp(UdpDatagram datagram);

    /**
     * An ICMP echo request (checksum verified) to a host the stack does not answer for, read once
     * with its addresses; the view is reused, valid for this call only.
     */
    void icmpEcho(IcmpEcho echo);
}
