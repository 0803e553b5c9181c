package io.jslirp.nat;

/**
 * How much the guest can make jslirp hold. A new flow beyond a limit is refused as a router
 * would refuse it (TCP: a reset; UDP: ICMP administratively prohibited), existing flows carry on,
 * and a counter and a log line say so. The host's own limit on descriptors (ulimit -n) is met the
 * same way.
 *
 * @param tcpConnections TCP connections at once, including those lingering in TIME_WAIT (which hold no descriptor)
 * @param halfOpen       TCP connections whose host connect has not completed yet
 * @param udpFlows       UDP flows (each one host socket) at once
 */
public record Limits(int tcpConnections, int halfOpen, int udpFlows) {
    public static final Limits DEFAULTS = new Limits(65536, 4096, 16384);

    public Limits {
        if (tcpConnections < 1 || halfOpen < 1 || udpFlows < 1) {
            throw new IllegalArgumentException("limits must be at least 1");
        }
    }
}
