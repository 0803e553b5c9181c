package io.jslirp.forward;

import io.jslirp.policy.HostAddress;

import io.jslirp.wire.Ipv4;

import java.util.ArrayList;
import java.util.List;

/**
 * A host port forwarded to the guest: TCP connections or UDP datagrams to hostAddress:hostPort
 * (IPv4, host order; or the IPv6 address host6 when it is not null) go to guestAddress:guestPort,
 * where guestAddress 0 means the guest's own address (the one it last sent from). device, when not
 * null, binds the listening socket to that host interface (SO_BINDTODEVICE: pasta's ADDR%IF).
 */
public record PortForward(Protocol protocol, int hostAddress, HostAddress host6, int hostPort, int guestAddress, int guestPort,
                          String device) {
    public enum Protocol {
        TCP, UDP;

        /** "tcp" or "udp", as slirp4netns's API writes it. */
        public String lowerCase() {
            return this == TCP ? "tcp" : "udp";
        }
    }

    /** A forward of an IPv4 host address. */
    public PortForward(Protocol protocol, int hostAddress, int hostPort, int guestAddress, int guestPort) {
        this(protocol, hostAddress, null, hostPort, guestAddress, guestPort);
    }

    public PortForward(Protocol protocol, int hostAddress, HostAddress host6, int hostPort, int guestAddress, int guestPort) {
        this(protocol, hostAddress, host6, hostPort, guestAddress, guestPort, null);
    }

    /** This forward with its listening socket bound to the interface device (null: none). */
    public PortForward onDevice(String device) {
        return new PortForward(protocol, hostAddress, host6, hostPort, guestAddress, guestPort, device);
    }

    public PortForward {
        if (hostPort < 1 || hostPort > 65535 || guestPort < 1 || guestPort > 65535) {
            throw new IllegalArgumentException("forwarded ports must be 1..65535: " + hostPort + ":" + guestPort);
        }
    }

    public boolean ipv6() {
        return host6 != null;
    }

    /** The host address, either version (an IPv4 one in its mapped form). */
    public HostAddress host() {
        return host6 != null ? host6 : HostAddress.ipv4(hostAddress);
    }

    /** As {@link #parse(Protocol, String, boolean)} without IPv6 loopback by default. */
    public static List<PortForward> parse(Protocol protocol, String spec) {
        return parse(protocol, spec, false);
    }

    /**
     * Parses pasta's notation {@code [ADDR/]PORT[-PORT][:GUESTPORT[-PORT]]} into one forward per
     * port: ADDR is an IPv4 or IPv6 address (written plainly, {@code ::1/8080}); without it the
     * host address is 127.0.0.1, and also ::1 when alsoIpv6Loopback (nothing is exposed beyond the
     * host unless asked); the guest ports default to the host ports; a guest range must be as long
     * as the host range.
     */
    public static List<PortForward> parse(Protocol protocol, String spec, boolean alsoIpv6Loopback) {
        String rest = spec;
        int address = Ipv4.parse("127.0.0.1");
        HostAddress host6 = null;
        boolean bothLoopbacks = alsoIpv6Loopback;
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            String text = rest.substring(0, slash);
            try {
                if (text.contains(":")) {
                    host6 = HostAddress.parse(text);
                    address = 0;
                } else {
                    address = Ipv4.parse(text);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("forward " + spec + ": not an IPv4 or IPv6 address before '/'");
            }
            bothLoopbacks = false;
            rest = rest.substring(slash + 1);
        }
        int colon = rest.indexOf(':');
        int[] host = range(spec, colon < 0 ? rest : rest.substring(0, colon));
        int[] guest = colon < 0 ? host : range(spec, rest.substring(colon + 1));
        if (guest[1] - guest[0] != host[1] - host[0]) {
            throw new IllegalArgumentException("forward " + spec + ": the guest port range must be as long as the host port range");
        }
        List<PortForward> forwards = new ArrayList<>();
        for (int i = 0; i <= host[1] - host[0]; i++) {
            forwards.add(new PortForward(protocol, address, host6, host[0] + i, 0, guest[0] + i));
        }
        if (bothLoopbacks) {
            for (int i = 0; i <= host[1] - host[0]; i++) {
                forwards.add(new PortForward(protocol, 0, HostAddress.LOOPBACK, host[0] + i, 0, guest[0] + i));
            }
        }
        return forwards;
    }

    /** {@code PORT} or {@code FIRST-LAST}, as {first, last}. */
    private static int[] range(String spec, String text) {
        int dash = text.indexOf('-');
        try {
            int first = Integer.parseInt(dash < 0 ? text : text.substring(0, dash));
            int last = dash < 0 ? first : Integer.parseInt(text.substring(dash + 1));
            if (first < 1 || last > 65535 || last < first) {
                throw new IllegalArgumentException("forward " + spec + ": ports must be 1..65535, a range FIRST-LAST with FIRST <= LAST");
            }
            return new int[] {first, last};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("forward " + spec + ": expected [ADDR/]PORT[-PORT][:GUESTPORT[-PORT]], e.g. 8080:80");
        }
    }

    @Override
    public String toString() {
        return protocol.lowerCase() + " " + (host6 != null ? host6.toString() : Ipv4.format(hostAddress)) + (device == null ? "" : "%" + device)
                + "/" + hostPort + ":"
                + (guestAddress == 0 ? "" : Ipv4.format(guestAddress) + "/") + guestPort;
    }
}
