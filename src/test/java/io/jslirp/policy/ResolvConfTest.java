package io.jslirp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Ipv4;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResolvConfTest {
    @TempDir
    Path tmp;

    private List<Nameserver> read(String text) throws Exception {
        Path f = tmp.resolve("resolv.conf");
        Files.writeString(f, text);
        return ResolvConf.nameservers(f);
    }

    @Test
    void everyNameserverInOrderIpv4AndIpv6() throws Exception {
        List<Nameserver> ns = read("""
                # comment
                search example.test
                nameserver 127.0.0.53
                nameserver   ::1
                options edns0
                nameserver fd00::3
                nameserver 192.0.2.1
                """);
        assertThat(ns).extracting(Nameserver::toString).containsExactly("127.0.0.53", "0:0:0:0:0:0:0:1", "fd00:0:0:0:0:0:0:3", "192.0.2.1");
        assertThat(ns.get(0).isIpv6()).isFalse();
        assertThat(ns.get(0).ipv4()).isEqualTo(Ipv4.parse("127.0.0.53"));
        assertThat(ns.get(1).isIpv6()).isTrue();
        assertThat(ns.get(1).ipv6()).hasSize(16);
    }

    @Test
    void skipsWhatIsNotAnAddressAndDuplicates() throws Exception {
        assertThat(read("nameserver dns.example\nnameserver 300.1.1.1\nnameserver\nnameserver 10.1.1.1\nnameserver 10.1.1.1\n"))
                .containsExactly(Nameserver.ofIpv4(Ipv4.parse("10.1.1.1")));
    }

    @Test
    void linkLocalKeepsItsNumericScope() throws Exception {
        Nameserver n = read("nameserver fe80::1%1\n").getFirst();
        assertThat(n.scopeId()).isEqualTo(1);
    }

    @Test
    void missingFileNamesNone() {
        assertThat(ResolvConf.nameservers(tmp.resolve("absent"))).isEmpty();
    }
}
