package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PastaOptionsTest {
    private static final PortSpec.Ephemeral EPHEMERAL = new PortSpec.Ephemeral(32768, 60999);

    static PastaOptions.Outcome parse(String... args) {
        return PastaOptions.parse("pasta", List.of(args), EPHEMERAL, "0.1.0");
    }

    static PastaOptions serve(String... args) {
        PastaOptions.Outcome outcome = parse(args);
        assertThat(outcome).as("%s", outcome).isInstanceOf(PastaOptions.Serve.class);
        return ((PastaOptions.Serve) outcome).options();
    }

    static PastaOptions.Exit exit(String... args) {
        PastaOptions.Outcome outcome = parse(args);
        assertThat(outcome).isInstanceOf(PastaOptions.Exit.class);
        return (PastaOptions.Exit) outcome;
    }

    /** pasta's one line (the first on stderr) for a command line it refuses, checking the exit status. */
    static String refusal(String... args) {
        PastaOptions.Exit e = exit(args);
        assertThat(e.status()).isEqualTo(1);
        assertThat(e.stdout()).isEmpty();
        return e.stderr().lines().findFirst().orElseThrow();
    }

    static InetAddress ip(String literal) {
        InetAddress a = Inet.parse(literal);
        assertThat(a).as(literal).isNotNull();
        return a;
    }

    @Test
    void podmansDefaultCommandLine() {
        PastaOptions o = serve("--config-net", "--dns-forward", "169.254.1.1", "-t", "none", "-u", "none", "-T", "none",
                "-U", "none", "--no-map-gw", "--quiet", "--netns", "/run/user/1000/netns/netns-5c3e", "--map-guest-addr", "169.254.1.2");
        assertThat(o.configNet()).isTrue();
        assertThat(o.dnsForward()).isEqualTo(new AddressPair(Inet.parse4("169.254.1.1"), null));
        assertThat(o.dnsHost().isEmpty()).isTrue();
        for (PortForwarding f : List.of(o.tcp(), o.udp(), o.tcpNs(), o.udpNs())) {
            assertThat(f.isSet()).isTrue();
            assertThat(f.mode()).isEqualTo(PortSpec.Mode.NONE);
        }
        assertThat(o.noMapGw()).isTrue();
        assertThat(o.quiet()).isTrue();
        assertThat(o.netns()).isEqualTo("/run/user/1000/netns/netns-5c3e");
        assertThat(o.userNamespace()).as("--netns alone: no user namespace to join").isNull();
        assertThat(o.mapGuestAddr().ipv4()).isEqualTo(ip("169.254.1.2"));
        assertThat(o.targetPid()).isEqualTo(-1);
        assertThat(o.command()).isEmpty();
        assertThat(o.mtu()).isEqualTo(65520);
        assertThat(o.foreground()).isFalse();
        assertThat(o.copyAddrs4()).isTrue();
        assertThat(o.copyRoutes6()).isTrue();
        assertThat(o.warnings()).isEmpty();
        assertThat(o.ignored()).isEmpty();
    }

    @Test
    void podmansPublishedPortsAndPidFile() {
        PastaOptions o = serve("--config-net", "-t", "8080-8080:80-80", "-t", "::1/9090-9091:90-91", "-u", "5353-5353:53-53",
                "--dns-forward", "169.254.1.1", "-T", "none", "-U", "none", "--no-map-gw", "--quiet", "--pid", "/run/conn.pid",
                "--netns", "/run/user/1000/netns/netns-1", "--map-guest-addr", "169.254.1.2");
        assertThat(o.tcp().mode()).isEqualTo(PortSpec.Mode.SPEC);
        assertThat(o.tcp().target(8080)).isEqualTo(80);
        assertThat(o.tcp().target(9091)).isEqualTo(91);
        assertThat(o.tcp().target(9092)).isEqualTo(-1);
        assertThat(o.tcp().ranges().get(1).address()).isEqualTo(ip("::1"));
        assertThat(o.tcp().ranges().get(0).address()).as("no address: every address, both versions").isNull();
        assertThat(o.udp().target(5353)).isEqualTo(53);
        assertThat(o.pidFile()).isEqualTo("/run/conn.pid");
    }

    @Test
    void rootlesskitsCommandLineWithATargetPid() {
        PastaOptions o = serve("--stderr", "--ns-ifname=tap0", "--mtu=65520", "--config-net", "--address=10.0.2.100",
                "--netmask=24", "--gateway=10.0.2.2", "--dns-forward=10.0.2.3", "--no-map-gw", "--ipv4-only",
                "--tcp-ports=auto", "--udp-ports=none", "--host-lo-to-ns-lo", "4242");
        assertThat(o.targetPid()).isEqualTo(4242);
        assertThat(o.netns()).isEqualTo("/proc/4242/ns/net");
        assertThat(o.userNamespace()).isEqualTo("/proc/4242/ns/user");
        assertThat(o.nsIfname()).isEqualTo("tap0");
        assertThat(o.address().ipv4()).isEqualTo(ip("10.0.2.100"));
        assertThat(o.prefixLengthFor(o.address().ipv4())).isEqualTo(24);
        assertThat(o.gateway().ipv4()).isEqualTo(ip("10.0.2.2"));
        assertThat(o.copyAddrs4()).isFalse();
        assertThat(o.copyRoutes4()).isFalse();
        assertThat(o.copyAddrs6()).as("-a and -g replace their own version only").isTrue();
        assertThat(o.ipv4Only()).isTrue();
        assertThat(o.tcp().mode()).isEqualTo(PortSpec.Mode.AUTO);
        assertThat(o.tcp().isSet()).isTrue();
        assertThat(o.udp().mode()).isEqualTo(PortSpec.Mode.NONE);
        assertThat(o.tcpNs().isSet()).isFalse();
        assertThat(o.tcpNs().mode()).as("pasta's default").isEqualTo(PortSpec.Mode.AUTO);
        assertThat(o.stderr()).isTrue();
        assertThat(o.warnings()).containsExactly("--stderr will be dropped soon");
        assertThat(o.hostLoToNsLo()).isTrue();
        assertThat(o.ignored()).isEmpty();
    }

    @Test
    void rootlesskitsCommandLineWithNamespacePaths() {
        PastaOptions o = serve("--config-net", "--userns=/proc/77/ns/user", "--netns=/proc/77/ns/net", "--tcp-ports=none");
        assertThat(o.netns()).isEqualTo("/proc/77/ns/net");
        assertThat(o.userNamespace()).isEqualTo("/proc/77/ns/user");
        assertThat(o.targetPid()).isEqualTo(-1);
    }

    @Test
    void versionAndTheFeatureProbe() {
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"--host-lo-to-ns-lo", "--version"})) {
            PastaOptions.Exit e = exit(args);
            assertThat(e.status()).isZero();
            assertThat(e.stdout().lines().toList()).hasSize(2);
            assertThat(e.stdout()).startsWith("pasta jslirp-0.1.0\njslirp 0.1.0: ");
            assertThat(e.stderr()).isEmpty();
        }
        // Warnings come before, as pasta prints them when it meets the option.
        assertThat(exit("-e", "--version").stderr()).isEqualTo("--stderr will be dropped soon\n");
    }

    @Test
    void helpGoesToStdoutWithTheCallersName() {
        PastaOptions.Exit e = (PastaOptions.Exit) PastaOptions.parse("/usr/local/bin/pasta", List.of("-q", "--help"), EPHEMERAL, "1");
        assertThat(e.status()).isZero();
        assertThat(e.stdout()).startsWith("Usage: /usr/local/bin/pasta [OPTION]... [COMMAND] [ARGS]...\n"
                + "       /usr/local/bin/pasta [OPTION]... PID\n");
        assertThat(e.stdout()).contains("--map-guest-addr ADDR", "-t, --tcp-ports SPEC", "[ADDR[%IF]/]FIRST").doesNotContain("%%");
        assertThat(exit("-h").stdout()).isEqualTo(e.stdout().replace("/usr/local/bin/pasta", "pasta"));
    }

    /** The lines glibc's getopt prints (checked against Debian's pasta on this machine), then pasta's usage on stderr. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--x                       | pasta: unrecognized option '--x'",
            "--map-guest-addr2=1.2.3.4 | pasta: unrecognized option '--map-guest-addr2=1.2.3.4'",
            "--mtu                     | pasta: option '--mtu' requires an argument",
            "--mt                      | pasta: option '--mtu' requires an argument",
            "-z                        | pasta: invalid option -- 'z'",
            "-+                        | pasta: invalid option -- '+'",
            "-1                        | pasta: invalid option -- '1'",
            "-t                        | pasta: option requires an argument -- 't'",
            "-qt                       | pasta: option requires an argument -- 't'",
            "--foreground=1            | pasta: option '--foreground' doesn't allow an argument",
            "--fo=bar                  | pasta: option '--foreground' doesn't allow an argument",
            "--no-d                    | pasta: option '--no-d' is ambiguous; possibilities: '--no-dhcp' '--no-dhcpv6' '--no-dhcp-dns' '--no-dhcp-search'",
            "--s                       | pasta: option '--s' is ambiguous; possibilities: '--stderr' '--socket' '--search' '--socket-path'",
            "--net=x                   | pasta: option '--net=x' is ambiguous; possibilities: '--netmask' '--netns' '--netns-only'",
    })
    void getoptsRefusalsThenTheUsage(String arg, String line) {
        PastaOptions.Exit e = exit(arg);
        assertThat(e.status()).isEqualTo(1);
        assertThat(e.stderr()).startsWith(line + "\nUsage: pasta [OPTION]... [COMMAND] [ARGS]...\n");
    }

    @Test
    void getoptsMessagesNameTheCallersProgram() {
        PastaOptions.Exit e = (PastaOptions.Exit) PastaOptions.parse("/opt/jslirp/bin/pasta", List.of("--map-guest-addr"), EPHEMERAL, "1");
        assertThat(e.stderr()).startsWith("/opt/jslirp/bin/pasta: option '--map-guest-addr' requires an argument\n");
    }

    @Test
    void uniqueAbbreviationsAndBothArgumentForms() {
        PastaOptions o = serve("--confi", "--netns-o", "--map-g", "192.0.2.9", "--dns-f=192.0.2.53", "--sock", "/tmp/s", "--mt", "1280x");
        PastaOptions.Exit ambiguous = (PastaOptions.Exit) PastaOptions.parse("pasta", List.of("--conf", "--netns", "x"), PortSpec.Ephemeral.DEFAULT, "v");
        assertThat(ambiguous.stderr()).as("--conf-path makes --conf ambiguous, as in pasta")
                .startsWith("pasta: option '--conf' is ambiguous; possibilities: '--config-net' '--conf-path'\n");
        assertThat(o.configNet()).isTrue();
        assertThat(o.mapGuestAddr().ipv4()).isEqualTo(ip("192.0.2.9"));
        assertThat(o.dnsForward().ipv4()).isEqualTo(ip("192.0.2.53"));
        assertThat(o.socketPath()).as("--sock: --socket and --socket-path are one option").isEqualTo("/tmp/s");
        assertThat(o.mtu()).as("strtol stops at the x").isEqualTo(1280);
        assertThat(refusal("--m", "1")).startsWith("pasta: option '--m' is ambiguous; possibilities: '--mtu' '--mac-addr'");
    }

    @Test
    void clusteredShortOptionsAndAttachedValues() {
        PastaOptions o = serve("-fqd", "-t80:8080", "-fu", "53", "-m1500", "-P", "-q");
        assertThat(o.foreground()).isTrue();
        assertThat(o.debug()).isTrue();
        assertThat(o.quiet()).isFalse();
        assertThat(o.tcp().target(80)).isEqualTo(8080);
        assertThat(o.udp().target(53)).isEqualTo(53);
        assertThat(o.mtu()).isEqualTo(1500);
        assertThat(o.pidFile()).as("a required argument is taken even when it looks like an option").isEqualTo("-q");
    }

    @Test
    void optionsEndAtTheFirstOperandOrAtDoubleDash() {
        PastaOptions o = serve("--config-net", "ip", "-6", "route");
        assertThat(o.command()).containsExactly("ip", "-6", "route");
        assertThat(o.ipv6Only()).isFalse();
        assertThat(o.netns()).isNull();
        assertThat(serve("-f", "--", "-x").command()).containsExactly("-x");
        assertThat(serve("--", "123").targetPid()).isEqualTo(123);
        assertThat(serve("-", "x").command()).containsExactly("-", "x");
        assertThat(serve("123", "--bogus").command()).as("two operands: a command, whatever they look like").containsExactly("123", "--bogus");
        assertThat(serve().command()).as("no target: a shell").isEmpty();
    }

    @Test
    void theLastOfRepeatedOrConflictingOptionsWins() {
        PastaOptions o = serve("-4", "-6", "--pid", "a", "--pid", "b", "-m", "1280", "-m", "9000", "-q", "-d",
                "-a", "192.0.2.7", "-a", "2001:db8::7", "-a", "192.0.2.8", "--netmask", "255.255.0.0");
        assertThat(o.ipv6Only()).isTrue();
        assertThat(o.ipv4Only()).isFalse();
        assertThat(o.pidFile()).isEqualTo("b");
        assertThat(o.mtu()).isEqualTo(9000);
        assertThat(o.debug()).isTrue();
        assertThat(o.quiet()).isFalse();
        assertThat(o.address()).isEqualTo(new AddressPair(Inet.parse4("192.0.2.8"), Inet.parse6("2001:db8::7")));
        assertThat(o.prefixLengthFor(o.address().ipv4())).isEqualTo(16);
        PastaOptions t = serve("--trace", "-q");
        assertThat(t.quiet()).isTrue();
        assertThat(t.debug() || t.trace()).isFalse();
        assertThat(serve("-q", "--trace").trace()).isTrue();
    }

    @Test
    void addressesByClassWithoutANetmask() {
        PastaOptions o = serve("-a", "10.1.2.3");
        assertThat(o.prefixLengthFor(o.address().ipv4())).isEqualTo(8);
        assertThat(o.prefixLengthFor(Inet.parse4("172.16.5.5"))).isEqualTo(16);
        assertThat(o.prefixLengthFor(Inet.parse4("192.0.2.7"))).isEqualTo(24);
        assertThat(serve("-n", "0x1c").netmask()).isEqualTo(28);
        assertThat(serve("-n", "255.255.255.255").netmask()).isEqualTo(32);
    }

    @Test
    void mtuZeroLeavesTheInterfaceAlone() {
        assertThat(serve("-m", "0").mtu()).isZero();
        assertThat(serve("-m", "abc").mtu()).as("strtol reads no digits: 0").isZero();
        assertThat(serve("-m", "68").mtu()).isEqualTo(68);
        assertThat(serve("-m", "0x400").mtu()).isEqualTo(1024);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "-m 67                          | Invalid MTU: 67",
            "-m 65536                       | Invalid MTU: 65536",
            "-m 99999999999999999999        | Invalid MTU: 99999999999999999999",
            "-a 127.0.0.1                   | Invalid address: 127.0.0.1",
            "-a ::1                         | Invalid address: ::1",
            "-a ::ffff:192.0.2.1            | Invalid address: ::ffff:192.0.2.1",
            "-a ::2                         | Invalid address: ::2",
            "-a 224.0.0.1                   | Invalid address: 224.0.0.1",
            "-a ff02::1                     | Invalid address: ff02::1",
            "-a 255.255.255.255             | Invalid address: 255.255.255.255",
            "-a 192.0.2.01                  | Invalid address: 192.0.2.01",
            "-a host.example                | Invalid address: host.example",
            "-n 33                          | Invalid netmask: 33",
            "-n 255.0.255.0                 | Invalid netmask: 255.0.255.0",
            "-n -1                          | Invalid netmask: -1",
            "-M 00:11:22:33:44              | Invalid MAC address: 00:11:22:33:44",
            "--ns-mac-addr 00:11:22:33:44:5g | Invalid MAC address: 00:11:22:33:44:5g",
            "-g 0.0.0.0                     | Invalid gateway address: 0.0.0.0",
            "-g ::1                         | Invalid gateway address: ::1",
            "--dns-forward 127.0.0.1        | Invalid DNS forwarding address: 127.0.0.1",
            "--dns-forward ::1              | Invalid DNS forwarding address: ::1",
            "--dns-forward 255.255.255.255  | Invalid DNS forwarding address: 255.255.255.255",
            "--dns-host 0.0.0.0             | Invalid host nameserver address: 0.0.0.0",
            "--map-guest-addr 127.0.0.1     | Invalid address to remap to host: 127.0.0.1",
            "--map-host-loopback ff02::2    | Invalid address to remap to host: ff02::2",
            "-o 0.0.0.0                     | Invalid or redundant outbound address: 0.0.0.0",
            "-I 0123456789abcdef            | Invalid interface name: 0123456789abcdef",
            "--outbound-if4 0123456789abcdef | Invalid interface name: 0123456789abcdef",
            "--log-size 100                 | Invalid --log-size: 100",
            "--fd 2                         | Invalid --fd: 2",
            "-D foo                         | Cannot use DNS address foo",
            "--no-dhcp-dns                  | --no-dhcp-dns is for passt mode only",
            "--no-dhcp-search               | --no-dhcp-search is for passt mode only",
            "--one-off                      | --one-off is for passt mode only",
            "--vhost-user                   | --vhost-user is for passt mode only",
            "-1x                            | pasta: invalid option -- '1'",
            "-1 --version                   | pasta: invalid option -- '1'",
            "-m 5 --version                 | Invalid MTU: 5",
            "-- -1                          | Invalid PID -1",
            "99999999999                    | Invalid PID 99999999999",
            "--netns x 123                  | Both --netns and PID or command given",
            "--netns x -T bad sh -c true    | Both --netns and PID or command given",
            "-T bad -t alsobad              | Invalid port specifier alsobad",
            "-T 127.0.0.1/80                | Invalid port specifier 127.0.0.1/80",
            "-t none -t 80                  | Specific ports cannot be specified together with all/none/auto",
            "-t 80 -t none                  | Port forwarding mode 'none' conflicts with previous mode",
            "-u auto -u auto                | Port forwarding mode 'auto' conflicts with previous mode",
            "-t 80 --no-tcp                 | TCP port forwarding requested but TCP is disabled",
            "--no-udp -U 53                 | UDP port forwarding requested but UDP is disabled",
    })
    void pastasRefusals(String args, String line) {
        assertThat(refusal(args.trim().split("\\s+"))).isEqualTo(line);
    }

    @Test
    void valueErrorsHaveNoUsage() {
        assertThat(exit("-m", "67").stderr()).isEqualTo("Invalid MTU: 67\n");
    }

    @Test
    void deprecatedOptionsWarnAndNeedConfigNet() {
        assertThat(exit("--no-copy-routes").stderr())
                .isEqualTo("--no-copy-routes will be dropped soon\n--no-copy-routes needs --config-net\n");
        assertThat(refusal("--no-copy-addrs")).isEqualTo("--no-copy-addrs will be dropped soon");
        PastaOptions o = serve("--config-net", "--no-copy-routes", "--no-copy-addrs");
        assertThat(o.copyRoutes4() || o.copyRoutes6() || o.copyAddrs4() || o.copyAddrs6()).isFalse();
        assertThat(o.warnings()).hasSize(2);
    }

    @Test
    void acceptedValuesAtTheirLimits() {
        PastaOptions o = serve("--dns-host", "::1", "--dns-host", "127.0.0.53", "--map-host-loopback", "192.0.2.254",
                "-o", "127.0.0.1", "--log-size", "-1", "-F", "3", "-I", "0123456789abcde", "--runas", "nobody");
        assertThat(o.dnsHost()).isEqualTo(new AddressPair(Inet.parse4("127.0.0.53"), Inet.parse6("::1")));
        assertThat(o.mapHostLoopback().ipv4()).isEqualTo(ip("192.0.2.254"));
        assertThat(o.noMapGw()).isFalse();
        assertThat(o.outbound().ipv4()).isEqualTo(ip("127.0.0.1"));
        assertThat(o.logSize()).as("a size_t: -1 is the largest").isEqualTo(-1L);
        assertThat(o.fd()).isEqualTo(3);
        assertThat(o.nsIfname()).isEqualTo("0123456789abcde");
        assertThat(o.ignored()).containsExactly("--log-size", "--fd", "--runas");
    }

    @Test
    void noneRemapsNothing() {
        PastaOptions o = serve("--map-host-loopback", "192.0.2.254", "--map-host-loopback", "none", "--map-guest-addr", "none");
        assertThat(o.mapHostLoopback().isEmpty()).isTrue();
        assertThat(o.noMapGw()).as("no default mapping of the gateway either").isTrue();
        assertThat(o.mapGuestAddr().isEmpty()).isTrue();
    }

    @Test
    void dnsNoneClearsForwardingWhereverItStands() {
        PastaOptions o = serve("-D", "none", "--dns-forward", "169.254.1.1", "--dns-host", "192.0.2.53");
        assertThat(o.noDns()).isTrue();
        assertThat(o.dnsForward().isEmpty()).isTrue();
        assertThat(o.dnsHost().isEmpty()).isTrue();
        PastaOptions d = serve("-D", "192.0.2.1", "-D", "2001:db8::1", "-D", "192.0.2.2", "-D", "192.0.2.3", "-D", "192.0.2.4");
        assertThat(d.dns()).containsExactly(ip("192.0.2.1"), ip("2001:db8::1"), ip("192.0.2.2"), ip("192.0.2.3"));
        assertThat(d.ignored()).containsExactly("--dns");
    }

    @Test
    void namespaceTargets() {
        assertThat(serve("--netns", "ns0").netns()).isEqualTo("/run/netns/ns0");
        assertThat(serve("--netns=./ns0").netns()).isEqualTo("./ns0");
        PastaOptions pid = serve("--netns-only", "99");
        assertThat(pid.netns()).isEqualTo("/proc/99/ns/net");
        assertThat(pid.userNamespace()).isNull();
        assertThat(serve("--netns-only", "--userns", "/proc/5/ns/user", "99").userNamespace()).isEqualTo("/proc/5/ns/user");
        assertThat(serve("--userns", "/u", "--netns-only", "--netns", "/n").userNamespace()).isNull();
        assertThat(serve(" 12").targetPid()).as("strtol skips white space").isEqualTo(12);
        assertThat(serve("12x").command()).containsExactly("12x");
    }

    @Test
    void searchDomains() {
        assertThat(serve("-S", "a.example", "-S", "b.example").search()).containsExactly("a.example", "b.example");
        PastaOptions none = serve("-S", "a.example", "-S", "none");
        assertThat(none.search()).isEmpty();
        assertThat(none.noSearch()).isTrue();
        assertThat(refusal("-S", "1", "-S", "2", "-S", "3", "-S", "4", "-S", "5", "-S", "6", "-S", "7"))
                .isEqualTo("Cannot use DNS search domain 7");
    }

    @Test
    void printCapabilitiesAnswersAsPassts() {
        PastaOptions.Exit e = exit("--print-capabilities");
        assertThat(e.status()).isZero();
        assertThat(e.stderr()).isEqualTo("{\n  \"type\": \"net\"\n}\n");
    }

    @Test
    void flagsAreRecorded() {
        PastaOptions o = serve("--no-tcp", "--no-udp", "--no-icmp", "--no-dhcp", "--no-dhcpv6", "--no-ndp", "--no-ra",
                "--no-splice", "--freebind", "--no-netns-quit", "--dhcp-dns", "--dhcp-search", "-M", "9a:55:9A:55:9a:55",
                "--ns-mac-addr", "02:00:00:00:00:01", "-i", "eth0", "--outbound-if6", "eth1", "-p", "/tmp/p.pcap", "-l", "/tmp/log",
                "-t", "none", "-T", "none");
        assertThat(o.noTcp() && o.noUdp() && o.noIcmp() && o.noDhcp() && o.noDhcpv6() && o.noNdp() && o.noRa()
                && o.noSplice() && o.freebind() && o.noNetnsQuit() && o.dhcpDns() && o.dhcpSearch()).isTrue();
        assertThat(o.macAddr()).containsExactly(0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55);
        assertThat(o.nsMacAddr()).containsExactly(2, 0, 0, 0, 0, 1);
        assertThat(o.interfaceName()).isEqualTo("eth0");
        assertThat(o.outboundIf6()).isEqualTo("eth1");
        assertThat(o.pcap()).isEqualTo("/tmp/p.pcap");
        assertThat(o.logFile()).isEqualTo("/tmp/log");
        assertThat(o.ignored()).containsExactly("--no-tcp", "--no-udp", "--no-icmp", "--no-dhcp", "--no-dhcpv6", "--no-ndp",
                "--no-ra", "--freebind", "--dhcp-dns", "--dhcp-search", "--outbound-if6");
    }

    @Test
    void theOptionsJslirpTakesWithoutActingOnThem() {
        assertThat(PastaOptions.unsupported()).containsKeys("--runas", "-D/--dns", "-F/--fd", "--socket",
                "--freebind", "--outbound-if4", "--outbound-if6").hasSize(18);
        assertThat(PastaOptions.unsupported()).doesNotContainKeys("--host-lo-to-ns-lo", "--no-splice");
        assertThat(PastaOptions.unsupported()).doesNotContainKeys("--config-net", "-t/--tcp-ports", "--map-guest-addr", "-p/--pcap");
        // --help lists them.
        String help = exit("--help").stdout();
        PastaOptions.unsupported().keySet().forEach(k -> assertThat(help).contains(k.substring(k.indexOf("--"))));
    }
}
