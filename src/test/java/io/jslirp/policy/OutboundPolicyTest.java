package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.policy.DestinationRules.Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboundPolicyTest {
    private static final int GATEWAY = ip("10.0.2.2"), LOOPBACK = ip("127.0.0.1");

    private static final AddressBook BOOK = new AddressBook();

    private static int ip(String a) {
        return Ipv4.parse(a);
    }

    /** The policy's view: targets of handles, as handles, in the IPv4 addresses they stand for (refusals as they are). */
    private record Policy(OutboundPolicy policy) {
        int target(int address) {
            int handle = BOOK.acquire4(address);
            int t = policy.target(handle);
            int result = t > 0 ? BOOK.ipv4(t) : t;
            BOOK.release(handle);
            return result;
        }
    }

    private static Policy policy(boolean hostLoopback, DestinationRules rules) {
        return new Policy(new OutboundPolicy(BOOK, AddressPlan.of(NetworkConfig.fromCidr("10.0.2.0/24", 1500, hostLoopback)), rules, null,
                HostSockets.SYSTEM));
    }

    private static DestinationRules rules(List<String> allow, List<String> deny) {
        return new DestinationRules(allow.stream().map(Network::parse).toList(), deny.stream().map(Network::parse).toList());
    }

    @Test
    void theGatewayIsHostLoopbackAndOtherAddressesThemselves() {
        Policy p = policy(true, DestinationRules.NONE);
        assertThat(p.target(GATEWAY)).isEqualTo(LOOPBACK);
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
        assertThat(p.target(ip("127.0.0.53"))).as("a crafted frame to loopback, allowed with host loopback").isEqualTo(ip("127.0.0.53"));
    }

    @Test
    void addressesThatAreNoHostAreUnreachable() {
        Policy p = policy(true, DestinationRules.NONE);
        for (String a : List.of("10.0.2.3", "10.0.2.77", "10.0.2.255", "0.0.0.0", "0.1.2.3", "224.0.0.1", "240.0.0.1", "255.255.255.255")) {
            assertThat(p.target(ip(a))).as(a).isEqualTo(OutboundPolicy.UNREACHABLE);
        }
    }

    @Test
    void withoutHostLoopbackTheGatewayAndEveryLoopbackAddressHaveNoRoute() {
        Policy p = policy(false, DestinationRules.NONE);
        assertThat(p.target(GATEWAY)).isEqualTo(OutboundPolicy.NO_ROUTE);
        for (String a : List.of("127.0.0.1", "127.0.0.53", "127.255.255.254")) {
            assertThat(p.target(ip(a))).as(a).isEqualTo(OutboundPolicy.NO_ROUTE);
        }
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
        assertThat(policy(false, rules(List.of("127.0.0.0/8"), List.of())).target(GATEWAY))
                .as("an --allow does not reopen it").isEqualTo(OutboundPolicy.NO_ROUTE);
    }

    @Test
    void refusalsAreAnsweredNetUnreachableForLoopbackAndAdminProhibitedForTheRules() {
        assertThat(OutboundPolicy.refusalCode(OutboundPolicy.NO_ROUTE)).as("libslirp's answer").isEqualTo(Icmpv4.CODE_NET_UNREACHABLE);
        assertThat(OutboundPolicy.refusalCode(OutboundPolicy.PROHIBITED)).isEqualTo(Icmpv4.CODE_ADMIN_PROHIBITED);
        for (int notRefused : new int[] {OutboundPolicy.UNREACHABLE, LOOPBACK, ip("192.0.2.1"), ip("203.0.113.9")}) {
            assertThat(OutboundPolicy.refusalCode(notRefused)).isEqualTo(-1);
        }
    }

    @Test
    void denyWinsOverAllowAndAnAllowListRefusesEverythingElse() {
        Policy p = policy(true, rules(List.of("192.0.2.0/24"), List.of("192.0.2.128/25")));
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
        assertThat(p.target(ip("192.0.2.127"))).isEqualTo(ip("192.0.2.127"));
        assertThat(p.target(ip("192.0.2.200"))).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("198.51.100.1"))).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(GATEWAY)).as("the gateway counts as 127.0.0.1").isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("10.0.2.77"))).as("no host: still unreachable").isEqualTo(OutboundPolicy.UNREACHABLE);
    }

    @Test
    void denyingLoopbackClosesTheGatewayWithoutTheFlag() {
        Policy p = policy(true, rules(List.of(), List.of("127.0.0.0/8")));
        assertThat(p.target(GATEWAY)).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
    }

    @Test
    void networksParse() {
        assertThat(Network.parse("192.0.2.77/24")).isEqualTo(Network.ipv4(ip("192.0.2.0"), 24));
        assertThat(Network.parse("192.0.2.77/24")).hasToString("192.0.2.0/24");
        assertThat(Network.parse("192.0.2.77")).isEqualTo(Network.ipv4(ip("192.0.2.77"), 32));
        assertThat(Network.parse("192.0.2.77")).as("IPv4-mapped, but IPv4's").isNotEqualTo(Network.parse("::ffff:192.0.2.77/128"))
                .isEqualTo(Network.ipv4(0xc000024d, 32));
        assertThat(Network.parse("2001:db8::77/32")).hasToString("2001:db8::/32");
        assertThat(Network.parse("2001:db8::77")).hasToString("2001:db8::77/128");
        assertThat(Network.parse("::1")).hasToString("::1/128");
        assertThat(Network.parse("::/0")).hasToString("::/0");
        assertThatThrownBy(() -> Network.parse("192.0.2.0/33")).hasMessageContaining("0-32");
        assertThatThrownBy(() -> Network.parse("192.0.2.0/")).hasMessageContaining("0-32");
        assertThatThrownBy(() -> Network.parse("192.0.2/24")).hasMessageContaining("IPv4");
        assertThatThrownBy(() -> Network.parse("2001:db8::/129")).hasMessageContaining("0-128");
        assertThatThrownBy(() -> Network.parse("2001:db8::/-1")).hasMessageContaining("0-128");
        assertThatThrownBy(() -> Network.parse("2001:db8:::1/64")).hasMessageContaining("IPv6");
        assertThatThrownBy(() -> Network.parse("fe80::1%eth0")).as("no zone").hasMessageContaining("IPv6");
        assertThatThrownBy(() -> Network.parse("ip6-localhost:/128")).as("never a host name").hasMessageContaining("IPv6");
        assertThatThrownBy(() -> Network.parse(".::1")).as("nor what the JDK would take for one").hasMessageContaining("IPv6");
    }

    /** One match for both versions: prefixes of every length, at the bits around each boundary. */
    @Test
    void networksContainExactlyTheirPrefixInBothVersions() {
        long[] a = Ipv6.parse("2001:db8:1234:5678:9abc:def0:1357:9bdf");
        for (int len = 0; len <= 128; len++) {
            DestinationRules only = rules(List.of(Ipv6.format(a[0], a[1]) + "/" + len), List.of());
            assertThat(only.permits(a[0], a[1])).as("/%d holds its own address", len).isTrue();
            for (int bit = 0; bit < 128; bit++) {
                long hi = bit < 64 ? a[0] ^ (1L << (63 - bit)) : a[0], lo = bit < 64 ? a[1] : a[1] ^ (1L << (127 - bit));
                assertThat(only.permits(hi, lo)).as("/%d, bit %d flipped", len, bit).isEqualTo(bit >= len);
            }
        }
        int v4 = ip("198.51.100.77");
        for (int len = 0; len <= 32; len++) {
            DestinationRules only = rules(List.of("198.51.100.77/" + len), List.of());
            for (int bit = 0; bit < 32; bit++) {
                assertThat(only.permits(v4 ^ (1 << (31 - bit)))).as("/%d, bit %d flipped", len, bit).isEqualTo(bit >= len);
            }
            assertThat(only.permits(a[0], a[1])).as("an IPv4 network holds no IPv6 address").isFalse();
        }
    }

    @Test
    void rulesOfEitherVersionTakePartInBoth() {
        DestinationRules v6Only = rules(List.of("2001:db8::/32"), List.of());
        assertThat(v6Only.permits(ip("192.0.2.1"))).as("any --allow closes what it does not name, IPv4 too").isFalse();
        long[] inside = Ipv6.parse("2001:db8::1"), outside = Ipv6.parse("2001:db9::1");
        assertThat(v6Only.permits(inside[0], inside[1])).isTrue();
        assertThat(v6Only.permits(outside[0], outside[1])).isFalse();
        DestinationRules denyAll6 = rules(List.of(), List.of("::/0"));
        assertThat(denyAll6.permits(ip("192.0.2.1"))).as("::/0 is every IPv6 destination, no IPv4 one").isTrue();
        assertThat(denyAll6.permits(inside[0], inside[1])).isFalse();
        DestinationRules allowAll6 = rules(List.of("::/0"), List.of());
        assertThat(allowAll6.permits(ip("192.0.2.1"))).as("an IPv6 network does not allow IPv4").isFalse();
        assertThat(allowAll6.permits(inside[0], inside[1])).isTrue();
        long[] mapped = Ipv6.parse("::ffff:192.0.2.1");
        assertThat(rules(List.of("::ffff:192.0.2.0/120"), List.of()).permits(ip("192.0.2.1")))
                .as("written as IPv6, a network is IPv6's, even an IPv4-mapped one").isFalse();
        assertThat(rules(List.of("192.0.2.0/24"), List.of()).permits(mapped[0], mapped[1])).as("the mapped form is IPv4's").isTrue();
        DestinationRules denyGlobal6 = rules(List.of(), List.of("2000::/3"));
        assertThat(denyGlobal6.permits(ip("192.0.2.1"))).isTrue();
        assertThat(denyGlobal6.permits(inside[0], inside[1])).isFalse();
        long[] loopback = Ipv6.parse("::1");
        assertThat(rules(List.of("127.0.0.0/8"), List.of()).permits(loopback[0], loopback[1])).as("::1 is not 127.0.0.1").isFalse();
    }
}
