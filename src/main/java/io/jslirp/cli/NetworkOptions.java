package io.jslirp.cli;

import io.jslirp.capture.Capture;
import io.jslirp.capture.CaptureFilter;
import io.jslirp.engine.EngineConfig;
import io.jslirp.policy.DestinationRules;
import io.jslirp.nat.Limits;
import io.jslirp.policy.ResolvConf;
import io.jslirp.api.EngineApi;
import io.jslirp.engine.Engine;
import io.jslirp.forward.PortForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.util.Log;
import io.jslirp.wire.Mac;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Options shared by every command that builds a virtual network, with slirp4netns's names and defaults. */
final class NetworkOptions {
    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "MTU of the interface (default: ${DEFAULT-VALUE}, max 65520)", defaultValue = "1500")
    int mtu;

    @Option(names = "--cidr", paramLabel = "CIDR", description = "virtual network (default: ${DEFAULT-VALUE}); its hosts: gateway 2, DNS 3, DHCP from 15, guest 100", defaultValue = "10.0.2.0/24")
    String cidr;

    @Option(names = "--disable-host-loopback", description = "do not map the gateway address to the host's 127.0.0.1 (nor fd00::2 to ::1): the guest gets network unreachable")
    boolean disableHostLoopback;

    @Option(names = {"-6", "--enable-ipv6"}, description = "IPv6 too: prefix fd00::/64 by Router Advertisement (SLAAC), gateway fd00::2 (the host's ::1), DNS fd00::3")
    boolean enableIpv6;

    @Option(names = "--macaddress", paramLabel = "MAC", description = "MAC address of the guest interface (with --configure)")
    String macAddress;

    @Option(names = "--resolv-conf", paramLabel = "FILE", description = "resolv.conf whose nameservers (in turn, when one fails) answer DNS sent to the DNS address (default: ${DEFAULT-VALUE})", defaultValue = "/etc/resolv.conf")
    Path resolvConf;

    @Option(names = "--disable-dns", description = "no DNS service on the DNS address (.3): UDP and TCP to it go unanswered, as to an unassigned address")
    boolean disableDns;

    @Option(names = {"-t", "--tcp-forward"}, paramLabel = "[ADDR/]PORT[-PORT][:GUESTPORT[-PORT]]",
            description = "forward host TCP port PORT, or a range (on 127.0.0.1, and ::1 with --enable-ipv6, unless ADDR is given; ADDR IPv4 or IPv6), to the guest's GUESTPORT (default: PORT); repeatable")
    List<String> tcpForwards = new ArrayList<>();

    @Option(names = "--tftp", paramLabel = "DIR", description = "serve DIR read-only over TFTP on the gateway's port 69 (QEMU's tftp=DIR)")
    Path tftp;

    @Option(names = "--bootfile", paramLabel = "NAME", description = "boot file DHCP offers, with the gateway as TFTP server (QEMU's bootfile=NAME)")
    String bootFile;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write every frame, both ways, to FILE in pcap format")
    Path pcap;

    @Option(names = "--pcap-size", paramLabel = "BYTES", description = "stop capturing when FILE would pass BYTES (suffix k, M or G; default: 1G)")
    String pcapSize;

    @Option(names = "--pcap-filter", paramLabel = "EXPR",
            description = "capture only frames matching EXPR: terms tcp, udp, icmp, arp, port N, host A.B.C.D joined by 'and'")
    String pcapFilter;

    @Option(names = {"-u", "--udp-forward"}, paramLabel = "[ADDR/]PORT[-PORT][:GUESTPORT[-PORT]]",
            description = "forward host UDP port PORT, or a range, as -t does TCP; repeatable")
    List<String> udpForwards = new ArrayList<>();

    @Option(names = "--preserve-source",
            description = "forwarded clients reach the guest from their own address and port (loopback clients still from the gateway)")
    boolean preserveSource;

    @Option(names = {"-a", "--api-socket"}, paramLabel = "PATH",
            description = "serve slirp4netns's API (add_hostfwd, list_hostfwd, remove_hostfwd; and get_counters, get_status) on a unix socket at PATH")
    Path apiSocket;

    @Option(names = "--outbound-addr", paramLabel = "IPv4",
            description = "host address that every outbound IPv4 connection and UDP flow comes from (as slirp4netns; an address, not an interface)")
    String outboundAddress;

    @Option(names = "--outbound-addr6", paramLabel = "IPv6",
            description = "host address that every outbound IPv6 connection and UDP flow comes from (with --enable-ipv6; an address, not an interface)")
    String outboundAddress6;

    @Option(names = "--allow", paramLabel = "CIDR",
            description = "let the guest reach only host destinations in CIDR (and other --allow networks), IPv4 A.B.C.D/N or IPv6 ADDR/N; repeatable")
    List<String> allow = new ArrayList<>();

    @Option(names = "--deny", paramLabel = "CIDR",
            description = "refuse the guest's flows to host destinations in CIDR (IPv4 or IPv6), even if allowed; repeatable")
    List<String> deny = new ArrayList<>();

    @Option(names = "--debug", description = "log each flow's life, one line per event")
    boolean debug;

    @Option(names = "--busy-poll", paramLabel = "USEC", defaultValue = "0",
            description = "while exchanges are interactive, poll this long for the answer before sleeping (a core spent for a shorter round trip where cores are spare); 0: never (default: ${DEFAULT-VALUE})")
    int busyPollMicros;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "65536",
            description = "TCP connections at once; beyond it a guest's SYN is answered with a reset (default: ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(names = "--max-half-open", paramLabel = "N", defaultValue = "4096",
            description = "TCP connections whose host connect is still in progress (default: ${DEFAULT-VALUE})")
    int maxHalfOpen;

    @Option(names = "--max-udp-flows", paramLabel = "N", defaultValue = "16384",
            description = "UDP flows at once, one host socket each; beyond it the guest gets ICMP administratively prohibited (default: ${DEFAULT-VALUE})")
    int maxUdpFlows;

    @Option(names = "--tcp-buffer", paramLabel = "SIZE", defaultValue = "1M",
            description = "most guest bytes a TCP connection holds for its host socket (beyond a gap, or refused), a power of two; bounds its window (K, M suffixes; default: ${DEFAULT-VALUE})")
    String tcpBuffer;

    @Option(names = "--buffer-budget", paramLabel = "SIZE", defaultValue = "32M",
            description = "most all TCP buffers together grow beyond their first 4 KiB each; data beyond a gap is kept only while they hold less than an eighth of it, else left for the guest to resend (K, M, G suffixes; default: ${DEFAULT-VALUE})")
    String bufferBudget;

    NetworkConfig network() {
        return NetworkConfig.fromCidr(cidr, mtu, !disableHostLoopback);
    }

    /** The guest MAC to set, or -1 to leave the kernel's. */
    long guestMac() {
        return macAddress == null ? -1 : Mac.parse(macAddress);
    }

    /** Validates everything and builds the engine configuration; IllegalArgumentException says what is wrong. */
    EngineConfig engineConfig() {
        Log.enableDebug(debug);
        NetworkConfig network = network();
        guestMac();
        if (!disableDns && !Files.isReadable(resolvConf) && !resolvConf.equals(ResolvConf.DEFAULT)) {
            throw new IllegalArgumentException("cannot read --resolv-conf " + resolvConf);
        }
        List<PortForward> forwards = new ArrayList<>();
        boolean alsoIpv6Loopback = enableIpv6 && OutboundAddress.ipv6LoopbackUsable();
        for (String spec : tcpForwards) forwards.addAll(PortForward.parse(PortForward.Protocol.TCP, spec, alsoIpv6Loopback));
        for (String spec : udpForwards) forwards.addAll(PortForward.parse(PortForward.Protocol.UDP, spec, alsoIpv6Loopback));
        if (tftp != null && !Files.isDirectory(tftp)) throw new IllegalArgumentException("--tftp " + tftp + " is not a directory");
        if (bootFile != null && !bootFile.matches("[\\x21-\\x7e]{1,127}")) {
            throw new IllegalArgumentException("--bootfile must be 1-127 printable ASCII characters without spaces: " + bootFile);
        }
        EngineConfig.Builder config = EngineConfig.builder(network, disableDns ? null : ResolvConf.nameservers(resolvConf))
                .forwards(forwards)
                .outboundAddress(outboundAddress == null ? 0 : OutboundAddress.check(outboundAddress))
                .outboundAddress6(outboundAddress6 == null ? null : OutboundAddress.check6(outboundAddress6))
                .tcp(tcpConfig(network))
                .limits(limits())
                .tftp(tftp, bootFile)
                .capture(capture())
                .busyPollNanos(busyPoll())
                .rules(new DestinationRules(networks("--allow", allow), networks("--deny", deny)))
                .preserveSource(preserveSource);
        if (enableIpv6) config.ipv6();
        return config.build();
    }

    private static List<DestinationRules.Network> networks(String option, List<String> specs) {
        List<DestinationRules.Network> l = new ArrayList<>();
        for (String spec : specs) {
            try {
                l.add(DestinationRules.Network.parse(spec));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": " + e.getMessage());
            }
        }
        return l;
    }

    private TcpConfig tcpConfig(NetworkConfig network) {
        long perConnection = Sizes.parse("--tcp-buffer", tcpBuffer);
        long budget = Sizes.parse("--buffer-budget", bufferBudget);
        try {
            return TcpConfig.forMtu(network.mtu()).withBuffers((int) Math.min(perConnection, Integer.MAX_VALUE), budget);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tcp-buffer " + tcpBuffer + ": " + e.getMessage());
        }
    }

    private long busyPoll() {
        if (busyPollMicros < 0 || busyPollMicros > 1_000_000) throw new IllegalArgumentException("--busy-poll must be 0 to 1000000 microseconds");
        return busyPollMicros * 1_000L;
    }

    private Limits limits() {
        if (maxConnections < 1 || maxHalfOpen < 1 || maxUdpFlows < 1) {
            throw new IllegalArgumentException("--max-connections, --max-half-open and --max-udp-flows must be at least 1");
        }
        return new Limits(maxConnections, maxHalfOpen, maxUdpFlows);
    }

    private Capture.Settings capture() {
        if (pcap == null) {
            if (pcapSize != null || pcapFilter != null) throw new IllegalArgumentException("--pcap-size and --pcap-filter need --pcap FILE");
            return null;
        }
        long maxBytes = pcapSize == null ? Capture.DEFAULT_MAX_BYTES : Sizes.parse("--pcap-size", pcapSize);
        if (maxBytes < 1024) throw new IllegalArgumentException("--pcap-size must be at least 1k: " + pcapSize);
        return new Capture.Settings(pcap, maxBytes, pcapFilter == null ? null : CaptureFilter.parse(pcapFilter));
    }

    /** Starts what serves the engine besides its link: the API socket, if asked; the heap given back when idle. */
    /** What the engine reads by path while it serves (a --tftp directory): what an isolated instance must keep. */
    List<Path> readAtRunTime() {
        return tftp == null ? List.of() : List.of(tftp);
    }

    void serve(Engine engine) {
        serve(engine, null);
    }

    /** As {@link #serve(Engine)}, the API socket's listener already made (by a program before an exec) when api is not null. */
    void serve(Engine engine, io.jslirp.sys.UnixListener api) {
        if (api != null) EngineApi.serve(engine, api);
        else if (apiSocket != null) EngineApi.serve(engine, apiSocket);
        IdleCollector.start(engine);
    }
}
