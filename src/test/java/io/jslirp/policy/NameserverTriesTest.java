package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Ipv4;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NameserverTriesTest {
    private static final List<Nameserver> THREE = List.of(
            Nameserver.ofIpv4(Ipv4.parse("127.53.0.1")), Nameserver.ofIpv4(Ipv4.parse("127.53.0.2")), Nameserver.parse("::1"));

    private static List<String> order(NameserverTries tries) {
        List<String> seen = new ArrayList<>();
        for (Nameserver n = tries.next(); n != null; n = tries.next()) seen.add(n.toString());
        return seen;
    }

    @Test
    void triesEachOnceInOrderThenTheOneThatAnsweredFirst() {
        Nameservers dns = new Nameservers(THREE);
        NameserverTries first = new NameserverTries(dns);
        assertThat(order(first)).containsExactly("127.53.0.1", "127.53.0.2", "0:0:0:0:0:0:0:1");
        assertThat(first.exhausted()).isTrue();

        NameserverTries second = new NameserverTries(dns);
        second.next();
        assertThat(second.retrying()).isFalse();
        assertThat(second.next().toString()).isEqualTo("127.53.0.2");
        assertThat(second.retrying()).isTrue();
        second.answered();

        assertThat(order(new NameserverTries(dns))).containsExactly("127.53.0.2", "0:0:0:0:0:0:0:1", "127.53.0.1");
        second.restart();
        assertThat(second.next().toString()).as("a reused query starts at the preferred one").isEqualTo("127.53.0.2");
    }
}
