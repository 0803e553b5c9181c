package io.jslirp.policy;

import io.jslirp.policy.DestinationRules.Network;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.wire.Ipv4;

import java.util.List;

/**
 * What the addresses of one IP version are to the outbound policy and the forwards: the version's
 * differences as data, read by the same code for both. The gateway stands for the host's loopback
 * address; the virtual network and the addresses that are no host (unspecified, multicast,
 * link-local...) lead nowhere; the loopback network is reached only by a crafted frame.
 *
 * @param ipv4         which version: IPv4 (its networks in their IPv4-mapped form) or IPv6
 * @param network      the virtual network (10.0.2.0/24, fd00::/64)
 * @param gateway      the gateway's address (10.0.2.2, fd00::2)
 * @param hostLoopback the host's loopback address the gateway stands for (127.0.0.1, ::1)
 * @param loopback     the host's loopback network (127.0.0.0/8, ::1/128)
 * @param noHost       addresses that are no host's
 * @param loopbackOpen whether the guest may reach the host's loopback (no --disable-host-loopback)
 */
public record AddressPlan(boolean ipv4, Network network, HostAddress gateway, HostAddress hostLoopback, Network loopback,
                          List<Network> noHost, boolean loopbackOpen) {
    /** What an address of the plan's version is. */
    public enum Kind { GATEWAY, VIRTUAL, LOOPBACK, NO_HOST, HOST }

    private static final List<Network> IPV4_NO_HOST = List.of(Network.parse("0.0.0.0/8"), Network.parse("224.0.0.0/3"));
    private static final List<Network> IPV6_NO_HOST = List.of(Network.parse("::/128"), Network.parse("fe80::/10"), Network.parse("ff00::/8"));

    public AddressPlan {
        noHost = List.copyOf(noHost);
    }

    /** IPv4's: "this network" 0.0.0.0/8, multicast, reserved and broadcast (224.0.0.0/3) are no host. */
    public static AddressPlan of(NetworkConfig config) {
        return new AddressPlan(true, Network.ipv4(config.network(), config.prefixLength()), HostAddress.ipv4(config.gateway()),
                HostAddress.ipv4(Ipv4.parse("127.0.0.1")), Network.parse("127.0.0.0/8"), IPV4_NO_HOST, config.hostLoopback());
    }

    /** IPv6's: unspecified, link-local and multicast addresses are no host. */
    public static AddressPlan of(Ipv6Network net) {
        return new AddressPlan(false, new Network(net.prefixHi(), 0, Ipv6Network.PREFIX_LENGTH, false),
                new HostAddress(net.gatewayHi(), net.gatewayLo()), HostAddress.LOOPBACK, Network.parse("::1/128"), IPV6_NO_HOST,
                net.hostLoopback());
    }

    /** What hi:lo, an address of this version, is. */
    public Kind kind(long hi, long lo) {
        if (hi == gateway.hi() && lo == gateway.lo()) return Kind.GATEWAY;
        if (network.contains(hi, lo)) return Kind.VIRTUAL;
        if (loopback.contains(hi, lo)) return Kind.LOOPBACK;
        for (Network n : noHost) if (n.contains(hi, lo)) return Kind.NO_HOST;
        return Kind.HOST;
    }
}
