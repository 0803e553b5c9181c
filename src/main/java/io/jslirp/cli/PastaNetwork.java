package io.jslirp.cli;

import io.jslirp.engine.EngineConfig;
import io.jslirp.pasta.HostNetwork;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.policy.AddressPlan;
import io.jslirp.policy.HostAddress;
import io.jslirp.policy.Nameserver;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Netlink;
import io.jslirp.wire.Ipv4;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * pasta's network model for one namespace, from its options and the host's network: what
 * --config-net puts into the namespace (the tap's name and MTU; per IP version the addresses and
 * routes, the host template interface's own unless -a, -g, --no-copy-addrs or --no-copy-routes
 * say otherwise) and what jslirp's engine serves there (the guest's own address, the only one that
 * is not a host's; the addresses that mean the host: --map-guest-addr, --map-host-loopback or the
 * gateway; the DNS address --dns-forward sends on to --dns-host). Pure: built from values, so
 * tests give it any host.
 *
 * @param ifname      the tap device's name: -I, else the IPv4 (or IPv6) template interface's, else tap0
 * @param mtu         the MTU to set on it, 0 to leave it alone (-m 0)
 * @param ipv4        the IPv4 side, or null when IPv4 is off (-6, or no address to give)
 * @param ipv6        the IPv6 side, or null
 * @param nameservers where DNS to the IPv4 --dns-forward address goes (--dns-host, else the host's
 *                    first resolv.conf nameserver, of IPv4 first, then of IPv6); empty without --dns-forward
 * @param nameservers6 the same for the IPv6 --dns-forward address: its own version's host first
 */
record PastaNetwork(String ifname, int mtu, Side ipv4, Side ipv6, List<Nameserver> nameservers, List<Nameserver> nameservers6) {
    /** pasta's MAC address on the link (its default for -M): 9a:55:9a:55:9a:55. */
    static final long PASTA_MAC = 0x9a559a559a55L;
    /** The MTU the engine works with when -m 0 leaves the interface's own (a new tap's is 1500). */
    static final int TAP_DEFAULT_MTU = 1500;

    /**
     * One IP version.
     *
     * @param guest      the guest's own address (the namespace's; what forwards reach) with its prefix
     * @param addresses  the addresses --config-net adds (the template's, or only guest)
     * @param routes     the routes it adds, those without a gateway first
     * @param gateway    the default gateway (the template's, or -g's), or null
     * @param dnsForward --dns-forward of this version, or null
     * @param mapGuest   --map-guest-addr of this version, or null
     * @param hostOwn    the host's own address that mapGuest leads to (the template's), or null
     * @param toLoopback the address that reaches the host's loopback (--map-host-loopback, else the
     *                   gateway unless --no-map-gw), or null
     */
    record Side(HostNetwork.Prefixed guest, List<HostNetwork.Prefixed> addresses, List<Netlink.Route> routes, InetAddress gateway,
                InetAddress dnsForward, InetAddress mapGuest, InetAddress hostOwn, InetAddress toLoopback) {
        Side {
            addresses = List.copyOf(addresses);
            routes = List.copyOf(routes);
        }
    }

    /** The model for o on host; IllegalArgumentException when there is nothing to give the namespace. */
    static PastaNetwork of(PastaOptions o, HostNetwork host) {
        Side v4 = o.ipv6Only() ? null : side(o, host.ipv4(), o.address().ipv4(), o.gateway().ipv4(), o.dnsForward().ipv4(),
                o.mapGuestAddr().ipv4(), o.mapHostLoopback().ipv4(), o.copyAddrs4(), o.copyRoutes4());
        int mtu = o.mtu();
        int engineMtu = mtu == 0 ? TAP_DEFAULT_MTU : mtu;
        // pasta leaves IPv6 off on a link whose MTU IPv6 cannot have
        Side v6 = o.ipv4Only() || engineMtu < Ipv6Network.MIN_MTU ? null
                : side(o, host.ipv6(), o.address().ipv6(), o.gateway().ipv6(), o.dnsForward().ipv6(), o.mapGuestAddr().ipv6(),
                o.mapHostLoopback().ipv6(), o.copyAddrs6(), o.copyRoutes6());
        if (v4 == null && v6 == null) {
            throw new IllegalArgumentException("External interface not usable (no address to give the namespace: -a ADDR gives one)");
        }
        String ifname = o.nsIfname() != null ? o.nsIfname()
                : host.ipv4() != null && v4 != null ? host.ipv4().ifname()
                : host.ipv6() != null && v6 != null ? host.ipv6().ifname() : "tap0";
        List<Nameserver> nameservers = new ArrayList<>(), nameservers6 = new ArrayList<>();
        boolean forwardsDns = (v4 != null && v4.dnsForward() != null) || (v6 != null && v6.dnsForward() != null);
        if (forwardsDns) {
            InetAddress h4 = o.dnsHost().ipv4() != null ? o.dnsHost().ipv4() : host.dnsHost4();
            InetAddress h6 = o.dnsHost().ipv6() != null ? o.dnsHost().ipv6() : host.dnsHost6();
            // The DNS address of each version first asks that version's host, then the other's.
            for (InetAddress a : new InetAddress[] {h4, h6}) if (a != null) nameservers.add(Nameserver.parse(a.getHostAddress()));
            for (InetAddress a : new InetAddress[] {h6, h4}) if (a != null) nameservers6.add(Nameserver.parse(a.getHostAddress()));
        }
        return new PastaNetwork(ifname, mtu, v4, v6, nameservers, nameservers6);
    }

    private static Side side(PastaOptions o, HostNetwork.Template template, InetAddress given, InetAddress givenGateway,
                             InetAddress dnsForward, InetAddress mapGuest, InetAddress mapLoopback, boolean copyAddrs, boolean copyRoutes) {
        HostNetwork.Prefixed guest;
        if (given != null) {
            guest = new HostNetwork.Prefixed(given, given instanceof Inet4Address a4 ? o.prefixLengthFor(a4) : 64);
        } else if (template != null) {
            guest = template.address();
        } else {
            return null;
        }
        List<HostNetwork.Prefixed> addresses = copyAddrs && template != null && given == null ? template.addresses() : List.of(guest);
        InetAddress gateway = givenGateway != null ? givenGateway : template == null ? null : template.gateway();
        List<Netlink.Route> routes = new ArrayList<>();
        if (copyRoutes && template != null && givenGateway == null) {
            routes.addAll(template.routes());
            routes.sort(Comparator.comparing(r -> r.gateway() != null)); // the on-link ones first: the gateways are reached through them
        } else if (gateway != null) {
            routes.add(Netlink.Route.defaultVia(gateway));
        }
        InetAddress hostOwn = template != null ? template.address().address() : null;
        if (mapGuest != null && hostOwn == null) mapGuest = null; // no address of the host's to map it to
        InetAddress toLoopback = mapLoopback != null ? mapLoopback : o.noMapGw() ? null : gateway;
        return new Side(guest, addresses, routes, gateway, dnsForward, mapGuest, hostOwn, toLoopback);
    }

    /** The MTU the engine serves the link with. */
    int engineMtu() {
        return mtu == 0 ? TAP_DEFAULT_MTU : mtu;
    }

    /** The engine's configuration for this model: jslirp's defaults for the rest, forwarded clients keeping their addresses. */
    EngineConfig.Builder engineConfig(long mac) {
        int guest4 = ipv4 == null ? 0 : Ipv4.parse(ipv4.guest().address().getHostAddress());
        int prefix4 = ipv4 == null ? 32 : ipv4.guest().prefixLength();
        NetworkConfig network = NetworkConfig.proxied(guest4, prefix4, v4(ipv4 == null ? null : ipv4.gateway()),
                v4(ipv4 == null ? null : ipv4.dnsForward()), engineMtu(), mac);
        EngineConfig.Builder b = EngineConfig.builder(network, nameservers.isEmpty() ? null : nameservers).nameservers6(nameservers6)
                .preserveSource(true);
        AddressPlan plan4 = AddressPlan.proxied(HostAddress.ipv4(guest4), host(ipv4 == null ? null : ipv4.toLoopback()), mappings(ipv4));
        AddressPlan plan6 = null;
        if (ipv6 != null) {
            HostAddress g = host(ipv6.guest().address());
            HostAddress gw = ipv6.gateway() == null ? new HostAddress(0, 0) : host(ipv6.gateway());
            HostAddress dns = ipv6.dnsForward() == null ? new HostAddress(0, 0) : host(ipv6.dnsForward());
            int p = ipv6.guest().prefixLength();
            long prefixHi = p >= 64 ? g.hi() : p == 0 ? 0 : g.hi() & (-1L << (64 - p));
            b.ipv6(new Ipv6Network(prefixHi, gw.hi(), gw.lo(), dns.hi(), dns.lo(), g.hi(), g.lo(), engineMtu(), mac, false));
            plan6 = AddressPlan.proxied(g, host(ipv6.toLoopback()), mappings(ipv6));
        }
        return b.plans(plan4, plan6);
    }

    private static List<AddressPlan.Mapping> mappings(Side side) {
        if (side == null || side.mapGuest() == null) return List.of();
        return List.of(new AddressPlan.Mapping(host(side.mapGuest()), host(side.hostOwn())));
    }

    private static int v4(InetAddress a) {
        return a == null ? 0 : Ipv4.parse(a.getHostAddress());
    }

    static HostAddress host(InetAddress a) {
        if (a == null) return null;
        if (a instanceof Inet6Address) return HostAddress.parse(a.getHostAddress().replaceAll("%.*", ""));
        return HostAddress.ipv4(Ipv4.parse(a.getHostAddress()));
    }

    /** The MAC jslirp answers with: -M's, else pasta's. */
    static long mac(PastaOptions o) {
        byte[] m = o.macAddr();
        if (m == null) return PASTA_MAC;
        long v = 0;
        for (byte x : m) v = v << 8 | (x & 0xff);
        return v;
    }
}
