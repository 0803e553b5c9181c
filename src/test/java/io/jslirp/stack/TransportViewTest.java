package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.UdpDatagram;
import io.jslirp.wire.build.FrameBuilder;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The views the IP input hands the transport, a TCP segment, a UDP datagram and an echo request:
 * read once, after the checksum, from frames of both versions; what they say is what the frame's
 * bytes say.
 */
class TransportViewTest {
    private static final String GUEST4 = "10.0.2.15", REMOTE4 = "192.0.2.1";
    private static final String GUEST6 = "fd00::1:2:3:4", REMOTE6 = "2001:db8::1";

    private final Counters counters = new Counters();
    private final AddressBook addresses = new AddressBook();
    private final Stack stack;
    /** What each call saw, copied during the call (the view is valid for it only). */
    private final List<Seen> seen = new ArrayList<>();
    private final List<TcpSegment> views = new ArrayList<>();
    private final List<Datagram> datagrams = new ArrayList<>();
    private final List<UdpDatagram> udpViews = new ArrayList<>();
    private final List<Echo> echoes = new ArrayList<>();
    private final List<IcmpEcho> echoViews = new ArrayList<>();

    record Echo(IpVersion version, String source, String destination, int code, int identifier, int sequence, MemorySegment frame,
                long offset, int length) {}

    record Datagram(IpVersion version, String source, String destination, int sourcePort, int destinationPort, MemorySegment frame,
                    long payloadOffset, int payloadLength) {}

    record Seen(IpVersion version, String source, String destination, int sourcePort, int destinationPort, int seq, int ack,
                int flags, int window, int mss, int windowScale, boolean sackPermitted, int tsVal, int tsEcr, int sackBlocks,
                MemorySegment frame, long payloadOffset, int payloadLength, int sequenceLength) {}

    TransportViewTest() {
        NetworkConfig config = NetworkConfig.defaults();
        stack = new Stack(config, Ipv6Network.defaults(config), (f, n) -> true, counters, addresses);
        stack.setTransport(new Transport() {
            @Override
            public void tcp(TcpSegment s) {
                views.add(s);
                TcpHeader h = s.header();
                TcpOptions o = s.options();
                seen.add(new Seen(s.version(), addresses.format(s.source()), addresses.format(s.destination()), h.sourcePort(),
                        h.destinationPort(), h.seq(), h.ack(), h.flags(), h.window(), o.mss, o.windowScale, o.sackPermitted, o.tsVal,
                        o.tsEcr, o.sackBlocks, s.frame(), s.payloadOffset(), s.payloadLength(), s.sequenceLength()));
            }

            @Override
            public void udp(UdpDatagram d) {
                udpViews.add(d);
                datagrams.add(new Datagram(d.version(), addresses.format(d.source()), addresses.format(d.destination()), d.sourcePort(),
                        d.destinationPort(), d.frame(), d.payloadOffset(), d.payloadLength()));
            }

            @Override
            public void icmpEcho(IcmpEcho e) {
                echoViews.add(e);
                echoes.add(new Echo(e.version(), addresses.format(e.source()), addresses.format(e.destination()), e.code(), e.identifier(),
                        e.sequence(), e.frame(), e.offset(), e.length()));
            }
        });
    }

    private Seen receive(FrameBuilder b) {
        MemorySegment f = b.build();
        int before = seen.size();
        stack.receive(f, (int) f.byteSize());
        assertThat(seen).as("one call for the frame").hasSize(before + 1);
        Seen s = seen.getLast();
        assertThat(s.frame()).isSameAs(f);
        return s;
    }

    @Test
    void aSynOfIpv4IsReadWithItsOptions() {
        FrameBuilder b = FrameBuilder.v4(GUEST4, REMOTE4).tcp(40000, 80, Tcp.SYN, 0x8000_0001L, 0).window(29200)
                .mss(1460).sackPermitted().timestamps(111, 0).windowScale(7);
        Seen s = receive(b);
        assertThat(s.version()).isEqualTo(IpVersion.V4);
        assertThat(s.source()).isEqualTo(GUEST4);
        assertThat(s.destination()).isEqualTo(REMOTE4);
        assertThat(s.sourcePort()).isEqualTo(40000);
        assertThat(s.destinationPort()).isEqualTo(80);
        assertThat(s.seq()).isEqualTo(0x8000_0001);
        assertThat(s.flags()).isEqualTo(Tcp.SYN);
        assertThat(s.window()).isEqualTo(29200);
        assertThat(s.mss()).isEqualTo(1460);
        assertThat(s.windowScale()).isEqualTo(7);
        assertThat(s.sackPermitted()).isTrue();
        assertThat(s.tsVal()).isEqualTo(111);
        assertThat(s.payloadLength()).isZero();
        assertThat(s.sequenceLength()).as("the SYN takes one").isEqualTo(1);
        assertThat(s.payloadOffset()).isEqualTo(b.payloadOffset());
    }

    @Test
    void dataOfIpv6IsPlacedWhereTheFrameHasIt() {
        byte[] data = "GET / HTTP/1.1\r\n".getBytes();
        FrameBuilder b = FrameBuilder.v6(GUEST6, REMOTE6).tcp(40001, 443, Tcp.ACK | Tcp.PSH | Tcp.FIN, 7, 0xffff_fff0L).window(501)
                .timestamps(5, 6).sack(100, 200, 300, 400).payload(data);
        Seen s = receive(b);
        assertThat(s.version()).isEqualTo(IpVersion.V6);
        assertThat(s.source()).contains("fd00::1:2:3:4");
        assertThat(s.destination()).contains("2001:db8::1");
        assertThat(s.ack()).isEqualTo(0xffff_fff0);
        assertThat(s.flags()).isEqualTo(Tcp.ACK | Tcp.PSH | Tcp.FIN);
        assertThat(s.window()).isEqualTo(501);
        assertThat(s.mss()).as("absent").isEqualTo(-1);
        assertThat(s.tsVal()).isEqualTo(5);
        assertThat(s.tsEcr()).isEqualTo(6);
        assertThat(s.sackBlocks()).isEqualTo(2);
        assertThat(s.payloadOffset()).isEqualTo(b.payloadOffset());
        assertThat(s.payloadLength()).isEqualTo(data.length);
        assertThat(s.sequenceLength()).as("the payload and the FIN").isEqualTo(data.length + 1);
        byte[] got = s.frame().asSlice(s.payloadOffset(), s.payloadLength()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        assertThat(got).isEqualTo(data);
    }

    @Test
    void oneViewServesEverySegment() {
        receive(FrameBuilder.v4(GUEST4, REMOTE4).tcp(40000, 80, Tcp.ACK, 1, 2));
        receive(FrameBuilder.v6(GUEST6, REMOTE6).tcp(40000, 80, Tcp.ACK, 3, 4).payload(10));
        Seen last = receive(FrameBuilder.v4(GUEST4, REMOTE4).tcp(40002, 81, Tcp.ACK, 5, 6));
        assertThat(views).hasSize(3);
        assertThat(views.get(1)).isSameAs(views.get(0));
        assertThat(views.get(2)).isSameAs(views.get(0));
        assertThat(last.seq()).isEqualTo(5);
        assertThat(last.sackBlocks()).as("options of an earlier segment do not linger").isZero();
        assertThat(last.tsVal()).isZero();
    }

    @Test
    void aSegmentWithABadChecksumIsNotHandedOn() {
        for (FrameBuilder b : new FrameBuilder[] {FrameBuilder.v4(GUEST4, REMOTE4), FrameBuilder.v6(GUEST6, REMOTE6)}) {
            MemorySegment f = b.tcp(40000, 80, Tcp.ACK, 1, 2).payload(20).badChecksum().build();
            long bad = counters.badChecksum;
            stack.receive(f, (int) f.byteSize());
            assertThat(counters.badChecksum).isEqualTo(bad + 1);
        }
        assertThat(seen).isEmpty();
    }

    @Test
    void aChecksumTheLinkVouchedForIsNotSummed() {
        MemorySegment f = FrameBuilder.v4(GUEST4, REMOTE4).tcp(40000, 80, Tcp.ACK, 9, 2).payload(20).badChecksum().build();
        stack.receive(f, (int) f.byteSize(), true);
        assertThat(seen).hasSize(1);
        assertThat(seen.getFirst().seq()).isEqualTo(9);
        assertThat(seen.getFirst().payloadLength()).isEqualTo(20);
    }

    @Test
    void aMalformedHeaderIsNotHandedOn() {
        MemorySegment f = FrameBuilder.v4(GUEST4, REMOTE4).tcp(40000, 80, Tcp.ACK, 1, 2).claimPayloadLength(Tcp.MIN_HEADER_LENGTH - 1)
                .build();
        stack.receive(f, (int) f.byteSize());
        assertThat(seen).isEmpty();
        assertThat(counters.malformed + counters.badChecksum).isPositive();
    }

    @Test
    void aDatagramOfEitherVersionIsReadWithItsPortsAndPayload() {
        FrameBuilder[] frames = {FrameBuilder.v4(GUEST4, REMOTE4).udp(5353, 53).payload(30),
                FrameBuilder.v6(GUEST6, REMOTE6).udp(40000, 4433).payload(7)};
        for (FrameBuilder b : frames) {
            MemorySegment f = b.build();
            stack.receive(f, (int) f.byteSize());
            Datagram d = datagrams.getLast();
            assertThat(d.frame()).isSameAs(f);
            assertThat(d.payloadOffset()).isEqualTo(b.payloadOffset());
            assertThat(d.payloadLength()).isEqualTo(b.transportLength() - 8);
        }
        assertThat(datagrams).extracting(Datagram::version).containsExactly(IpVersion.V4, IpVersion.V6);
        assertThat(datagrams).extracting(Datagram::sourcePort).containsExactly(5353, 40000);
        assertThat(datagrams).extracting(Datagram::destinationPort).containsExactly(53, 4433);
        assertThat(datagrams).extracting(Datagram::payloadLength).containsExactly(30, 7);
        assertThat(datagrams.get(0).source()).isEqualTo(GUEST4);
        assertThat(datagrams.get(0).destination()).isEqualTo(REMOTE4);
        assertThat(datagrams.get(1).source()).contains("fd00::1:2:3:4");
        assertThat(udpViews.get(1)).isSameAs(udpViews.get(0));
    }

    @Test
    void aDatagramWithABadChecksumIsNotHandedOn() {
        for (FrameBuilder b : new FrameBuilder[] {FrameBuilder.v4(GUEST4, REMOTE4), FrameBuilder.v6(GUEST6, REMOTE6)}) {
            MemorySegment f = b.udp(40000, 53).payload(12).badChecksum().build();
            stack.receive(f, (int) f.byteSize());
        }
        assertThat(datagrams).isEmpty();
        assertThat(counters.badChecksum).isEqualTo(2);
    }

    @Test
    void anEchoRequestOfEitherVersionIsReadWithItsIdentifierAndSequence() {
        FrameBuilder[] frames = {FrameBuilder.v4(GUEST4, REMOTE4).echo(0x1234, 7).payload(56),
                FrameBuilder.v6(GUEST6, REMOTE6).echo(0xfedc, 0x8001).payload(8)};
        for (FrameBuilder b : frames) {
            MemorySegment f = b.build();
            stack.receive(f, (int) f.byteSize());
            Echo e = echoes.getLast();
            assertThat(e.frame()).isSameAs(f);
            assertThat(e.offset()).isEqualTo(b.transportOffset());
            assertThat(e.length()).isEqualTo(b.transportLength());
        }
        assertThat(echoes).extracting(Echo::version).containsExactly(IpVersion.V4, IpVersion.V6);
        assertThat(echoes).extracting(Echo::identifier).containsExactly(0x1234, 0xfedc);
        assertThat(echoes).extracting(Echo::sequence).containsExactly(7, 0x8001);
        assertThat(echoes).extracting(Echo::code).containsExactly(0, 0);
        assertThat(echoes.get(0).source()).isEqualTo(GUEST4);
        assertThat(echoes.get(0).destination()).isEqualTo(REMOTE4);
        assertThat(echoes.get(1).destination()).contains("2001:db8::1");
        assertThat(echoViews.get(1)).isSameAs(echoViews.get(0));
    }

    @Test
    void anEchoRequestWithABadChecksumIsNotHandedOn() {
        MemorySegment f = FrameBuilder.v6(GUEST6, REMOTE6).icmp(Icmpv6.ECHO_REQUEST, 0, 0x0001_0002).payload(8).badChecksum().build();
        stack.receive(f, (int) f.byteSize());
        MemorySegment g = FrameBuilder.v4(GUEST4, REMOTE4).icmp(Icmpv4.ECHO_REQUEST, 0, 0x0001_0002).payload(8).badChecksum().build();
        stack.receive(g, (int) g.byteSize());
        assertThat(echoes).isEmpty();
        assertThat(counters.badChecksum).isEqualTo(2);
    }
}
