package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * pasta's model ({@link AddressPlan#proxied}): the guest's own address is the only virtual one, the
 * rest of its subnet is real hosts; --map-guest-addr leads to the host's own address and its
 * clients there appear from it; the loopback address (--map-host-loopback, the gateway) leads to
 * the host's loopback, or nothing does.
 */
class ProxiedPlanTest {
    private final AddressBook book = new AddressBook();

    private int a(String text) {
        long[] v = text.contains(":") ? Ipv6.parse(text) : new long[] {0, Ipv4.mapped(Ipv4.parse(text))};
        return book.acquire(v[0], v[1]);
    }

    private static HostAddress h(String text) {
        return text.contains(":") ? HostAddress.parse(text) : HostAddress.ipv4(Ipv4.parse(text));
    }

    private OutboundPolicy policy(AddressPlan plan) {
        return new OutboundPolicy(book, plan, DestinationRules.NONE, null, HostSockets.SYSTEM);
    }

    @Test
    void podmansPlanMapsOnlyTheGuestAddressAndLeavesTheSubnetReal() {
        AddressPlan plan = AddressPlan.proxied(h("192.0.2.2"), null, List.of(new AddressPlan.Mapping(h("169.254.1.2"), h("192.0.2.2"))));
        OutboundPolicy p = policy(plan);
        assertThat(p.target(a("169.254.1.2"))).as("--map-guest-addr: the host's own address").isEqualTo(a("192.0.2.2"));
        assertThat(p.target(a("192.0.2.1"))).as("--no-map-gw: the gateway is itself").isEqualTo(a("192.0.2.1"));
        assertThat(p.target(a("192.0.2.77"))).as("a neighbour on the copied subnet").isEqualTo(a("192.0.2.77"));
        assertThat(p.target(a("192.0.2.2"))).as("the guest's own").isEqualTo(OutboundPolicy.UNREACHABLE);
        assertThat(p.target(a("127.0.0.1"))).as("no loopback mapping: no loopback").isEqualTo(OutboundPolicy.NO_ROUTE);
        assertThat(p.target(a("224.0.0.1"))).isEqualTo(OutboundPolicy.UNREACHABLE);

        int gateway = a("192.0.2.1");
        ForwardSource s = new ForwardSource(book, plan, gateway, true);
        assertThat(s.of(a("192.0.2.2"))).as("a client at the host's own address").isEqualTo(a("169.254.1.2"));
        assertThat(s.of(a("127.0.0.1"))).as("a loopback client, nothing standing for loopback").isEqualTo(gateway);
        assertThat(s.of(a("203.0.113.9"))).as("a remote client keeps its address").isEqualTo(a("203.0.113.9"));
    }

    @Test
    void theLoopbackAddressLeadsToLoopbackAndItsClientsComeFromIt() {
        for (String[] v : new String[][] {{"192.0.2.2", "192.0.2.1", "127.0.0.1", "192.0.2.1"}, {"fd00::2", "fd00::1", "::1", "fd00::1"}}) {
            AddressPlan plan = AddressPlan.proxied(h(v[0]), h(v[1]), List.of());
            assertThat(policy(plan).target(a(v[1]))).as("the gateway maps to the host's loopback").isEqualTo(a(v[2]));
            assertThat(policy(plan).target(a(v[2]))).as("a crafted frame to loopback").isEqualTo(a(v[2]));
            ForwardSource s = new ForwardSource(book, plan, a(v[3]), true);
            assertThat(s.of(a(v[2]))).isEqualTo(a(v[1]));
        }
        AddressPlan v6 = AddressPlan.proxied(h("fd00::2"), null, List.of());
        assertThat(policy(v6).target(a("fd00::77"))).isEqualTo(a("fd00::77"));
        assertThat(policy(v6).target(a("fd00::2"))).isEqualTo(OutboundPolicy.UNREACHABLE);
        assertThat(policy(v6).target(a("fe80::1"))).isEqualTo(OutboundPolicy.UNREACHABLE);
    }
}
