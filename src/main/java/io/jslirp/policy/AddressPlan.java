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
 * @param mappings     addresses the guest reaches another host address by (pasta's --map-guest-addr:
 *                     the host's own address); a forwarded client at the host side appears from the
 *                     guest side
 *
 * <p>In pasta's model ({@link #proxied}) the guest's subnet holds real hosts: the virtual network
 * is the guest's own address alone, the "gateway" is the address that stands for the host's
 * loopback (pasta's --map-host-loopback, by default the gateway's; null: none), and everything
 * else is a host.
 */
public record AddressPlan(boolean ipv4, Network network, HostAddress gateway, HostAddress hostLoopback, Network loopback,
                          List<Network> noHost, boolean loopbackOpen, List<Mapping> mappings) {
    /** What an address of the plan's version is. */
    public enum Kind { GATEWAY, MAPPED, VIRTUAL, LOOPBACK, NO_HOST, HOST }

    /** The guest's flows to guestSide go to hostSide; the host's clients at hostSide appear from guestSide. */
    public record Mapping(HostAddress guestSide, HostAddress hostSide) {}

    private static final List<Network> IPV4_NO_HOST = List.of(Network.parse("0.0.0.0/8"), Network.parse("224.0.0.0/3"));
    private static final List<Network> IPV6_NO_HOST = List.of(Network.parse("::/128"), Network.parse("fe80::/10"), Network.parse("ff00::/8"));

    public AddressPlan {
        noHost = List.copyOf(noHost);
        mappings = List.copyOf(mappings);
    }

    public AddressPlan(boolean ipv4, Network network, HostAddress gateway, HostAddress hostLoopback, Network loopback, List<Network> noHost,
                       boolean loopbackOpen) {
        this(ipv4, network, gateway, hostLoopback, loopback, noHost, loopbackOpen, List.of());
    }

    /**
     * pasta's model for one version: guest is the guest's own address (the only virtual one),
     * toLoopback the address that reaches the host's loopback (null: none, and then no flow reaches
     * it), mappings as {@link #mappings}.
     */
    public static AddressPlan proxied(HostAddress guest, HostAddress toLoopback, List<Mapping> mappings) {
        boolean v4 = guest.isIpv4();
        Network own = new Network(guest.hi(), guest.lo(), 128, v4);
        return v4 ? new AddressPlan(true, own, toLoopback, HostAddress.ipv4(Ipv4.parse("127.0.0.1")), Network.parse("127.0.0.0/8"),
                IPV4_NO_HOST, toLoopback != null, mappings)
                : new AddressPlan(false, own, toLoopback, HostAddress.LOOPBACK, Network.parse("::1/128"), IPV6_NO_HOST, toLoopback != null,
                mappings);
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
        if (gateway != null && hi == gateway.hi() && lo == gateway.lo()) return Kind.GATEWAY;
        if (mapping(hi, lo) >= 0) return Kind.MAPPED;
        if (network.contains(hi, lo)) return Kind.VIRTUAL;
        if (loopback.contains(hi, lo)) return Kind.LOOPBACK;
        for (Network n : noHost) if (n.contains(hi, lo)) return Kind.NO_HOST;
        return Kind.HOST;
    }

    /** The index in {@link #mappings} of the one whose guest side is hi:lo, or -1. */
    public int mapping(long hi, long lo) {
        for (int i = 0; i < mappings.size(); i++) {
            HostAddress a = mappings.get(i).guestSide();
            if (a.hi() == hi && a.lo() == lo) return i;
        }
        return -1;
    }

    /** The index in {@link #mappings} of the one whose host side is hi:lo, or -1. */
    public int mappingFromHost(long hi, long lo) {
        for (int i = 0; i < mappings.size(); i++) {
            HostAddress a = mappings.get(i).hostSide();
            if (a.hi() == hi && a.lo() == lo) return i;
        }
        return -1;
    }
}
