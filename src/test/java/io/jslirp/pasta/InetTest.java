package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** inet_pton's grammar, checked against glibc's answers for the same strings. */
class InetTest {
    @ParameterizedTest
    @CsvSource({"0.0.0.0,0.0.0.0", "192.0.2.1,192.0.2.1", "255.255.255.255,255.255.255.255", "10.0.0.0,10.0.0.0"})
    void ipv4(String text, String formatted) {
        assertThat(Inet.text(Inet.parse4(text))).isEqualTo(formatted);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.00", "256.1.1.1", "1..2.3", ".1.2.3", "1.2.3.4.",
            " 1.2.3.4", "1.2.3.4 ", "0x1.2.3.4", "١.2.3.4", "localhost"})
    void notIpv4(String text) {
        assertThat(Inet.parse4(text)).isNull();
    }

    @ParameterizedTest
    @CsvSource({"::,::", "::1,::1", "1::,1::", "2001:db8::1,2001:db8::1", "2001:DB8:0:0:0:0:0:1,2001:db8::1",
            "1:2:3:4:5:6:7:8,1:2:3:4:5:6:7:8", "fe80::1:2,fe80::1:2", "::ffff:192.0.2.1,::ffff:192.0.2.1",
            "::192.0.2.1,::192.0.2.1", "::0.0.1.0,::100", "1:2:3:4:5:6:1.2.3.4,1:2:3:4:5:6:102:304", "2001:db8:0:1:0:0:0:1,2001:db8:0:1::1",
            "0:0:1:0:0:0:0:0,0:0:1::", "1:0:0:2:0:0:0:3,1:0:0:2::3", "1:0:2:0:3:0:4:0,1:0:2:0:3:0:4:0"})
    void ipv6(String text, String formatted) {
        Inet6Address a = Inet.parse6(text);
        assertThat(a).isInstanceOf(Inet6Address.class);
        assertThat(Inet.text(a)).isEqualTo(formatted);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":", ":::", "1:::2", "1::2::3", ":1::", "1:", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::",
            "1::2:3:4:5:6:7:8", "::g", "[::1]", "fe80::1%eth0", "::1.2.3", "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4", "::01.2.3.4"})
    void notIpv6(String text) {
        assertThat(Inet.parse6(text)).isNull();
    }

    @Test
    void classes() {
        assertThat(Inet.loopback(Inet.parse("127.255.0.1"))).isTrue();
        assertThat(Inet.loopback(Inet.parse("::1"))).isTrue();
        assertThat(Inet.loopback(Inet.parse("::ffff:127.0.0.1"))).isFalse();
        assertThat(Inet.multicast(Inet.parse("239.1.1.1"))).isTrue();
        assertThat(Inet.multicast(Inet.parse("ff02::fb"))).isTrue();
        assertThat(Inet.broadcast(Inet.parse("255.255.255.255"))).isTrue();
        assertThat(Inet.broadcast(Inet.parse("192.0.2.255"))).isFalse();
        assertThat(Inet.v4Mapped(Inet.parse("::ffff:1.2.3.4"))).isTrue();
        assertThat(Inet.v4Compatible(Inet.parse("::2"))).isTrue();
        assertThat(Inet.v4Compatible(Inet.parse("::1"))).isFalse();
        assertThat(Inet.v4Compatible(Inet.parse("::"))).isFalse();
        assertThat(Inet.unspecified(Inet.parse("::"))).isTrue();
        assertThat(Inet.unspecified(Inet.parse("0.0.0.0"))).isTrue();
        assertThat(Inet.linkLocal6(Inet.parse("febf::1"))).isTrue();
        assertThat(Inet.linkLocal6(Inet.parse("fec0::1"))).isFalse();
    }

    @Test
    void cNumbers() {
        assertThat(CNumber.strtol("1500abc", 0)).isEqualTo(new CNumber(1500, 4, false));
        assertThat(CNumber.strtol("  -0x1F", 0)).isEqualTo(new CNumber(-31, 7, false));
        assertThat(CNumber.strtol("010", 0).value()).isEqualTo(8);
        assertThat(CNumber.strtol("010", 10).value()).isEqualTo(10);
        assertThat(CNumber.strtol("0x", 0)).as("no hex digit: the 0 alone").isEqualTo(new CNumber(0, 1, false));
        assertThat(CNumber.strtol("abc", 0)).isEqualTo(new CNumber(0, 0, false));
        assertThat(CNumber.strtol("", 10).whole("")).isTrue();
        assertThat(CNumber.strtol("9223372036854775807", 10)).isEqualTo(new CNumber(Long.MAX_VALUE, 19, false));
        assertThat(CNumber.strtol("9223372036854775808", 10)).isEqualTo(new CNumber(Long.MAX_VALUE, 19, true));
        assertThat(CNumber.strtol("-9223372036854775808", 10)).isEqualTo(new CNumber(Long.MIN_VALUE, 20, false));
        assertThat(CNumber.strtoul("-1", 10).value()).isEqualTo(-1L);
        assertThat(CNumber.strtoul("18446744073709551615", 10)).isEqualTo(new CNumber(-1L, 20, false));
        assertThat(CNumber.strtoul("18446744073709551616", 10).overflow()).isTrue();
    }
}
