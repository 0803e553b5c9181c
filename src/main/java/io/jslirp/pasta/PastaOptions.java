package io.jslirp.pasta;

import java.net.Inet4Address;
import java.util.List;

/**
 * pasta's command line as pasta (passt 2025-01) reads it, for jslirp's stand-in: every option of
 * pasta mode with its value, after pasta's checks, with pasta's defaults. Where pasta takes an
 * option several times, the last one wins (pasta does so since 2024-06, so that Podman's
 * containers.conf options can be overridden on its command line). Options jslirp accepts without
 * acting on them are listed by {@link #ignored}. Made by {@link #parse}.
 */
public final class PastaOptions {
    /** What the command line asks for: serving with these options, or an exit (help, version, an error). */
    public sealed interface Outcome permits Serve, Exit {}

    /** Set up and serve the namespace as options say; warnings, in pasta's words, belong on stderr first. */
    public record Serve(PastaOptions options) implements Outcome {}

    /** Print stdout and stderr, then exit with status: --help, --version, or a refusal (status 1). */
    public record Exit(int status, String stdout, String stderr) implements Outcome {}

    /** The MTU pasta gives the namespace's interface unless -m says otherwise: 65535 less an Ethernet header, in 32-bit words. */
    public static final int DEFAULT_MTU = 65520;

    /**
     * Reads args (argv without argv[0]) as pasta does. program is argv[0], which getopt's messages
     * begin with ("pasta: unrecognized option '--x'"); ephemeral is this machine's range of local
     * ports (for "all" and exclusions alone); version is what --version names.
     */
    public static Outcome parse(String program, List<String> args, PortSpec.Ephemeral ephemeral, String version) {
        return new PastaParser(program, args, ephemeral, version).parse();
    }

    // Set by PastaParser before the object is handed out; never changed after.
    String program;
    boolean configNet;
    String netns;
    String userns;
    boolean netnsOnly;
    int targetPid = -1;
    List<String> command = List.of();
    String pidFile;
    /** -c, --conf-path: the control socket's path, or null. */
    String confPath;
    boolean foreground, quiet, debug, trace, stderr;
    String logFile;
    long logSize = -1;
    String runas;
    String nsIfname;
    int mtu; // 0: not given; -1: "-m 0"
    AddressPair address = AddressPair.NONE;
    int netmask; // 0: not given
    AddressPair gateway = AddressPair.NONE;
    byte[] macAddr, nsMacAddr;
    AddressPair outbound = AddressPair.NONE;
    String outboundIf4, outboundIf6, interfaceName;
    boolean ipv4Only, ipv6Only;
    List<java.net.InetAddress> dns = List.of();
    boolean noDns;
    List<String> search = List.of();
    boolean noSearch;
    AddressPair dnsForward = AddressPair.NONE, dnsHost = AddressPair.NONE;
    AddressPair mapGuestAddr = AddressPair.NONE, mapHostLoopback = AddressPair.NONE;
    boolean noMapGw, hostLoToNsLo, noNetnsQuit;
    boolean noTcp, noUdp, noIcmp, noDhcp, noDhcpv6, noNdp, noRa, noSplice, freebind;
    boolean noCopyRoutes4, noCopyRoutes6, noCopyAddrs4, noCopyAddrs6;
    boolean dhcpDns, dhcpSearch;
    String pcap, socketPath;
    /** jslirp's own --jslirp-seccomp-agent PATH (null: none): the OCI runtime's seccomp agent for the socket bypass. */
    String seccompAgent;
    int fd = -1;
    final PortForwarding tcp = new PortForwarding('t'), udp = new PortForwarding('u'),
            tcpNs = new PortForwarding('T'), udpNs = new PortForwarding('U');
    List<String> warnings = List.of();
    List<String> ignored = List.of();

    PastaOptions() {}

    /**
     * Every option jslirp accepts as pasta does but does not act on, by long name (with the short
     * form, if any: "-D/--dns"), and why.
     */
    public static java.util.SortedMap<String, String> unsupported() {
        java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
        PastaParser.IGNORED.forEach((key, why) -> out.put(PastaParser.names(key), why));
        return out;
    }

    /** argv[0] as the caller gave it. */
    public String program() {
        return program;
    }

    /** --config-net: configure the namespace's interface (addresses, routes, MTU, up), not only create it. */
    public boolean configNet() {
        return configNet;
    }

    /** The network namespace to serve: --netns (a NAME meaning /run/netns/NAME), or /proc/PID/ns/net for a PID; null for a command. */
    public String netns() {
        return netns;
    }

    /**
     * The user namespace to join before the network namespace, or null for none: --userns, or the
     * target PID's (/proc/PID/ns/user); none with --netns-only, nor with --netns alone (pasta's
     * "netns only" mode).
     */
    public String userNamespace() {
        return netnsOnly ? null : userns;
    }

    /** The target PID, or -1 when none was given. */
    public int targetPid() {
        return targetPid;
    }

    /**
     * The command to run in a new user and network namespace when neither --netns nor a PID was
     * given; empty for a shell (pasta's default).
     */
    public List<String> command() {
        return command;
    }

    /** -P/--pid FILE: where the serving process writes its PID ("%d\n"); null if not given. */
    public String pidFile() {
        return pidFile;
    }

    /** Where the socket bypass's agent for the OCI runtime listens (--jslirp-seccomp-agent, jslirp's own), or null. */
    public String seccompAgent() {
        return seccompAgent;
    }

    /** -c, --conf-path: where the control socket (pesto's) listens; null without one. */
    public String confPath() {
        return confPath;
    }

    /** -f/--foreground: stay in the foreground instead of detaching once set up. */
    public boolean foreground() {
        return foreground;
    }

    /** -q/--quiet: nothing below warnings (the last of -q, -d, --trace wins). */
    public boolean quiet() {
        return quiet;
    }

    /** -d/--debug, or --trace. */
    public boolean debug() {
        return debug;
    }

    public boolean trace() {
        return trace;
    }

    /** -e/--stderr was given: pasta accepts it and does nothing more than warn that it will go. */
    public boolean stderr() {
        return stderr;
    }

    /** -l/--log-file PATH, or null. */
    public String logFile() {
        return logFile;
    }

    /** --log-size BYTES (unsigned, as pasta's size_t), or -1 if not given. */
    public long logSize() {
        return logSize;
    }

    /** --runas UID|UID:GID as given, or null. */
    public String runas() {
        return runas;
    }

    /**
     * -I/--ns-ifname: the namespace interface's name; null for pasta's default, the host's template
     * interface's name (or tap0 when there is none).
     */
    public String nsIfname() {
        return nsIfname;
    }

    /** The MTU to set on the namespace's interface: -m, else {@value #DEFAULT_MTU}; 0 for "-m 0" (leave it alone). */
    public int mtu() {
        return mtu == 0 ? DEFAULT_MTU : mtu < 0 ? 0 : mtu;
    }

    /** -a/--address, an IPv4 and an IPv6 address at most: each replaces the copied addresses of its version. */
    public AddressPair address() {
        return address;
    }

    /**
     * The prefix length of -a's IPv4 address: -n/--netmask if given, else by the address's class
     * (A /8, B /16, C /24, else 32) as pasta does. (Without -a, -n does not count: pasta copies the
     * host's addresses with their own prefixes.) -a's IPv6 address gets /64.
     */
    public int prefixLengthFor(Inet4Address a) {
        if (netmask > 0) return netmask;
        int first = a.getAddress()[0] & 0xff;
        return first < 128 ? 8 : first < 192 ? 16 : first < 224 ? 24 : 32;
    }

    /** -n/--netmask as a prefix length, or 0 when not given (or given as 0). */
    public int netmask() {
        return netmask;
    }

    /** -g/--gateway: each replaces the copied routes of its version with a default route via it. */
    public AddressPair gateway() {
        return gateway;
    }

    /** -M/--mac-addr: the MAC address jslirp answers with on the link (6 bytes), or null for the default. */
    public byte[] macAddr() {
        return macAddr == null ? null : macAddr.clone();
    }

    /** --ns-mac-addr: the MAC address to give the namespace's interface, or null to keep its own. */
    public byte[] nsMacAddr() {
        return nsMacAddr == null ? null : nsMacAddr.clone();
    }

    /** -o/--outbound: the source address of outbound sockets, per version. */
    public AddressPair outbound() {
        return outbound;
    }

    public String outboundIf4() {
        return outboundIf4;
    }

    public String outboundIf6() {
        return outboundIf6;
    }

    /** -i/--interface: the host interface whose addresses and routes to copy (both versions), or null to find it. */
    public String interfaceName() {
        return interfaceName;
    }

    /** -4/--ipv4-only (the last of -4 and -6 wins). */
    public boolean ipv4Only() {
        return ipv4Only;
    }

    /** -6/--ipv6-only. */
    public boolean ipv6Only() {
        return ipv6Only;
    }

    /** -D/--dns addresses (at most three of each version), which pasta only hands out by DHCP, NDP and DHCPv6. */
    public List<java.net.InetAddress> dns() {
        return dns;
    }

    /** "-D none". */
    public boolean noDns() {
        return noDns;
    }

    /** -S/--search domains. */
    public List<String> search() {
        return search;
    }

    public boolean noSearch() {
        return noSearch;
    }

    /**
     * --dns-forward: TCP and UDP to port 53 (and 853) of this address go to {@link #dnsHost}, per
     * version. "-D none" clears it, wherever it stands.
     */
    public AddressPair dnsForward() {
        return dnsForward;
    }

    /** --dns-host: where forwarded DNS goes, per version; unset, the host's first resolv.conf nameserver of that version. */
    public AddressPair dnsHost() {
        return dnsHost;
    }

    /** --map-guest-addr: traffic to this address goes to the host, as if from the host's own address. */
    public AddressPair mapGuestAddr() {
        return mapGuestAddr;
    }

    /**
     * --map-host-loopback: traffic to this address goes to the host's loopback. Unset, and without
     * --no-map-gw, pasta maps the gateway's address instead.
     */
    public AddressPair mapHostLoopback() {
        return mapHostLoopback;
    }

    /** --no-map-gw, or "--map-host-loopback none": the gateway's address is not the host's loopback. */
    public boolean noMapGw() {
        return noMapGw;
    }

    public boolean hostLoToNsLo() {
        return hostLoToNsLo;
    }

    /** --no-netns-quit: keep serving when the --netns file is deleted. */
    public boolean noNetnsQuit() {
        return noNetnsQuit;
    }

    public boolean noTcp() {
        return noTcp;
    }

    public boolean noUdp() {
        return noUdp;
    }

    public boolean noIcmp() {
        return noIcmp;
    }

    public boolean noDhcp() {
        return noDhcp;
    }

    public boolean noDhcpv6() {
        return noDhcpv6;
    }

    public boolean noNdp() {
        return noNdp;
    }

    /** --no-ra as given; pasta turns Router Advertisements off with --config-net anyway. */
    public boolean noRa() {
        return noRa;
    }

    public boolean noSplice() {
        return noSplice;
    }

    public boolean freebind() {
        return freebind;
    }

    /** Whether the host's IPv4 routes are to be copied: not with --no-copy-routes, nor with an IPv4 -g. */
    public boolean copyRoutes4() {
        return !noCopyRoutes4;
    }

    public boolean copyRoutes6() {
        return !noCopyRoutes6;
    }

    /** Whether the host's IPv4 addresses are to be copied: not with --no-copy-addrs, nor with an IPv4 -a. */
    public boolean copyAddrs4() {
        return !noCopyAddrs4;
    }

    public boolean copyAddrs6() {
        return !noCopyAddrs6;
    }

    public boolean dhcpDns() {
        return dhcpDns;
    }

    public boolean dhcpSearch() {
        return dhcpSearch;
    }

    /** -p/--pcap FILE, or null. */
    public String pcap() {
        return pcap;
    }

    /** --socket or --socket-path PATH (a passt option pasta's parser takes; -s is not pasta's), or null. */
    public String socketPath() {
        return socketPath;
    }

    /** -F/--fd (a passt option pasta's parser takes), or -1. */
    public int fd() {
        return fd;
    }

    /** -t: host ports to the namespace, TCP. */
    public PortForwarding tcp() {
        return tcp;
    }

    /** -u: host ports to the namespace, UDP. */
    public PortForwarding udp() {
        return udp;
    }

    /** -T: ports of the namespace's loopback to the host, TCP. */
    public PortForwarding tcpNs() {
        return tcpNs;
    }

    /** -U: ports of the namespace's loopback to the host, UDP. */
    public PortForwarding udpNs() {
        return udpNs;
    }

    /** pasta's warnings about this command line, in order ("--stderr will be dropped soon"). */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The options given that jslirp accepts, as pasta does, but does not act on ({@link #unsupported}),
     * by their long names, e.g. "--runas"; for a debug line.
     */
    public List<String> ignored() {
        return ignored;
    }
}
