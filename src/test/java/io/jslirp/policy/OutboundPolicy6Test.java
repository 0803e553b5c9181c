package io.jslirp.policy;

import io.jslirp.policy.DestinationRules.Network;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OutboundPolicy6Test {
    private final AddressBook book = new AddressBook();

    private int handle(String text) {
        long[] a = Ipv6.parse(text);
        return book.acquire(a[0], a[1]);
    }

    private String target(int handle) {
        return switch (handle) {
            case OutboundPolicy.UNREACHABLE -> "unreachable";
            case OutboundPolicy.PROHIBITED -> "prohibited";
            case OutboundPolicy.NO_ROUTE -> "no route";
            default -> Ipv6.format(book.hi(handle), book.lo(handle));
        };
    }

    private OutboundPolicy policy(boolean hostLoopback) {
        return policy(hostLoopback, DestinationRules.NONE);
    }

    private OutboundPolicy policy(boolean hostLoopback, DestinationRules rules) {
        return new OutboundPolicy(book, AddressPlan.of(Ipv6Network.defaults(NetworkConfig.fromCidr("10.0.2.0/24", 1500, hostLoopback))), rules,
                null, HostSockets.SYSTEM);
    }

    private static DestinationRules rules(List<String> allow, List<String> deny) {
        return new DestinationRules(allow.stream().map(Network::parse).toList(), deny.stream().map(Network::parse).toList());
    }

    @Test
    void gatewayIsHostLoopback() {
        OutboundPolicy p = policy(true);
        assertThat(target(p.target(handle("fd00::2")))).isEqualTo("::1");
        assertThat(target(p.target(handle("::1")))).as("a crafted frame to ::1, as to 127.0.0.1").isEqualTo("::1");
    }

    @Test
    void otherAddressesGoToThemselvesExceptTheLinkAndSpecialOnes() {
        OutboundPolicy p = policy(true);
        assertThat(target(p.target(handle("2001:db8::1")))).isEqualTo("2001:db8::1");
        // fd00::3 too: its port 53 is the DNS forwarder's, nothing else is there
        for (String no : new String[] {"fd00::3", "fd00::5", "fe80::1", "ff02::1", "::", "::ffff:10.0.2.2", "::ffff:127.0.0.1"}) {
            assertThat(target(p.target(handle(no)))).as(no).isEqualTo("unreachable");
        }
    }

    @Test
    void disabledHostLoopbackClosesTheGatewayAndLoopbackAsForIpv4() {
        OutboundPolicy p = policy(false);
        assertThat(target(p.target(handle("fd00::2")))).isEqualTo("no route");
        assertThat(target(p.target(handle("::1")))).isEqualTo("no route");
        assertThat(target(p.target(handle("2001:db8::1")))).isEqualTo("2001:db8::1");
        assertThat(target(policy(false, rules(List.of("::1"), List.of())).target(handle("fd00::2"))))
                .as("an --allow does not reopen it").isEqualTo("no route");
    }

    @Test
    void denyWinsOverAllowAndAnAllowListRefusesEverythingElse() {
        OutboundPolicy p = policy(true, rules(List.of("2001:db8::/32", "192.0.2.0/24"), List.of("2001:db8:dead::/48")));
        assertThat(target(p.target(handle("2001:db8::1")))).isEqualTo("2001:db8::1");
        assertThat(target(p.target(handle("2001:db8:dead::1")))).as("denied though allowed").isEqualTo("prohibited");
        assertThat(target(p.target(handle("2001:db9::1")))).as("not allowed").isEqualTo("prohibited");
        assertThat(target(p.target(handle("fd00::2")))).as("the gateway counts as ::1").isEqualTo("prohibited");
        assertThat(target(p.target(handle("fd00::77")))).as("no host: still unreachable").isEqualTo("unreachable");
        assertThat(target(p.target(handle("::ffff:192.0.2.1")))).as("IPv4-mapped never leaves by IPv6").isEqualTo("unreachable");
    }

    @Test
    void denyingLoopbackClosesTheGatewayWithoutTheFlag() {
        OutboundPolicy p = policy(true, rules(List.of(), List.of("::1")));
        assertThat(target(p.target(handle("fd00::2")))).isEqualTo("prohibited");
        assertThat(target(p.target(handle("2001:db8::1")))).isEqualTo("2001:db8::1");
        OutboundPolicy v4Loopback = policy(true, rules(List.of(), List.of("127.0.0.0/8")));
        assertThat(target(v4Loopback.target(handle("fd00::2")))).as("IPv4's loopback is not ::1").isEqualTo("::1");
    }
}
