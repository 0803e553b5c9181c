package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import org.junit.jupiter.api.Test;

/** The forward source with IPv4's plan (Ipv6ForwardSourceTest has IPv6's), and a client of the other version. */
class ForwardSourceTest {
    private final NetworkConfig config = NetworkConfig.fromCidr("10.0.2.0/24", 1500, true);
    private final AddressBook book = new AddressBook();
    private final int gateway = book.acquire4(config.gateway());

    private int v4(String address) {
        return book.acquire4(Ipv4.parse(address));
    }

    @Test
    void withPreserveSourceOnlyIpv4AddressesTheGuestCanAnswerAreKept() {
        ForwardSource source = new ForwardSource(book, AddressPlan.of(config), gateway, true);
        int remote = v4("192.0.2.77");
        assertThat(source.of(remote)).isEqualTo(remote);
        for (String unanswerable : new String[] {"127.0.0.1", "127.1.2.3", "0.1.2.3", "10.0.2.15", "224.0.0.1", "255.255.255.255"}) {
            assertThat(source.of(v4(unanswerable))).as(unanswerable).isEqualTo(gateway);
        }
    }

    @Test
    void aClientOfTheOtherVersionComesFromTheGateway() {
        ForwardSource v4 = new ForwardSource(book, AddressPlan.of(config), gateway, true);
        long[] a = Ipv6.parse("2001:db8::77");
        assertThat(v4.of(book.acquire(a[0], a[1]))).as("an IPv6 client reaching the guest over IPv4").isEqualTo(gateway);
        Ipv6Network net = Ipv6Network.defaults(config);
        int gateway6 = book.acquire(net.gatewayHi(), net.gatewayLo());
        ForwardSource v6 = new ForwardSource(book, AddressPlan.of(net), gateway6, true);
        assertThat(v6.of(v4("192.0.2.77"))).as("an IPv4 client reaching the guest over IPv6").isEqualTo(gateway6);
    }
}
