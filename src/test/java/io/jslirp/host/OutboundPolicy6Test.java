package io.jslirp.host;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OutboundPolicy6Test {
    private final AddressBook book = new AddressBook();

    private int handle(String text) {
        long[] a = Ipv6.parse(text);
        return book.acquire(a[0], a[1]);
    }

    private String target(int handle) {
        return handle == OutboundPolicy.UNREACHABLE ? "unreachable" : Ipv6.format(book.hi(handle), book.lo(handle));
    }

    private OutboundPolicy6 policy(boolean hostLoopback) {
        return new OutboundPolicy6(Ipv6Network.defaults(NetworkConfig.fromCidr("10.0.2.0/24", 1500, hostLoopback)), book, null);
    }

    @Test
    void gatewayIsHostLoopback() {
        assertThat(target(policy(true).target(handle("fd00::2")))).isEqualTo("::1");
    }

    @Test
    void otherAddressesGoToThemselvesExceptTheLinkAndSpecialOnes() {
        OutboundPolicy6 p = policy(true);
        assertThat(target(p.target(handle("2001:db8::1")))).isEqualTo("2001:db8::1");
        // fd00::3 too: its port 53 is the DNS forwarder's, nothing else is there
        for (String no : new String[] {"fd00::3", "fd00::5", "fe80::1", "ff02::1", "::", "::1", "::ffff:10.0.2.2", "::ffff:127.0.0.1"}) {
            assertThat(target(p.target(handle(no)))).as(no).isEqualTo("unreachable");
        }
    }

    @Test
    void disabledHostLoopbackMakesTheGatewayUnreachable() {
        assertThat(target(policy(false).target(handle("fd00::2")))).isEqualTo("unreachable");
    }
}
