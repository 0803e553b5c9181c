package io.jslirp.pasta;

import java.util.BitSet;

/**
 * pasta's rules for "auto" (fwd.c): from what listens on the scanned side, the ports to forward
 * from the other. Each port goes to itself; inbound (-t, -u auto) the host side listens on every
 * address, outbound (-T, -U auto) on the namespace's loopback. pasta scans once a second.
 */
public final class AutoPorts {
    private AutoPorts() {}

    /**
     * -t auto (scanning the namespace) or -T auto (scanning the host): the listening TCP ports,
     * less those the other direction forwards, on which the scanned side's listener is jslirp's own.
     */
    public static BitSet tcp(BitSet listening, BitSet reverseTcp) {
        BitSet out = (BitSet) listening.clone();
        out.andNot(reverseTcp);
        return out;
    }

    /**
     * -u auto or -U auto: the bound UDP ports and, when TCP in the same direction is auto too
     * (tcpListening not null), the listening TCP ports: protocols such as iperf3 take a UDP port of
     * the number of their TCP control port. Less the ports the other direction forwards, UDP or TCP.
     * That is what "UDP forwards the TCP ports too" means: -u unset is auto.
     */
    public static BitSet udp(BitSet udpBound, BitSet tcpListening, BitSet reverseUdp, BitSet reverseTcp) {
        BitSet out = (BitSet) udpBound.clone();
        if (tcpListening != null) out.or(tcpListening);
        out.andNot(reverseUdp);
        out.andNot(reverseTcp);
        return out;
    }
}
