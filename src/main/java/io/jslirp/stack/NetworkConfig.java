package io.jslirp.stack;

import io.jslirp.wire.Ipv4;

/**
 * The virtual network the guest sees, with slirp4netns's defaults: 10.0.2.0/24, gateway .2
 * (which maps to the host's loopback unless disabled), DNS .3, DHCP pool from .15, the address
 * {@code --configure} gives the guest .100, MTU 1500.
 *
 * <p>proxyNeighbours: pasta's model, where the guest's subnet holds real hosts (the host's own
 * network copied into the namespace): ARP and Neighbor Solicitations are answered for every address
 * but the guest's own, all with gatewayMac, so everything the guest sends comes to jslirp.
 */
public record NetworkConfig(int network, int prefixLength, int gateway, int dns, int guest, int dhcpStart,
                            int mtu, long gatewayMac, boolean hostLoopback, boolean proxyNeighbours) {
    public static final int MIN_MTU = 68;
    public static final int MAX_MTU = 65520;
    /** libslirp's virtual hosts answer with MAC 52:55 followed by their IPv4 address. */
    private static final long VIRTUAL_MAC_PREFIX = 0x5255_0000_0000L;

    public NetworkConfig {
        if (mtu < MIN_MTU || mtu > MAX_MTU) {
            throw new IllegalArgumentException("MTU " + mtu + " out of range (" + MIN_MTU + "-" + MAX_MTU + ")");
        }
    }

    /**
     * pasta's model: the guest at guest/prefixLength (the host's own address, or -a's), its gateway
     * and DNS address (0: none) as given, every neighbour answered with mac.
     */
    public static NetworkConfig proxied(int guest, int prefixLength, int gateway, int dns, int mtu, long mac) {
        int network = guest & Ipv4.netmask(prefixLength);
        return new NetworkConfig(network, prefixLength, gateway, dns, guest, guest, mtu, mac, false, true);
    }

    public static NetworkConfig defaults() {
        return fromCidr("10.0.2.0/24", 1500, true);
    }

    /** A.B.C.D/N as slirp4netns takes it: four 1-3 digit numbers and a 1-2 digit prefix length. */
    private static final java.util.regex.Pattern CIDR = java.util.regex.Pattern.compile("((?:[0-9]{1,3}\\.){3}[0-9]{1,3})/([0-9]{1,2})");

    /**
     * The network as slirp4netns derives it from --cidr: gateway .2, DNS .3, DHCP from .15, guest
     * .100. Refuses what slirp4netns refuses, in its words (its test scripts match them).
     */
    public static NetworkConfig fromCidr(String cidr, int mtu, boolean hostLoopback) {
        java.util.regex.Matcher m = CIDR.matcher(cidr);
        if (!m.matches()) throw new IllegalArgumentException("invalid CIDR: " + cidr + " (A.B.C.D/N, e.g. 10.0.2.0/24)");
        int address;
        try {
            address = Ipv4.parse(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid network address: " + m.group(1));
        }
        int prefix = Integer.parseInt(m.group(2));
        if (prefix < 1 || prefix > 25) {
            throw new IllegalArgumentException("prefix length needs to be 1-25 (the network needs room for .100): " + cidr);
        }
        int network = address & Ipv4.netmask(prefix);
        if (network != address) {
            throw new IllegalArgumentException("CIDR needs to be a network address like 10.0.2.0/24, not like 10.0.2.100/24 (here: "
                    + Ipv4.format(network) + "/" + prefix + ", not " + cidr + ")");
        }
        int gateway = network + 2;
        return new NetworkConfig(network, prefix, gateway, network + 3, network + 100, network + 15, mtu,
                VIRTUAL_MAC_PREFIX | (gateway & 0xffffffffL), hostLoopback, false);
    }

    public int netmask() {
        return Ipv4.netmask(prefixLength);
    }

    public boolean inNetwork(int address) {
        return (address & netmask()) == network;
    }

    public int broadcast() {
        return network | ~netmask();
    }

    /** MAC address the virtual host at address answers ARP with. */
    public long macOf(int address) {
        if (proxyNeighbours) return gatewayMac;
        return VIRTUAL_MAC_PREFIX | (address & 0xffffffffL);
    }
}
