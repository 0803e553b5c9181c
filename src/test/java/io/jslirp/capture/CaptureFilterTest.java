package io.jslirp.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.build.FrameBuilder;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class CaptureFilterTest {
    private static final int GUEST = Ipv4.parse("10.0.2.100"), GATEWAY = Ipv4.parse("10.0.2.2");

    private static MemorySegment ipv4(int protocol, int source, int destination, int sourcePort, int destinationPort) {
        FrameBuilder f = FrameBuilder.v4(source, destination);
        return switch (protocol) {
            case Ipv4.PROTO_TCP -> f.tcp(sourcePort, destinationPort).build();
            case Ipv4.PROTO_UDP -> f.udp(sourcePort, destinationPort).build();
            default -> f.icmp(sourcePort >>> 8, sourcePort & 0xff, destinationPort << 16).build(); // ICMP has no ports: the numbers as its type, code and more
        };
    }

    private static MemorySegment arp() {
        return FrameBuilder.arp(Arp.REQUEST, GUEST, 0, GATEWAY).build();
    }

    private static boolean matches(String expression, MemorySegment f) {
        return CaptureFilter.parse(expression).matches(f, (int) f.byteSize());
    }

    @Test
    void protocolsPortsAndHosts() {
        MemorySegment http = ipv4(Ipv4.PROTO_TCP, GUEST, GATEWAY, 40000, 8080);
        MemorySegment dns = ipv4(Ipv4.PROTO_UDP, GUEST, Ipv4.parse("10.0.2.3"), 5353, 53);
        MemorySegment ping = ipv4(Ipv4.PROTO_ICMP, GUEST, GATEWAY, 0x0800, 8080); // ICMP has no ports
        assertThat(matches("tcp", http)).isTrue();
        assertThat(matches("udp", http)).isFalse();
        assertThat(matches("udp", dns)).isTrue();
        assertThat(matches("icmp", ping)).isTrue();
        assertThat(matches("port 8080", http)).isTrue();
        assertThat(matches("port 40000", http)).as("either direction").isTrue();
        assertThat(matches("port 8080", ping)).isFalse();
        assertThat(matches("host 10.0.2.3", dns)).isTrue();
        assertThat(matches("host 10.0.2.3", http)).isFalse();
        assertThat(matches("arp", arp())).isTrue();
        assertThat(matches("arp", http)).isFalse();
        assertThat(matches("host 10.0.2.2", arp())).isTrue();
        assertThat(matches("tcp", arp())).isFalse();
    }

    @Test
    void termsJoinedByAndMustAllHold() {
        MemorySegment http = ipv4(Ipv4.PROTO_TCP, GUEST, GATEWAY, 40000, 8080);
        assertThat(matches("tcp and port 8080", http)).isTrue();
        assertThat(matches("TCP AND port 8080 and host 10.0.2.100", http)).isTrue();
        assertThat(matches("tcp and port 80", http)).isFalse();
        assertThat(matches("udp and port 8080", http)).isFalse();
    }

    @Test
    void laterFragmentsAndShortFramesHaveNoPorts() {
        MemorySegment fragment = FrameBuilder.v4(GUEST, GATEWAY).udp(53, 53).fragment(800, false, 1).build(); // ports' bytes where a later fragment has data
        assertThat(matches("udp", fragment)).isTrue();
        assertThat(matches("port 53", fragment)).isFalse();
        MemorySegment f = ipv4(Ipv4.PROTO_TCP, GUEST, GATEWAY, 1, 2);
        assertThat(CaptureFilter.parse("tcp").matches(f, 20)).isFalse();
        assertThat(CaptureFilter.parse("port 1").matches(f, 36)).isFalse();
    }

    @Test
    void badExpressionsSayWhatIsWrong() {
        assertThatThrownBy(() -> CaptureFilter.parse("")).hasMessageContaining("missing");
        assertThatThrownBy(() -> CaptureFilter.parse("tcp or udp")).hasMessageContaining("'and'");
        assertThatThrownBy(() -> CaptureFilter.parse("tcp and")).hasMessageContaining("missing");
        assertThatThrownBy(() -> CaptureFilter.parse("port")).hasMessageContaining("1-65535");
        assertThatThrownBy(() -> CaptureFilter.parse("port 70000")).hasMessageContaining("1-65535");
        assertThatThrownBy(() -> CaptureFilter.parse("host 10.0.2")).hasMessageContaining("not an IPv4 address");
        assertThatThrownBy(() -> CaptureFilter.parse("ip6")).hasMessageContaining("unknown term 'ip6'");
    }
}
