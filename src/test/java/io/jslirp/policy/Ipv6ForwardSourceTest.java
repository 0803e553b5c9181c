package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;
import org.junit.jupiter.api.Test;

class Ipv6ForwardSourceTest {
    private final Ipv6Network net = Ipv6Network.defaults(NetworkConfig.fromCidr("10.0.2.0/24", 1500, true));
    private final AddressBook book = new AddressBook();
    private final int gateway = book.acquire(net.gatewayHi(), net.gatewayLo());

    private int handle(String address) {
        long[] a = Ipv6.parse(address);
        return book.acquire(a[0], a[1]);
    }

    @Test
    void withPreserveSourceOnlyAddressesTheGuestCanAnswerAreKept() {
        ForwardSource source = new ForwardSource(book, AddressPlan.of(net), gateway, true);
        int remote = handle("2001:db8::77");
        assertThat(source.of(remote)).isEqualTo(remote);
        for (String unanswerable : new String[] {"::1", "::", "fe80::1", "fd00::5", "::ffff:192.0.2.1", "ff02::1"}) {
            assertThat(source.of(handle(unanswerable))).as(unanswerable).isEqualTo(gateway);
        }
    }

    @Test
    void withoutItEveryClientComesFromTheGateway() {
        ForwardSource source = new ForwardSource(book, AddressPlan.of(net), gateway, false);
        assertThat(source.of(handle("2001:db8::77"))).isEqualTo(gateway);
    }
}
