package io.jslirp.nat;

import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.policy.DestinationRules;
import io.jslirp.policy.Nameserver;
import io.jslirp.policy.DnsServers;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The one decision of where a new flow goes, for each protocol and both versions. */
class DestinationsTest {
    private static final int TCP = Ipv4.PROTO_TCP, UDP = Ipv4.PROTO_UDP, ICMP = Ipv4.PROTO_ICMP;

    static Stream<Version> versions() {
        return Stream.of(Version.V4, Version.V6);
    }

    private static NatHarness harness(Version v, DestinationRules rules) {
        NatHarness.Builder b = NatHarness.with().rules(rules);
        return (v.ipv6() ? b.ipv6() : b).build();
    }

    private static int handle(NatHarness h, String address) {
        long[] a = Packet.halves(address);
        int handle = h.flowTable().addresses().acquire(a[0], a[1]);
        h.flowTable().addresses().release(handle); // the family's policy holds the gateway's and loopback's
        return handle;
    }

    private static String where(long decision) {
        return switch (Destinations.what(decision)) {
            case Destinations.HOST -> "host";
            case Destinations.NAMESERVERS -> "nameservers";
            case Destinations.TFTP -> "tftp";
            case Destinations.REFUSED -> "refused " + Destinations.value(decision);
            default -> "unreachable";
        };
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theGatewayIsTheHostsLoopbackForEveryProtocol(Version v) {
        NatHarness h = harness(v, DestinationRules.NONE);
        Family f = h.family(v);
        Destinations d = new Destinations(null);
        int gateway = handle(h, v.gateway()), loopback = handle(h, v.hostLoopback());
        for (int protocol : new int[] {TCP, UDP, ICMP}) {
            long decision = d.decide(f, protocol, gateway, 8080);
            assertThat(where(decision)).isEqualTo("host");
            assertThat(Destinations.value(decision)).isEqualTo(loopback);
        }
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theDnsAddressIsTheNameserversForTcpAndUdpUnlessDnsIsDisabled(Version v) {
        NatHarness h = harness(v, DestinationRules.NONE);
        Family f = h.family(v);
        int dns = handle(h, v.dns());
        Destinations served = new Destinations(DnsServers.of(List.of(Nameserver.parse("127.0.0.53")), null));
        assertThat(where(served.decide(f, UDP, dns, 53))).isEqualTo("nameservers");
        assertThat(where(served.decide(f, TCP, dns, 53))).isEqualTo("nameservers");
        assertThat(where(served.decide(f, UDP, dns, 54))).as("another port: no host behind it").isEqualTo("unreachable");
        Destinations none = new Destinations(DnsServers.of(List.of(), null));
        assertThat(where(none.decide(f, TCP, dns, 53))).as("no nameserver: TCP is refused").isEqualTo("unreachable");
        assertThat(where(none.decide(f, UDP, dns, 53))).as("UDP: the forwarder counts it unanswered").isEqualTo("nameservers");
        assertThat(where(new Destinations(null).decide(f, UDP, dns, 53))).as("--disable-dns").isEqualTo("unreachable");
        // pasta's model: one version without a nameserver of its own or the other's refuses TCP there alone
        Destinations split = new Destinations(DnsServers.of(v.ipv6() ? List.of(Nameserver.parse("127.0.0.53")) : List.of(),
                v.ipv6() ? List.of() : List.of(Nameserver.parse("::1"))));
        assertThat(where(split.decide(f, TCP, dns, 53))).as("this version's list is empty").isEqualTo("unreachable");
    }

    @ParameterizedTest
    @MethodSource("versions")
    void tftpIsTheIpv4GatewaysUdpPort69OnceServed(Version v) {
        NatHarness h = harness(v, DestinationRules.NONE);
        Family f = h.family(v);
        int gateway = handle(h, v.gateway());
        Destinations d = new Destinations(null);
        assertThat(where(d.decide(f, UDP, gateway, 69))).as("not served: the host's port").isEqualTo("host");
        d.serveTftp();
        assertThat(where(d.decide(f, UDP, gateway, 69))).isEqualTo(v.ipv6() ? "host" : "tftp");
        assertThat(where(d.decide(f, TCP, gateway, 69))).isEqualTo("host");
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theRulesRefusalCarriesItsIcmpCode(Version v) {
        DestinationRules denyLoopback = new DestinationRules(List.of(), List.of(DestinationRules.Network.parse(v.ipv6() ? "::1" : "127.0.0.0/8")));
        NatHarness h = harness(v, denyLoopback);
        Family f = h.family(v);
        int gateway = handle(h, v.gateway());
        Destinations d = new Destinations(null);
        for (int protocol : new int[] {TCP, UDP, ICMP}) {
            assertThat(where(d.decide(f, protocol, gateway, 80))).isEqualTo("refused " + Icmpv4.CODE_ADMIN_PROHIBITED);
        }
    }
}
