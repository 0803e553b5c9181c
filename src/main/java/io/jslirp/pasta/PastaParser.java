package io.jslirp.pasta;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * pasta's conf() for jslirp: getopt_long over pasta's optstring and long options, then pasta's
 * checks in pasta's order, so that the first complaint is the one pasta makes. pasta reads the
 * command line three times: every option in order (values checked as they come; --help and
 * --version end it there), then -t, -u and -D, then -T and -U; between them it checks the
 * namespace target. Where pasta's checks need the system (an interface's existence for -i,
 * opening files, binding ports), the wiring does them.
 */
final class PastaParser {
    /** pasta's optstring: '+' stops at the first operand, so "pasta ip -6 route" runs "ip -6 route". */
    static final String OPTSTRING = "+dqfel:hc:F:I:p:P:m:a:n:M:g:i:o:D:S:46t:u:T:U:";

    /** conf.c's table, in its order (the order of getopt's list of ambiguous possibilities). */
    static final List<Getopt.LongOption> LONG_OPTIONS = List.of(
            opt("debug", false, "d"), opt("quiet", false, "q"), opt("foreground", false, "f"), opt("stderr", false, "e"),
            opt("log-file", true, "l"), opt("help", false, "h"), opt("socket", true, "s"), opt("fd", true, "F"),
            opt("ns-ifname", true, "I"), opt("pcap", true, "p"), opt("pid", true, "P"), opt("mtu", true, "m"),
            opt("address", true, "a"), opt("netmask", true, "n"), opt("mac-addr", true, "M"), opt("gateway", true, "g"),
            opt("interface", true, "i"), opt("outbound", true, "o"), opt("dns", true, "D"), opt("search", true, "S"),
            flag("no-tcp"), flag("no-udp"), flag("no-icmp"), flag("no-dhcp"), flag("no-dhcpv6"), flag("no-ndp"),
            flag("no-ra"), flag("no-splice"), flag("freebind"), flag("no-map-gw"),
            opt("ipv4-only", false, "4"), opt("ipv6-only", false, "6"), opt("one-off", false, "1"),
            opt("tcp-ports", true, "t"), opt("udp-ports", true, "u"), opt("tcp-ns", true, "T"), opt("udp-ns", true, "U"),
            flag("userns", true), flag("netns", true), flag("ns-mac-addr", true), flag("dhcp-dns"), flag("no-dhcp-dns"),
            flag("dhcp-search"), flag("no-dhcp-search"), flag("dns-forward", true), flag("no-netns-quit"), flag("trace"),
            flag("runas", true), flag("log-size", true), flag("version"), flag("outbound-if4", true),
            flag("outbound-if6", true), flag("config-net"), flag("no-copy-routes"), flag("no-copy-addrs"),
            flag("netns-only"), flag("map-host-loopback", true), flag("map-guest-addr", true), flag("host-lo-to-ns-lo"),
            flag("dns-host", true), flag("vhost-user"), flag("print-capabilities"), opt("socket-path", true, "s"),
            opt("conf-path", true, "c"),
            flag("jslirp-seccomp-agent", true)); // jslirp's own: the socket bypass's agent for the OCI runtime (pasta has none)

    /**
     * Options pasta accepts that jslirp takes without acting on them, by key, with the reason.
     * Everything else on pasta's list jslirp does (or its launcher does).
     */
    static final Map<String, String> IGNORED = Map.ofEntries(
            Map.entry("runas", "jslirp takes no user from it: isolated, it becomes nobody by itself where that user exists"),
            Map.entry("log-size", "jslirp's log file does not rotate"),
            Map.entry("F", "a passt (QEMU socket) option pasta's parser also takes"),
            Map.entry("s", "a passt (QEMU socket) option pasta's parser also takes"),
            Map.entry("freebind", "forwarded ports are bound without IP_FREEBIND"),
            Map.entry("outbound-if4", "outbound sockets are not bound to an interface"),
            Map.entry("outbound-if6", "outbound sockets are not bound to an interface"),
            Map.entry("D", "pasta hands -D out only by DHCP, NDP and DHCPv6"),
            Map.entry("S", "pasta hands -S out only by DHCP, NDP and DHCPv6"),
            Map.entry("dhcp-dns", "DHCP, NDP and DHCPv6 answers carry jslirp's own DNS information"),
            Map.entry("dhcp-search", "DHCP, NDP and DHCPv6 answers carry jslirp's own DNS information"),
            Map.entry("no-tcp", "jslirp serves TCP regardless (-t and -T are refused as with pasta)"),
            Map.entry("no-udp", "jslirp serves UDP regardless (-u and -U are refused as with pasta)"),
            Map.entry("no-icmp", "jslirp serves ICMP regardless"),
            Map.entry("no-dhcp", "jslirp's DHCP server cannot be turned off"),
            Map.entry("no-dhcpv6", "jslirp's DHCPv6 server cannot be turned off"),
            Map.entry("no-ndp", "jslirp's neighbour discovery cannot be turned off"),
            Map.entry("no-ra", "jslirp's Router Advertisements cannot be turned off"));

    private static final int PATH_MAX = 4096, IFNAMSIZ = 16, UNIX_PATH_MAX = 108, MAXNS = 3, MAXDNSRCH = 6,
            NS_MAXDNAME = 1025, ETH_MIN_MTU = 68, ETH_MAX_MTU = 65535;
    /** pasta's LOGFILE_SIZE_MIN: five times the larger of BUFSIZ and the page size. */
    private static final long LOGFILE_SIZE_MIN = 5L * 8192;

    private final String program;
    private final List<String> args;
    private final PortSpec.Ephemeral ephemeral;
    private final String version;
    private final PastaOptions o = new PastaOptions();
    private final List<String> warnings = new ArrayList<>();
    private final Set<String> ignored = new LinkedHashSet<>();
    private final List<InetAddress> dns = new ArrayList<>();
    private final List<String> search = new ArrayList<>();
    private boolean copyRoutesOption, copyAddrsOption;

    PastaParser(String program, List<String> args, PortSpec.Ephemeral ephemeral, String version) {
        this.program = program;
        this.args = List.copyOf(args);
        this.ephemeral = ephemeral;
        this.version = version;
    }

    PastaOptions.Outcome parse() {
        try {
            Getopt getopt = new Getopt(program, OPTSTRING, LONG_OPTIONS, args);
            List<Getopt.Found> found = new ArrayList<>();
            for (Getopt.Found f; (f = getopt.next()) != null; ) {
                PastaOptions.Exit exit = first(f);
                if (exit != null) return exit;
                found.add(f);
            }
            afterFirst();
            for (Getopt.Found f : found) second(f);
            target(args.subList(getopt.firstOperand(), args.size()));
            for (Getopt.Found f : found) third(f);
        } catch (PastaError e) {
            return new PastaOptions.Exit(1, "", warningLines() + e.stderr());
        }
        o.program = program;
        o.dns = List.copyOf(dns);
        o.search = List.copyOf(search);
        o.warnings = List.copyOf(warnings);
        List<String> names = new ArrayList<>();
        for (String key : ignored) names.add(longName(key));
        o.ignored = List.copyOf(names);
        return new PastaOptions.Serve(o);
    }

    /** The first reading: one option as it comes; an Exit for --help, --version, --print-capabilities. */
    private PastaOptions.Exit first(Getopt.Found f) {
        if (f.failed()) throw new PastaError(f.error(), PastaHelp.usage(program));
        String v = f.argument();
        if (IGNORED.containsKey(f.key())) ignored.add(f.key());
        switch (f.key()) {
            case "userns" -> {
                o.userns = path(v, "Invalid userns: ");
                o.netnsOnly = false;
            }
            case "netns" -> {
                String path = v.contains("/") ? v : "/run/netns/" + v;
                if (path.length() > PATH_MAX) throw new PastaError("Network namespace name/path " + v + " too long");
                o.netns = path;
            }
            case "ns-mac-addr" -> o.nsMacAddr = mac(v);
            case "dhcp-dns" -> o.dhcpDns = true;
            case "no-dhcp-dns" -> throw new PastaError("--no-dhcp-dns is for passt mode only");
            case "dhcp-search" -> o.dhcpSearch = true;
            case "no-dhcp-search" -> throw new PastaError("--no-dhcp-search is for passt mode only");
            case "dns-forward" -> o.dnsForward = o.dnsForward.with(address(v, "Invalid DNS forwarding address: ",
                    a -> !Inet.unspecified(a) && !Inet.loopback(a),
                    a -> !Inet.unspecified(a) && !Inet.broadcast(a) && !Inet.loopback(a)));
            case "no-netns-quit" -> o.noNetnsQuit = true;
            case "trace" -> {
                o.trace = o.debug = true;
                o.quiet = false;
            }
            case "runas" -> o.runas = v;
            case "log-size" -> {
                CNumber n = CNumber.strtol(v, 0);
                // pasta's size_t: a negative size is a huge one, and passes.
                if (Long.compareUnsigned(n.value(), LOGFILE_SIZE_MIN) < 0 || n.overflow()) throw new PastaError("Invalid --log-size: " + v);
                o.logSize = n.value();
            }
            case "version" -> {
                return new PastaOptions.Exit(0, PastaHelp.version(version), warningLines());
            }
            case "outbound-if4" -> o.outboundIf4 = ifname(v);
            case "outbound-if6" -> o.outboundIf6 = ifname(v);
            case "config-net" -> o.configNet = true;
            case "no-copy-routes" -> {
                warnings.add("--no-copy-routes will be dropped soon");
                o.noCopyRoutes4 = o.noCopyRoutes6 = copyRoutesOption = true;
            }
            case "no-copy-addrs" -> {
                warnings.add("--no-copy-addrs will be dropped soon");
                o.noCopyAddrs4 = o.noCopyAddrs6 = copyAddrsOption = true;
            }
            case "netns-only" -> {
                o.netnsOnly = true;
                o.userns = null;
            }
            case "map-host-loopback" -> o.mapHostLoopback = remap(v, o.mapHostLoopback, true);
            case "map-guest-addr" -> o.mapGuestAddr = remap(v, o.mapGuestAddr, false);
            case "jslirp-seccomp-agent" -> o.seccompAgent = path(v, "Invalid seccomp agent path: ");
            case "host-lo-to-ns-lo" -> o.hostLoToNsLo = true;
            case "dns-host" -> o.dnsHost = o.dnsHost.with(address(v, "Invalid host nameserver address: ",
                    a -> !Inet.unspecified(a), a -> !Inet.unspecified(a) && !Inet.broadcast(a)));
            case "vhost-user" -> throw new PastaError("--vhost-user is for passt mode only");
            case "print-capabilities" -> {
                // passt's vhost-user probe, which pasta's parser answers too (on stderr, as its log).
                return new PastaOptions.Exit(0, "", warningLines() + "{\n  \"type\": \"net\"\n}\n");
            }
            case "d" -> {
                o.debug = true;
                o.quiet = false;
            }
            case "e" -> {
                warnings.add("--stderr will be dropped soon");
                o.stderr = true;
            }
            case "l" -> o.logFile = v;
            case "q" -> {
                o.quiet = true;
                o.debug = o.trace = false;
            }
            case "f" -> o.foreground = true;
            case "s" -> {
                if (v.isEmpty() || v.length() >= UNIX_PATH_MAX) throw new PastaError("Invalid socket path: " + v);
                o.socketPath = v;
            }
            case "F" -> {
                CNumber n = CNumber.strtol(v, 0);
                if (n.overflow() || n.value() <= 2 || n.value() > Integer.MAX_VALUE) throw new PastaError("Invalid --fd: " + v);
                o.fd = (int) n.value();
            }
            case "I" -> o.nsIfname = ifname(v);
            case "p" -> o.pcap = path(v, "Invalid pcap path: ");
            case "P" -> o.pidFile = path(v, "Invalid PID file: ");
            case "c" -> {
                if (v.isEmpty() || v.length() >= UNIX_PATH_MAX) throw new PastaError("Invalid configuration path: " + v);
                o.confPath = v;
            }
            case "m" -> {
                CNumber n = CNumber.strtol(v, 0);
                int mtu = (int) n.value(); // into pasta's int, as C assigns it
                if (mtu == 0) {
                    o.mtu = -1; // "a zero value disables assignment"
                } else if (mtu < ETH_MIN_MTU || mtu > ETH_MAX_MTU || n.overflow()) {
                    throw new PastaError("Invalid MTU: " + v);
                } else {
                    o.mtu = mtu;
                }
            }
            case "a" -> {
                InetAddress a = address(v, "Invalid address: ",
                        x -> !Inet.unspecified(x) && !Inet.loopback(x) && !Inet.v4Mapped(x) && !Inet.v4Compatible(x) && !Inet.multicast(x),
                        x -> !Inet.unspecified(x) && !Inet.broadcast(x) && !Inet.loopback(x) && !Inet.multicast(x));
                o.address = o.address.with(a);
                if (a instanceof Inet6Address) o.noCopyAddrs6 = true;
                else o.noCopyAddrs4 = true;
            }
            case "n" -> o.netmask = netmask(v);
            case "M" -> o.macAddr = mac(v);
            case "g" -> {
                InetAddress a = address(v, "Invalid gateway address: ",
                        x -> !Inet.unspecified(x) && !Inet.loopback(x),
                        x -> !Inet.unspecified(x) && !Inet.broadcast(x) && !Inet.loopback(x));
                o.gateway = o.gateway.with(a);
                if (a instanceof Inet6Address) o.noCopyRoutes6 = true;
                else o.noCopyRoutes4 = true;
            }
            case "i" -> o.interfaceName = v;
            case "o" -> o.outbound = o.outbound.with(address(v, "Invalid or redundant outbound address: ",
                    x -> !Inet.unspecified(x) && !Inet.loopback(x) && !Inet.v4Mapped(x) && !Inet.v4Compatible(x) && !Inet.multicast(x),
                    x -> !Inet.unspecified(x) && !Inet.broadcast(x) && !Inet.multicast(x)));
            case "S" -> {
                if (v.equals("none")) {
                    o.noSearch = true;
                    search.clear();
                } else {
                    o.noSearch = false;
                    if (search.size() >= MAXDNSRCH || v.isEmpty() || v.length() >= NS_MAXDNAME) {
                        throw new PastaError("Cannot use DNS search domain " + v);
                    }
                    search.add(v);
                }
            }
            case "4" -> {
                o.ipv4Only = true;
                o.ipv6Only = false;
            }
            case "6" -> {
                o.ipv6Only = true;
                o.ipv4Only = false;
            }
            case "1" -> throw new PastaError("--one-off is for passt mode only");
            case "h" -> {
                return new PastaOptions.Exit(0, PastaHelp.usage(program), warningLines());
            }
            case "no-tcp" -> o.noTcp = true;
            case "no-udp" -> o.noUdp = true;
            case "no-icmp" -> o.noIcmp = true;
            case "no-dhcp" -> o.noDhcp = true;
            case "no-dhcpv6" -> o.noDhcpv6 = true;
            case "no-ndp" -> o.noNdp = true;
            case "no-ra" -> o.noRa = true;
            case "no-splice" -> o.noSplice = true;
            case "freebind" -> o.freebind = true;
            case "no-map-gw" -> o.noMapGw = true;
            case "t", "u", "T", "U", "D" -> {
                // read later, as pasta does once it knows the addresses (and --no-tcp, --no-udp)
            }
            default -> throw new IllegalStateException("an option of the table without a case: " + f.key());
        }
        return null;
    }

    private void afterFirst() {
        if (!o.configNet && copyRoutesOption) throw new PastaError("--no-copy-routes needs --config-net");
        if (!o.configNet && copyAddrsOption) throw new PastaError("--no-copy-addrs needs --config-net");
    }

    /** The second reading: inbound ports and DNS. */
    private void second(Getopt.Found f) {
        switch (f.key()) {
            case "t" -> o.tcp.add(f.argument(), o.noTcp, ephemeral, warnings);
            case "u" -> o.udp.add(f.argument(), o.noUdp, ephemeral, warnings);
            case "D" -> dns(f.argument());
            default -> {
            }
        }
    }

    /** The third reading: outbound ports, which pasta sets up once inside the namespace. */
    private void third(Getopt.Found f) {
        switch (f.key()) {
            case "T" -> o.tcpNs.add(f.argument(), o.noTcp, ephemeral, warnings);
            case "U" -> o.udpNs.add(f.argument(), o.noUdp, ephemeral, warnings);
            default -> {
            }
        }
    }

    private void dns(String v) {
        if (v.equals("none")) {
            // pasta clears the forwarding too, --dns-forward and --dns-host given before or after alike.
            o.noDns = true;
            dns.clear();
            o.dnsForward = AddressPair.NONE;
            o.dnsHost = AddressPair.NONE;
            return;
        }
        o.noDns = false;
        InetAddress a = Inet.parse(v);
        if (a == null) throw new PastaError("Cannot use DNS address " + v);
        // pasta keeps three of each version and drops the rest without a word.
        if (dns.stream().filter(d -> d.getClass() == a.getClass()).count() < MAXNS) dns.add(a);
    }

    /** conf_pasta_ns(): the operands, a PID or a command, against --netns. */
    private void target(List<String> operands) {
        if (o.netns != null && !operands.isEmpty()) throw new PastaError("Both --netns and PID or command given");
        if (operands.size() == 1) {
            String operand = operands.get(0);
            CNumber n = CNumber.strtol(operand, 10);
            if (n.whole(operand)) { // strtol read it all: a PID ("" too, as in pasta)
                if (n.value() < 0 || n.value() > Integer.MAX_VALUE) throw new PastaError("Invalid PID " + operand);
                o.targetPid = (int) n.value();
                o.netns = "/proc/" + n.value() + "/ns/net";
                if (o.userns == null) o.userns = "/proc/" + n.value() + "/ns/user";
            }
        }
        if (o.targetPid < 0 && o.netns == null) o.command = List.copyOf(operands);
        if (o.netns != null && o.userns == null) o.netnsOnly = true;
    }

    /** --map-host-loopback and --map-guest-addr: an address not unspecified, loopback or multicast, or "none". */
    private AddressPair remap(String v, AddressPair current, boolean hostLoopback) {
        if (v.equals("none")) {
            // pasta 2025-01 clears both and then dies on "none" as an address; its manual means this.
            if (hostLoopback) o.noMapGw = true;
            return AddressPair.NONE;
        }
        return current.with(address(v, "Invalid address to remap to host: ",
                a -> !Inet.unspecified(a) && !Inet.loopback(a) && !Inet.multicast(a),
                a -> !Inet.unspecified(a) && !Inet.loopback(a) && !Inet.multicast(a)));
    }

    /** An IPv6 literal that ipv6 accepts, else an IPv4 one that ipv4 accepts (pasta tries them in that order), else message + v. */
    private static InetAddress address(String v, String message, java.util.function.Predicate<InetAddress> ipv6,
                                       java.util.function.Predicate<InetAddress> ipv4) {
        Inet6Address a6 = Inet.parse6(v);
        if (a6 != null && ipv6.test(a6)) return a6;
        Inet4Address a4 = Inet.parse4(v);
        if (a4 != null && ipv4.test(a4)) return a4;
        throw new PastaError(message + v);
    }

    /** conf_ip4_prefix(): a dotted netmask of contiguous ones, or a prefix length up to 32 as strtoul reads it. */
    private static int netmask(String v) {
        Inet4Address mask = Inet.parse4(v);
        if (mask != null) {
            byte[] b = mask.getAddress();
            int m = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
            int ones = Integer.bitCount(m);
            if (ones < 32 && (m << ones) != 0) throw new PastaError("Invalid netmask: " + v);
            return ones;
        }
        CNumber n = CNumber.strtoul(v, 0);
        if (n.overflow() || Long.compareUnsigned(n.value(), 32) > 0) throw new PastaError("Invalid netmask: " + v);
        return (int) n.value();
    }

    /** parse_mac(): exactly six colon-separated pairs of hex digits. */
    private static byte[] mac(String v) {
        byte[] mac = new byte[6];
        boolean ok = v.length() == 17;
        for (int i = 0; ok && i < 6; i++) {
            int hi = Character.digit(v.charAt(3 * i), 16), lo = Character.digit(v.charAt(3 * i + 1), 16);
            ok = hi >= 0 && lo >= 0 && v.charAt(3 * i) < 128 && v.charAt(3 * i + 1) < 128 && (i == 5 || v.charAt(3 * i + 2) == ':');
            mac[i] = (byte) (hi << 4 | lo);
        }
        if (!ok) throw new PastaError("Invalid MAC address: " + v);
        return mac;
    }

    private static String ifname(String v) {
        if (v.isEmpty() || v.length() >= IFNAMSIZ) throw new PastaError("Invalid interface name: " + v);
        return v;
    }

    private static String path(String v, String message) {
        if (v.isEmpty() || v.length() >= PATH_MAX) throw new PastaError(message + v);
        return v;
    }

    private String warningLines() {
        StringBuilder b = new StringBuilder();
        for (String w : warnings) b.append(w).append('\n');
        return b.toString();
    }

    /** "--runas" for a key; a short option's long name. */
    private static String longName(String key) {
        for (Getopt.LongOption l : LONG_OPTIONS) if (l.key().equals(key)) return "--" + l.name();
        return "-" + key;
    }

    /** "--runas", or "-D/--dns" for an option with a short form too. */
    static String names(String key) {
        return key.length() == 1 && OPTSTRING.indexOf(key.charAt(0)) > 0 ? "-" + key + "/" + longName(key) : longName(key);
    }

    private static Getopt.LongOption opt(String name, boolean argument, String shortKey) {
        return new Getopt.LongOption(name, argument, shortKey);
    }

    /** A long option without a short form: its name is its key. */
    private static Getopt.LongOption flag(String name) {
        return flag(name, false);
    }

    private static Getopt.LongOption flag(String name, boolean argument) {
        return new Getopt.LongOption(name, argument, name);
    }
}
