package io.jslirp.stack;

import io.jslirp.wire.Ipv4;

/**
 * The virtual network the guest sees, with slirp4netns's defaults: 10.0.2.0/24, gateway .2
 * (which maps to the host's loopback unless disabled), DNS .3, DHCP pool from .15, the address
 * {@code --configure} gives the guest .100, MTU 1500.
 */
public record NetworkConfig(int network, int prefixLength, int gateway, int dns, int guest, int dhcpStart,
                            int mtu, long gatewayMac, boolean hostLoopback) {
    public static final int MIN_MTU = 68;
    public static final int MAX_MTU = 65520;
    /** libslirp's virtual hosts answer with MAC 52:55 followed by their IPv4 address. */
    private static final long VIRTUAL_MAC_PREFIX = 0x5255_0000_0000L;

    public NetworkConfig {
        if (mtu < MIN_MTU || mtu > MAX_MTU) {
            throw new IllegalArgumentException("MTU " + mtu + " out of range (" + MIN_MTU + "-" + MAX_MTU + ")");
        }
    }

    public static NetworkConfig defaults() {
        return fromCidr("10.0.2.0/24", 1500, true);
    }

    /** The network as slirp4netns derives it from --cidr: gateway .2, DNS .3, DHCP from .15, guest .100. */
    public static NetworkConfig fromCidr(String cidr, int mtu, boolean hostLoopback) {
        int slash = cidr.indexOf('/');
        if (slash < 0) throw new IllegalArgumentException("CIDR needs a prefix length, e.g. 10.0.2.0/24: " + cidr);
        int address = Ipv4.parse(cidr.substring(0, slash));
        int prefix;
        try {
            prefix = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length in CIDR " + cidr);
        }
        if (prefix < 1 || prefix > 25) {
            throw new IllegalArgumentException("prefix length of CIDR " + cidr + " must be 1-25 (the network needs room for .100)");
        }
        int network = address & Ipv4.netmask(prefix);
        int gateway = network + 2;
        return new NetworkConfig(network, prefix, gateway, network + 3, network + 100, network + 15, mtu,
                VIRTUAL_MAC_PREFIX | (gateway & 0xffffffffL), hostLoopback);
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
        return VIRTUAL_MAC_PREFIX | (address & 0xffffffffL);
    }
}
