package io.jslirp.flow;

/**
 * What a flow carries and how. The guest's flows (through the stack) are found by their guest
 * side in a lane of their protocol; spliced ones join two sockets and are never looked up that way.
 */
public enum Kind {
    TCP("tcp", "tcp", 0),
    UDP("udp", "udp", 1),
    /** ICMP or ICMPv6 echo: the guest side's ports are the echo identifier and 0. */
    PING("icmp", "ping", 2),
    /** Two TCP sockets joined by splice(2) (pasta's loopback path). */
    TCP_SPLICE("tcp", "tcp-splice", -1),
    /** Datagrams passed between two UDP sockets. */
    UDP_SPLICE("udp", "udp-splice", -1);

    private final String protocol, label;
    private final int lane;

    Kind(String protocol, String label, int lane) {
        this.protocol = protocol;
        this.label = label;
        this.lane = lane;
    }

    /** The transport protocol, as the status report names it. */
    public String protocol() {
        return protocol;
    }

    /** The kind's name in the status report and the logs. */
    public String label() {
        return label;
    }

    /** The lane of the index its flows are found in by their guest side, or -1 when they are not. */
    int lane() {
        return lane;
    }
}
