package io.jslirp.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class CaptureFilterTest {
    private static final int GUEST = Ipv4.parse("10.0.2.100"), GATEWAY = Ipv4.parse("10.0.2.2");

    private static MemorySegment ipv4(int protocol, int source, int destination, int sourcePort, int destinationPort) {
        MemorySegment f = MemorySegment.ofArray(new byte[64]);
        Ethernet.write(f, 0, 1, 2, Ethernet.TYPE_IPV4);
        Ipv4.write(f, 14, new IpHeader().source4(source).destination4(destination).protocol(protocol).ttl(64).id(1).payloadLength(30));
        Bytes.u16(f, 34, sourcePort);
        Bytes.u16(f, 36, destinationPort);
        return f;
    }

    private static MemorySegment arp() {
        MemorySegment f = MemorySegment.ofArray(new byte[42]);
        Ethernet.write(f, 0, Ethernet.BROADCAST, 2, Ethernet.TYPE_ARP);
        Arp.write(f, 14, Arp.REQUEST, 2, GUEST, 0, GATEWAY);
        return f;
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
        MemorySegment fragment = ipv4(Ipv4.PROTO_UDP, GUEST, GATEWAY, 53, 53);
        Ipv4.write(fragment, 14, new IpHeader().source4(GUEST).destination4(GATEWAY).protocol(Ipv4.PROTO_UDP).ttl(64).id(1)
                .payloadLength(30).fragment(800, false)); // fragment offset 800
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
