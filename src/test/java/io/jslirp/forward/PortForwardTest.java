package io.jslirp.forward;

import io.jslirp.policy.HostAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.forward.PortForward.Protocol;
import io.jslirp.wire.Ipv4;
import java.util.List;
import org.junit.jupiter.api.Test;

class PortForwardTest {
    private static final int LOOPBACK = Ipv4.parse("127.0.0.1");

    @Test
    void onePortDefaultsToLoopbackAndTheSameGuestPort() {
        assertThat(PortForward.parse(Protocol.TCP, "8080")).containsExactly(new PortForward(Protocol.TCP, LOOPBACK, 8080, 0, 8080));
    }

    @Test
    void addressAndGuestPort() {
        assertThat(PortForward.parse(Protocol.UDP, "0.0.0.0/5353:53"))
                .containsExactly(new PortForward(Protocol.UDP, 0, 5353, 0, 53));
    }

    @Test
    void aHostRangeMapsToTheSamePorts() {
        List<PortForward> f = PortForward.parse(Protocol.TCP, "8000-8002");
        assertThat(f).extracting(PortForward::hostPort).containsExactly(8000, 8001, 8002);
        assertThat(f).extracting(PortForward::guestPort).containsExactly(8000, 8001, 8002);
    }

    @Test
    void aHostRangeMapsToAGuestRangeOfTheSameLength() {
        List<PortForward> f = PortForward.parse(Protocol.UDP, "10.1.2.3/9000-9001:100-101");
        assertThat(f).containsExactly(new PortForward(Protocol.UDP, Ipv4.parse("10.1.2.3"), 9000, 0, 100),
                new PortForward(Protocol.UDP, Ipv4.parse("10.1.2.3"), 9001, 0, 101));
    }

    @Test
    void anIpv6AddressIsWrittenPlainlyBeforeTheSlash() {
        assertThat(PortForward.parse(Protocol.TCP, "::1/8080:80"))
                .containsExactly(new PortForward(Protocol.TCP, 0, HostAddress.LOOPBACK, 8080, 0, 80));
        List<PortForward> any = PortForward.parse(Protocol.UDP, "::/5353:53", true);
        assertThat(any).containsExactly(new PortForward(Protocol.UDP, 0, new HostAddress(0, 0), 5353, 0, 53));
        assertThat(any.getFirst().ipv6()).isTrue();
        assertThat(PortForward.parse(Protocol.TCP, "2001:db8::7/80").getFirst().toString()).isEqualTo("tcp [2001:db8::7]/80:80");
    }

    @Test
    void withoutAddressIpv6LoopbackToWhenAsked() {
        assertThat(PortForward.parse(Protocol.TCP, "8080-8081:80-81", true)).containsExactly(
                new PortForward(Protocol.TCP, LOOPBACK, 8080, 0, 80), new PortForward(Protocol.TCP, LOOPBACK, 8081, 0, 81),
                new PortForward(Protocol.TCP, 0, HostAddress.LOOPBACK, 8080, 0, 80),
                new PortForward(Protocol.TCP, 0, HostAddress.LOOPBACK, 8081, 0, 81));
        assertThat(PortForward.parse(Protocol.TCP, "127.0.0.1/8080", true)).hasSize(1);
    }

    @Test
    void badSpecsSayWhatIsWrong() {
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "8000-8002:80-81")).hasMessageContaining("as long as");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "8000-8002:80")).hasMessageContaining("as long as");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "9-8")).hasMessageContaining("FIRST <= LAST");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "0")).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "65535-65536")).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "x/80")).hasMessageContaining("IPv4");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "1::x/80")).hasMessageContaining("IPv6");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "80:")).hasMessageContaining("expected");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "a-b")).hasMessageContaining("expected");
        assertThatThrownBy(() -> PortForward.parse(Protocol.TCP, "")).hasMessageContaining("expected");
    }
}
