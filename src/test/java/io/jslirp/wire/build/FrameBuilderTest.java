package io.jslirp.wire.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.engine.Packet;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.Udp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link FrameBuilder}: frames read back by {@link Packet}'s parser, written by hand, which checks every checksum. */
class FrameBuilderTest {
    private static final byte[] DATA = "hello, guest".getBytes();

    @Test
    void aTcpSynCarriesItsOptionsInLinuxsOrderAndRightChecksums() {
        MemorySegment f = FrameBuilder.v4("10.0.2.15", "192.0.2.1").tcp(40000, 80, Tcp.SYN, 7, 0).window(64240).mss(1460).windowScale(7)
                .timestamps(11, 0).sackPermitted().payload(DATA).build();
        Packet p = Packet.parse(bytes(f));
        assertThat(p.toString()).startsWith("IPv4 10.0.2.15 > 192.0.2.1 tcp 40000 > 80");
        assertThat(new long[] {p.flags, p.seq, p.ack, p.window, p.mss, p.windowScale}).containsExactly(Tcp.SYN, 7, 0, 64240, 1460, 7);
        assertThat(p.timestamps).isTrue();
        assertThat(p.payload).isEqualTo(DATA);
        TcpOptions o = new TcpOptions();
        assertThat(Tcp.parseOptions(f, Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH, o)).isTrue();
        assertThat(o.sackPermitted).isTrue();
        assertThat(new int[] {o.tsVal, o.tsEcr}).containsExactly(11, 0);
        assertThat(Ethernet.source(f, 0)).isEqualTo(FrameBuilder.GUEST_MAC);
        assertThat(Ethernet.destination(f, 0)).isEqualTo(FrameBuilder.GATEWAY_MAC);
    }

    @Test
    void sackBlocksFollowTheTimestamps() {
        MemorySegment f = FrameBuilder.v4(1, 2).tcp(1, 2).timestamps(5, 6).sack(100, 200, 300, 400).build();
        TcpOptions o = new TcpOptions();
        assertThat(Tcp.parseOptions(f, Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH, o)).isTrue();
        assertThat(o.sackBlocks).isEqualTo(2);
        assertThat(Arrays.copyOf(o.sackEdges, 4)).containsExactly(100, 200, 300, 400);
        assertThat(o.hasTimestamp).isTrue();
    }

    @Test
    void udpAndEchoesOfBothVersionsHaveRightChecksums() {
        Packet udp = Packet.parse(FrameBuilder.ip("fd00::1", "fd00::2").udp(5353, 53).payload(DATA).bytes());
        assertThat(udp.toString()).isEqualTo("IPv6 fd00::1 > fd00::2 udp 5353 > 53 len " + DATA.length);
        assertThat(udp.payload).isEqualTo(DATA);
        Packet echo4 = Packet.parse(FrameBuilder.ip("10.0.2.15", "10.0.2.2").echo(0x1234, 5).payload(DATA).bytes());
        Packet echo6 = Packet.parse(FrameBuilder.ip("fd00::1", "fd00::2").echo(0x1234, 5).payload(DATA).bytes());
        assertThat(new int[] {echo4.icmpType, echo4.icmpRest, echo6.icmpType, echo6.icmpRest}).containsExactly(8, 0x1234_0005, 128, 0x1234_0005);
    }

    @Test
    void checksumsAreWrongOrNoneOnlyWhenAsked() {
        byte[] bad = FrameBuilder.v4("10.0.2.15", "10.0.2.2").udp(1, 2).payload(DATA).badChecksum().bytes();
        assertThatThrownBy(() -> Packet.parse(bad)).isInstanceOf(AssertionError.class).hasMessageContaining("UDP checksum");
        MemorySegment none = FrameBuilder.v4("10.0.2.15", "10.0.2.2").udp(1, 2).payload(DATA).zeroChecksum().build();
        assertThat(Udp.checksum(none, Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH)).isZero();
        byte[] badTcp = FrameBuilder.v6("fd00::1", "fd00::2").tcp(1, 2).badChecksum().bytes();
        assertThatThrownBy(() -> Packet.parse(badTcp)).isInstanceOf(AssertionError.class).hasMessageContaining("TCP checksum");
    }

    @Test
    void aPayloadInPlaceIsSummedWhereItIs() {
        MemorySegment out = Arena.ofAuto().allocate(400);
        out.fill((byte) 0x77);
        FrameBuilder b = FrameBuilder.v4("10.0.2.15", "10.0.2.2").tcp(1, 2).timestamps(1, 2).payloadInPlace(DATA.length);
        long at = 100;
        MemorySegment.copy(DATA, 0, out, ValueLayout.JAVA_BYTE, at + b.payloadOffset(), DATA.length);
        int length = b.writeTo(out, at);
        assertThat(length).isEqualTo(b.length()).isEqualTo(b.payloadOffset() + DATA.length);
        Packet p = Packet.parse(out.asSlice(at, length).toArray(ValueLayout.JAVA_BYTE));
        assertThat(p.payload).isEqualTo(DATA);
        assertThat(Bytes.u8(out, at - 1)).as("nothing written before the frame").isEqualTo(0x77);
        assertThat(Bytes.u8(out, at + length)).as("nor after it").isEqualTo(0x77);
    }

    @Test
    void anArpRequestGoesToTheBroadcastMacFromTheSendersAddress() {
        MemorySegment f = FrameBuilder.arp(Arp.REQUEST, 0, 0, Ipv4.parse("10.0.2.2")).source4(Ipv4.parse("10.0.2.15")).build();
        assertThat(f.byteSize()).isEqualTo(Ethernet.HEADER_LENGTH + Arp.LENGTH);
        assertThat(Ethernet.destination(f, 0)).isEqualTo(Ethernet.BROADCAST);
        assertThat(Ethernet.type(f, 0)).isEqualTo(Ethernet.TYPE_ARP);
        assertThat(Arp.check(f, Ethernet.HEADER_LENGTH, Arp.LENGTH)).isNull();
        assertThat(Arp.senderIp(f, Ethernet.HEADER_LENGTH)).isEqualTo(Ipv4.parse("10.0.2.15"));
        assertThat(Arp.senderMac(f, Ethernet.HEADER_LENGTH)).isEqualTo(FrameBuilder.GUEST_MAC);
        assertThat(Arp.targetIp(f, Ethernet.HEADER_LENGTH)).isEqualTo(Ipv4.parse("10.0.2.2"));
    }

    @Test
    void extensionHeadersChainToTheTransportAndFragmentsCarryTheirPieces() {
        FrameBuilder b = FrameBuilder.v6("fd00::1", "fd00::2").hopByHop(FrameBuilder.option(0x1e, 2)).udp(1, 2).payload(40);
        MemorySegment whole = b.build();
        IpHeader h = new IpHeader();
        assertThat(IpVersion.V6.read(whole, Ethernet.HEADER_LENGTH, (int) whole.byteSize() - Ethernet.HEADER_LENGTH, h)).isNull();
        assertThat(h.protocol()).isEqualTo(Ipv6.PROTO_UDP);
        assertThat(h.headerLength()).isEqualTo(Ipv6.HEADER_LENGTH + 8);

        byte[] transport = b.transport();
        MemorySegment first = b.piece(0, 24, true, 9), second = b.piece(24, 100, false, 9);
        int at = Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH + 8 + Ipv6.FRAGMENT_HEADER_LENGTH;
        byte[] joined = new byte[transport.length];
        MemorySegment.copy(first, ValueLayout.JAVA_BYTE, at, joined, 0, 24);
        MemorySegment.copy(second, ValueLayout.JAVA_BYTE, at, joined, 24, transport.length - 24);
        assertThat(joined).isEqualTo(transport);
        assertThat(second.byteSize()).isEqualTo(at + transport.length - 24);
    }

    @Test
    void aClaimedLengthKeepsTheIpv4HeaderChecksumRight() {
        MemorySegment f = FrameBuilder.v4("10.0.2.15", "10.0.2.2").udp(1, 2).payload(5).claimPayloadLength(180).build();
        assertThat(Ipv4.totalLength(f, Ethernet.HEADER_LENGTH)).isEqualTo(200);
        assertThat(Checksum.of(f, Ethernet.HEADER_LENGTH, Ipv4.MIN_HEADER_LENGTH)).isZero();
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }
}
