package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.sys.Netlink;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class HostNetworkTest {
    /** This machine's files when the test was written: eth0 with 192.0.2.2/24 via 192.0.2.1, fd00::2/64 via fd00::1. */
    private static final String ROUTE = """
            Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
            eth0	00000000	010200C0	0003	0	0	0	00000000	0	0	0
            eth0	000200C0	00000000	0001	0	0	0	00FFFFFF	0	0	0
            """;
    private static final String IPV6_ROUTE = """
            fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
            fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000002 00000000 00000001     eth0
            00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0
            00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000004 00000000 80200001       lo
            fd000000000000000000000000000002 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000003 00000000 80200001     eth0
            fe8000000000000000fc00fffe000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001     eth0
            ff000000000000000000000000000000 08 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000003 00000000 00000001     eth0
            00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo
            """;
    private static final String IF_INET6 = """
            fe8000000000000000fc00fffe000001 04 40 20 80     eth0
            fd000000000000000000000000000002 04 40 00 82     eth0
            00000000000000000000000000000001 01 80 10 80       lo
            """;
    private static final Function<String, List<HostNetwork.Prefixed>> ETH0 =
            name -> name.equals("eth0") ? List.of(prefixed("192.0.2.2", 24)) : List.of();

    static {
        // The samples were taken on a little-endian machine (x86-64), whose /proc/net/route words they are.
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
    }

    private static InetAddress ip(String s) {
        return Inet.parse(s);
    }

    private static HostNetwork.Prefixed prefixed(String a, int n) {
        return new HostNetwork.Prefixed(ip(a), n);
    }

    private static List<String> routes(HostNetwork.Template t) {
        return t.routes().stream().map(r -> r + (r.metric() > 0 ? " metric " + r.metric() : "")).toList();
    }

    @Test
    void thisMachinesSample() {
        HostNetwork n = HostNetwork.of(ROUTE, IPV6_ROUTE, IF_INET6, ETH0, List.of("nameserver 10.255.255.53"), null, null);
        assertThat(n.ipv4().ifname()).isEqualTo("eth0");
        assertThat(n.ipv4().address()).isEqualTo(prefixed("192.0.2.2", 24));
        assertThat(n.ipv4().gateway()).isEqualTo(ip("192.0.2.1"));
        assertThat(routes(n.ipv4())).containsExactly("default via 192.0.2.1", "192.0.2.0/24");
        assertThat(n.ipv4().linkLocal()).isNull();

        assertThat(n.ipv6().ifname()).isEqualTo("eth0");
        assertThat(n.ipv6().addresses()).containsExactly(prefixed("fd00::2", 64));
        assertThat(n.ipv6().gateway()).isEqualTo(ip("fd00::1"));
        assertThat(n.ipv6().linkLocal()).isEqualTo(ip("fe80::fc:ff:fe00:1"));
        assertThat(routes(n.ipv6())).as("main table only: no local, multicast or unreachable routes")
                .containsExactly("fd00::/64 metric 256", "fe80::/64 metric 256", "default via fd00::1 metric 1024");

        assertThat(n.nameservers()).containsExactly(ip("10.255.255.53"));
        assertThat(n.dnsHost4()).isEqualTo(ip("10.255.255.53"));
        assertThat(n.dnsHost6()).isNull();
    }

    @Test
    void eachVersionPicksItsOwnTemplate() {
        String route = """
                Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT
                *	0000000A	00000000	0201	0	0	0	000000FF	0	0	0
                wlan0	0000FEA9	00000000	0001	0	0	1000	0000FFFF	0	0	0
                eth1	00000A0A	00000000	0001	0	0	0	0000FFFF	0	0	0
                wlan0	00000000	FE01A8C0	0003	0	0	600	00000000	0	0	0
                wlan0	0001A8C0	00000000	0001	0	0	600	00FFFFFF	0	0	0
                eth1	00000000	01000A0A	0003	0	0	700	00000000	0	0	0
                wlan0	0000000B	FE01A8C0	0003	0	0	600	000000FF	0	0	0
                """;
        String ipv6Route = """
                20010db8000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth1
                00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000002 00000000 00450003     eth1
                """;
        String ifInet6 = """
                fe800000000000000000000000000099 05 40 20 80     eth1
                20010db8000000000000000000000099 05 40 00 00     eth1
                20010db8000000000000000000000098 05 40 00 20     eth1
                20010db8000000000000000000000097 05 38 00 80     eth1
                """;
        Map<String, List<HostNetwork.Prefixed>> v4 = Map.of("wlan0", List.of(prefixed("192.168.1.5", 24), prefixed("192.168.1.6", 32)));
        HostNetwork n = HostNetwork.of(route, ipv6Route, ifInet6, name -> v4.getOrDefault(name, List.of()),
                List.of("# comment", "nameserver ::1", "nameserver\t192.0.2.9", "nameserver 127.0.0.53 ", "nameserver fe80::1%eth1",
                        "options edns0", "nameserver 127.0.0.53", "nameserver not-an-address"), null, null);
        assertThat(n.ipv4().ifname()).as("the first default route; the link-local route and the rejecting one do not count").isEqualTo("wlan0");
        assertThat(n.ipv4().gateway()).isEqualTo(ip("192.168.1.254"));
        assertThat(n.ipv4().address()).as("the longest prefix").isEqualTo(prefixed("192.168.1.6", 32));
        assertThat(routes(n.ipv4())).containsExactly("169.254.0.0/16 metric 1000", "default via 192.168.1.254 metric 600",
                "192.168.1.0/24 metric 600", "11.0.0.0/8 via 192.168.1.254 metric 600");
        assertThat(n.ipv6().ifname()).isEqualTo("eth1");
        assertThat(n.ipv6().addresses()).as("not the deprecated one").containsExactly(prefixed("2001:db8::99", 64), prefixed("2001:db8::97", 56));
        assertThat(n.ipv6().address()).isEqualTo(prefixed("2001:db8::99", 64));
        assertThat(n.ipv6().linkLocal()).as("a link-local gateway is pasta's own address").isEqualTo(ip("fe80::1"));
        assertThat(n.nameservers()).containsExactly(ip("::1"), ip("fe80::1"), ip("127.0.0.53"));
        assertThat(n.dnsHost4()).isEqualTo(ip("127.0.0.53"));
        assertThat(n.dnsHost6()).isEqualTo(ip("::1"));
    }

    @Test
    void aVersionWithoutWhatPastaNeedsIsLeftOut() {
        String linkLocalOnly = "fe8000000000000000fc00fffe000001 04 40 20 80     eth0\n";
        HostNetwork n = HostNetwork.of(ROUTE, IPV6_ROUTE, linkLocalOnly, name -> List.of(), List.of(), null, null);
        assertThat(n.ipv4()).as("no IPv4 address on the template").isNull();
        assertThat(n.ipv6()).as("no global IPv6 address").isNull();
        String globalOnly = "fd000000000000000000000000000002 04 40 00 82     eth0\n";
        assertThat(HostNetwork.of(ROUTE, IPV6_ROUTE, globalOnly, ETH0, List.of(), null, null).ipv6())
                .as("no link-local address to send NDP from").isNull();
        HostNetwork none = HostNetwork.of("Iface\tDestination\n", "", "", ETH0, List.of(), null, null);
        assertThat(none.ipv4()).isNull();
        assertThat(none.ipv6()).isNull();
        assertThat(none.nameservers()).isEmpty();
    }

    @Test
    void aNamedTemplateNeedsNoRoute() {
        HostNetwork n = HostNetwork.of("", "", IF_INET6, ETH0, List.of(), "eth0", "eth0");
        assertThat(n.ipv4().address()).isEqualTo(prefixed("192.0.2.2", 24));
        assertThat(n.ipv4().gateway()).isNull();
        assertThat(n.ipv4().routes()).isEmpty();
        assertThat(n.ipv6().linkLocal()).isEqualTo(ip("fe80::fc:ff:fe00:1"));
        assertThatThrownBy(() -> HostNetwork.read("nosuch9", null)).isInstanceOf(PastaError.class)
                .hasMessage("Invalid interface name nosuch9: No such device");
    }

    @Test
    void readsThisMachine() throws Exception {
        Process p = new ProcessBuilder("ip", "-o", "addr", "show", "eth0").redirectErrorStream(true).start();
        String eth0 = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Assumptions.assumeTrue(eth0.contains("inet 192.0.2.2/24") && eth0.contains("inet6 fd00::2/64"), "eth0 as on the test machines");
        HostNetwork n = HostNetwork.read(null, null);
        assertThat(n.ipv4().ifname()).isEqualTo("eth0");
        assertThat(n.ipv4().addresses()).containsExactly(prefixed("192.0.2.2", 24));
        assertThat(n.ipv4().gateway()).isEqualTo(ip("192.0.2.1"));
        assertThat(n.ipv4().routes()).contains(Netlink.Route.defaultVia(ip("192.0.2.1")), new Netlink.Route(ip("192.0.2.0"), 24, null, 0));
        assertThat(n.ipv6().ifname()).isEqualTo("eth0");
        assertThat(n.ipv6().addresses()).containsExactly(prefixed("fd00::2", 64));
        assertThat(n.ipv6().gateway()).isEqualTo(ip("fd00::1"));
        assertThat(Inet.linkLocal6(n.ipv6().linkLocal())).isTrue();
        assertThat(n.ipv6().routes()).contains(new Netlink.Route(ip("::"), 0, ip("fd00::1"), 1024));
        assertThat(n.nameservers()).isNotEmpty();
        assertThat(n.nameservers()).allMatch(a -> !Inet.unspecified(a));
    }
}
