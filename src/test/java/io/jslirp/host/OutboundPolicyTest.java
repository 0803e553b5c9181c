package io.jslirp.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.host.DestinationRules.Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.wire.Ipv4;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboundPolicyTest {
    private static final int GATEWAY = ip("10.0.2.2"), LOOPBACK = ip("127.0.0.1");

    private static int ip(String a) {
        return Ipv4.parse(a);
    }

    private static OutboundPolicy policy(boolean hostLoopback, DestinationRules rules) {
        return new OutboundPolicy(NetworkConfig.fromCidr("10.0.2.0/24", 1500, hostLoopback), 0, rules);
    }

    private static DestinationRules rules(List<String> allow, List<String> deny) {
        return new DestinationRules(allow.stream().map(Network::parse).toList(), deny.stream().map(Network::parse).toList());
    }

    @Test
    void theGatewayIsHostLoopbackAndOtherAddressesThemselves() {
        OutboundPolicy p = policy(true, DestinationRules.NONE);
        assertThat(p.target(GATEWAY)).isEqualTo(LOOPBACK);
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
        assertThat(p.target(ip("127.0.0.53"))).as("a crafted frame to loopback, allowed with host loopback").isEqualTo(ip("127.0.0.53"));
    }

    @Test
    void addressesThatAreNoHostAreUnreachable() {
        OutboundPolicy p = policy(true, DestinationRules.NONE);
        for (String a : List.of("10.0.2.3", "10.0.2.77", "10.0.2.255", "0.0.0.0", "0.1.2.3", "224.0.0.1", "240.0.0.1", "255.255.255.255")) {
            assertThat(p.target(ip(a))).as(a).isEqualTo(OutboundPolicy.UNREACHABLE);
        }
    }

    @Test
    void withoutHostLoopbackTheGatewayAndEveryLoopbackAddressAreProhibited() {
        OutboundPolicy p = policy(false, DestinationRules.NONE);
        assertThat(p.target(GATEWAY)).isEqualTo(OutboundPolicy.PROHIBITED);
        for (String a : List.of("127.0.0.1", "127.0.0.53", "127.255.255.254")) {
            assertThat(p.target(ip(a))).as(a).isEqualTo(OutboundPolicy.PROHIBITED);
        }
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
    }

    @Test
    void denyWinsOverAllowAndAnAllowListRefusesEverythingElse() {
        OutboundPolicy p = policy(true, rules(List.of("192.0.2.0/24"), List.of("192.0.2.128/25")));
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
        assertThat(p.target(ip("192.0.2.127"))).isEqualTo(ip("192.0.2.127"));
        assertThat(p.target(ip("192.0.2.200"))).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("198.51.100.1"))).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(GATEWAY)).as("the gateway counts as 127.0.0.1").isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("10.0.2.77"))).as("no host: still unreachable").isEqualTo(OutboundPolicy.UNREACHABLE);
    }

    @Test
    void denyingLoopbackClosesTheGatewayWithoutTheFlag() {
        OutboundPolicy p = policy(true, rules(List.of(), List.of("127.0.0.0/8")));
        assertThat(p.target(GATEWAY)).isEqualTo(OutboundPolicy.PROHIBITED);
        assertThat(p.target(ip("192.0.2.1"))).isEqualTo(ip("192.0.2.1"));
    }

    @Test
    void networksParse() {
        assertThat(Network.parse("192.0.2.77/24")).isEqualTo(new Network(ip("192.0.2.0"), 24));
        assertThat(Network.parse("192.0.2.77")).isEqualTo(new Network(ip("192.0.2.77"), 32));
        assertThat(Network.parse("0.0.0.0/0").contains(ip("203.0.113.9"))).isTrue();
        assertThatThrownBy(() -> Network.parse("192.0.2.0/33")).hasMessageContaining("0-32");
        assertThatThrownBy(() -> Network.parse("192.0.2.0/")).hasMessageContaining("0-32");
        assertThatThrownBy(() -> Network.parse("192.0.2/24")).hasMessageContaining("IPv4");
    }
}
