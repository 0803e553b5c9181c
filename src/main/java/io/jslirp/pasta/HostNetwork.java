package io.jslirp.pasta;

import io.jslirp.sys.Netlink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The host's network as pasta copies it into the namespace: for each IP version a template
 * interface (chosen apart: the first with a default route of that version, else the first with any
 * route not to a link-local prefix), with its addresses, default gateway and routes; and the host's
 * nameservers. A version is null when pasta would leave it out: IPv4 without an address on its
 * template, IPv6 without a global address or a link-local one. Read with {@link #read}, or made from
 * given /proc text with {@link #of}.
 */
public record HostNetwork(Template ipv4, Template ipv6, List<InetAddress> nameservers) {
    /** An address with its prefix length. */
    public record Prefixed(InetAddress address, int prefixLength) {
        @Override
        public String toString() {
            return Inet.text(address) + "/" + prefixLength;
        }
    }

    /**
     * One version's template interface: its name; its addresses (for IPv6 neither link-local nor
     * deprecated: what pasta copies); the gateway of its default route (null if it has none); its
     * routes of the main table (what pasta copies; the kernel adds the ones to the addresses'
     * prefixes itself, so adding those again gives EEXIST, which pasta passes over); and for IPv6
     * its link-local address, which pasta sends NDP from (the gateway instead, if that is
     * link-local) and gives as the source of host connections the namespace could not answer.
     */
    public record Template(String ifname, List<Prefixed> addresses, InetAddress gateway, List<Netlink.Route> routes,
                           InetAddress linkLocal) {
        public Template {
            addresses = List.copyOf(addresses);
            routes = List.copyOf(routes);
        }

        /** The address pasta takes as the namespace's own (-a's default): the one with the longest prefix, the first of equals. */
        public Prefixed address() {
            Prefixed best = addresses.get(0);
            for (Prefixed p : addresses) if (p.prefixLength() > best.prefixLength()) best = p;
            return best;
        }
    }

    public HostNetwork {
        nameservers = List.copyOf(nameservers);
    }

    /** The first IPv4 nameserver: --dns-host's default for IPv4 (loopback ones included), or null. */
    public Inet4Address dnsHost4() {
        for (InetAddress a : nameservers) if (a instanceof Inet4Address v4) return v4;
        return null;
    }

    /** The first IPv6 nameserver, or null. */
    public Inet6Address dnsHost6() {
        for (InetAddress a : nameservers) if (a instanceof Inet6Address v6) return v6;
        return null;
    }

    /**
     * This machine's network as seen from the calling thread's network namespace, and
     * /etc/resolv.conf. ifname4 and ifname6 name the template interfaces (-i gives both); null
     * finds them. Throws {@link PastaError} for a named interface that does not exist, as pasta's -i
     * does ("Invalid interface name eth9: No such device").
     */
    public static HostNetwork read(String ifname4, String ifname6) {
        for (String name : new String[] {ifname4, ifname6}) {
            if (name != null && networkInterface(name) == null) throw new PastaError("Invalid interface name " + name + ": No such device");
        }
        List<String> resolv;
        try {
            resolv = Files.readAllLines(Path.of("/etc/resolv.conf"));
        } catch (NoSuchFileException e) {
            resolv = List.of(); // pasta then warns "Couldn't get any nameserver address"
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return of(proc("route"), proc("ipv6_route"), proc("if_inet6"), HostNetwork::ipv4Addresses, resolv, ifname4, ifname6);
    }

    /**
     * The network described by /proc/net/route, /proc/net/ipv6_route and /proc/net/if_inet6 text,
     * an interface's IPv4 addresses (by name), and resolv.conf's lines; ifname4 and ifname6 as for
     * {@link #read}.
     */
    static HostNetwork of(String route, String ipv6Route, String ifInet6, Function<String, List<Prefixed>> ipv4Addresses,
                          List<String> resolvConf, String ifname4, String ifname6) {
        List<ProcNet.Route> routes4 = ProcNet.routes4(route), routes6 = ProcNet.routes6(ipv6Route);
        Template v4 = null, v6 = null;
        String name4 = ifname4 != null ? ifname4 : templateName(routes4);
        if (name4 != null) {
            List<Prefixed> addresses = ipv4Addresses.apply(name4);
            if (!addresses.isEmpty()) v4 = new Template(name4, addresses, gateway(routes4, name4), routesOf(routes4, name4), null);
        }
        String name6 = ifname6 != null ? ifname6 : templateName(routes6);
        if (name6 != null) {
            List<Prefixed> global = new ArrayList<>();
            Prefixed linkLocal = null;
            for (ProcNet.Address6 a : ProcNet.addresses6(ifInet6)) {
                if (!a.ifname().equals(name6) || (a.flags() & ProcNet.Address6.IFA_F_DEPRECATED) != 0) continue;
                if (a.scope() == ProcNet.Address6.SCOPE_LINK) {
                    if (linkLocal == null || a.prefixLength() > linkLocal.prefixLength()) linkLocal = new Prefixed(a.address(), a.prefixLength());
                } else if (a.scope() != ProcNet.Address6.SCOPE_HOST) {
                    global.add(new Prefixed(a.address(), a.prefixLength()));
                }
            }
            InetAddress gateway = gateway(routes6, name6);
            InetAddress ours = gateway != null && Inet.linkLocal6(gateway) ? gateway : linkLocal == null ? null : linkLocal.address();
            if (!global.isEmpty() && ours != null) v6 = new Template(name6, global, gateway, routesOf(routes6, name6), ours);
        }
        return new HostNetwork(v4, v6, nameservers(resolvConf));
    }

    /** pasta's nl_get_ext_if(): the first default route's interface, else the first routed one; link-local prefixes do not count. */
    private static String templateName(List<ProcNet.Route> routes) {
        String any = null;
        for (ProcNet.Route r : routes) {
            if (r.ifname().equals("lo") || linkLocalPrefix(r)) continue;
            if (r.prefixLength() == 0) return r.ifname();
            if (any == null) any = r.ifname();
        }
        return any;
    }

    private static boolean linkLocalPrefix(ProcNet.Route r) {
        byte[] d = r.destination().getAddress();
        if (d.length == 4) return r.prefixLength() >= 16 && (d[0] & 0xff) == 169 && (d[1] & 0xff) == 254;
        return r.prefixLength() >= 10 && Inet.linkLocal6(r.destination());
    }

    private static InetAddress gateway(List<ProcNet.Route> routes, String ifname) {
        for (ProcNet.Route r : routes) {
            if (r.ifname().equals(ifname) && r.prefixLength() == 0 && r.gateway() != null) return r.gateway();
        }
        return null;
    }

    private static List<Netlink.Route> routesOf(List<ProcNet.Route> routes, String ifname) {
        List<Netlink.Route> out = new ArrayList<>();
        for (ProcNet.Route r : routes) {
            if (r.ifname().equals(ifname)) out.add(new Netlink.Route(r.destination(), r.prefixLength(), r.gateway(), r.metric()));
        }
        return out;
    }

    /**
     * resolv.conf's nameservers as pasta's get_dns() reads them: lines beginning "nameserver ",
     * the text after the line's last space, up to a '%' (an IPv6 scope); IPv4 and IPv6 literals.
     */
    static List<InetAddress> nameservers(List<String> lines) {
        List<InetAddress> out = new ArrayList<>();
        for (String line : lines) {
            if (!line.startsWith("nameserver ")) continue;
            String value = line.substring(line.lastIndexOf(' ') + 1);
            int percent = value.indexOf('%');
            if (percent >= 0) value = value.substring(0, percent);
            InetAddress a = Inet.parse(value);
            if (a != null) out.add(a);
        }
        return out;
    }

    private static String proc(String file) {
        // thread-self: this thread's network namespace (/proc/net follows the process's first thread)
        try {
            return Files.readString(Path.of("/proc/thread-self/net", file));
        } catch (NoSuchFileException e) {
            return ""; // no IPv6 in this kernel
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static NetworkInterface networkInterface(String name) {
        try {
            return NetworkInterface.getByName(name);
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An interface's IPv4 addresses with their prefixes, those of its alias labels (eth0:1) too. */
    private static List<Prefixed> ipv4Addresses(String ifname) {
        NetworkInterface nif = networkInterface(ifname);
        List<Prefixed> out = new ArrayList<>();
        if (nif == null) return out;
        List<NetworkInterface> all = new ArrayList<>(List.of(nif));
        nif.subInterfaces().forEach(all::add);
        for (NetworkInterface n : all) {
            for (InterfaceAddress a : n.getInterfaceAddresses()) {
                if (a.getAddress() instanceof Inet4Address v4 && out.stream().noneMatch(p -> p.address().equals(v4))) {
                    out.add(new Prefixed(v4, a.getNetworkPrefixLength()));
                }
            }
        }
        return out;
    }
}
