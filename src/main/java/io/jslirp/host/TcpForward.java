package io.jslirp.host;

import io.jslirp.wire.Ipv4;

/**
 * A TCP port forwarded from the host to the guest: connections to hostAddress:hostPort (IPv4,
 * host order) are opened toward the guest's guestPort.
 */
public record TcpForward(int hostAddress, int hostPort, int guestPort) {
    public TcpForward {
        if (hostPort < 1 || hostPort > 65535 || guestPort < 1 || guestPort > 65535) {
            throw new IllegalArgumentException("forwarded ports must be 1..65535: " + hostPort + ":" + guestPort);
        }
    }

    /**
     * Parses pasta's notation {@code [ADDR/]PORT[:GUESTPORT]}: the host address defaults to
     * 127.0.0.1 (nothing is exposed beyond the host unless asked), the guest port to the host port.
     */
    public static TcpForward parse(String spec) {
        String rest = spec;
        int address = Ipv4.parse("127.0.0.1");
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            try {
                address = Ipv4.parse(rest.substring(0, slash));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("forward " + spec + ": not an IPv4 address before '/'");
            }
            rest = rest.substring(slash + 1);
        }
        int colon = rest.indexOf(':');
        try {
            int hostPort = Integer.parseInt(colon < 0 ? rest : rest.substring(0, colon));
            int guestPort = colon < 0 ? hostPort : Integer.parseInt(rest.substring(colon + 1));
            return new TcpForward(address, hostPort, guestPort);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("forward " + spec + ": expected [ADDR/]PORT[:GUESTPORT], e.g. 8080:80");
        }
    }

    @Override
    public String toString() {
        return Ipv4.format(hostAddress) + "/" + hostPort + ":" + guestPort;
    }
}
