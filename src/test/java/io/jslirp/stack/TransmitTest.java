package io.jslirp.stack;

import static io.jslirp.check.Checker.ipv4;
import static io.jslirp.check.Checker.ipv6;
import static io.jslirp.check.Checker.tcp;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.check.Checker;
import io.jslirp.check.FrameReading;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The one way out picked from what the link can do, and the description each frame reaches the
 * link with: for an offloading link, the same vnet header fields and flow hash that reading the
 * frame's own headers gives ({@link FrameReading}).
 */
class TransmitTest {
    private static final LinkCapabilities TAP = new LinkCapabilities(false, true, true, true);
    private static final int SEGMENT = 1448;

    /** What the link got: the frame put together, whether its payload came apart, its description as vnet header fields. */
    record Sent(MemorySegment frame, int length, boolean payloadApart, int[] vnet, int flowKey) {
    }

    /** A link that keeps what each send brings, and may refuse UDP frames to be cut as a kernel without USO does. */
    static final class DescribedLink implements FrameSink {
        final LinkCapabilities capabilities;
        final List<Sent> sent = new ArrayList<>();
        boolean refuseUdpSegments;

        DescribedLink(LinkCapabilities capabilities) {
            this.capabilities = capabilities;
        }

        @Override
        public LinkCapabilities capabilities() {
            return capabilities;
        }

        @Override
        public boolean send(MemorySegment frame, int length) {
            MemorySegment copy = Arena.ofAuto().allocate(length);
            MemorySegment.copy(frame, 0, copy, 0, length);
            sent.add(new Sent(copy, length, false, null, 0));
            return true;
        }

        @Override
        public boolean send(TxFrame f) {
            if (refuseUdpSegments && f.segmentation() == TxFrame.Segmentation.UDP) {
                f.refuse();
                return false;
            }
            MemorySegment copy = Arena.ofAuto().allocate(f.length());
            MemorySegment.copy(f.frame(), 0, copy, 0, f.frameLength());
            if (f.payloadLength() > 0) MemorySegment.copy(f.payload(), f.payloadOffset(), copy, f.frameLength(), f.payloadLength());
            int gso = switch (f.segmentation()) {
                case NONE -> FrameReading.GSO_NONE;
                case TCP4 -> FrameReading.GSO_TCPV4;
                case TCP6 -> FrameReading.GSO_TCPV6;
                case UDP -> FrameReading.GSO_UDP_L4;
            };
            int[] vnet = {f.partialChecksum() ? FrameReading.NEEDS_CSUM : 0, gso, f.headersLength(), f.segmentSize(),
                    f.checksumStart(), f.checksumOffset()};
            sent.add(new Sent(copy, f.length(), f.payloadLength() > 0, vnet, f.flowKey()));
            return true;
        }

        Sent last() {
            return sent.getLast();
        }
    }

    private DescribedLink link;
    private Stack stack;

    private GuestOutput out(LinkCapabilities capabilities, IpVersion v) {
        link = new DescribedLink(capabilities);
        NetworkConfig config = NetworkConfig.defaults();
        stack = new Stack(config, Ipv6Network.defaults(config), link, new Counters(), new AddressBook());
        return v == IpVersion.V4 ? stack.ipv4() : stack.ipv6();
    }

    /** The guest's address of out's version (IPv6's as SLAAC would make it). */
    private static int guest(GuestOutput out) {
        if (out.version() == 4) return out.guestAddress();
        long[] a = Ipv6.parse("fd00::5054:ff:fe12:3456");
        return out.addresses().acquire(a[0], a[1]);
    }

    /** A TCP header with timestamps (32 bytes) at the output's offset, from port 80 to the guest's 40000. */
    private static int tcpHeader(GuestOutput out) {
        MemorySegment f = out.frame();
        long off = out.tcpOffset();
        int length = Tcp.appendTimestamps(f, off, Tcp.MIN_HEADER_LENGTH, 1, 2);
        Tcp.write(f, off, out.tcpHeader().ports(80, 40000).seq(1000).ack(2000).flags(Tcp.ACK).window(65535).length(length));
        return length;
    }

    private static MemorySegment payload(int length) {
        MemorySegment p = Arena.ofAuto().allocate(length + 5);
        for (int i = 0; i < length + 5; i++) p.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
        return p;
    }

    @Test
    void eachLinkGetsOneWayOutPickedFromWhatItCanDo() {
        Output output = new Output(link = new DescribedLink(LinkCapabilities.WHOLE_FRAMES), LinkCapabilities.WHOLE_FRAMES,
                new Counters(), 1, 1500);
        assertThat(Transmit.of(LinkCapabilities.WHOLE_FRAMES, output)).isInstanceOf(Transmit.Copy.class);
        assertThat(Transmit.of(LinkCapabilities.GATHERS, output)).isInstanceOf(Transmit.Gather.class);
        assertThat(Transmit.of(TAP, output)).isInstanceOf(Transmit.Offload.class);
        assertThat(Transmit.of(new LinkCapabilities(true, true, false, false), output)).isInstanceOf(Transmit.Offload.class);
        Transmit copy = Transmit.of(new LinkCapabilities(false, false, true, false), output);
        assertThat(copy.largeSegments()).isFalse();
        assertThat(copy.udpSegments()).as("a link that cuts UDP frames but not TCP").isTrue();
        assertThat(Transmit.of(TAP, output).largeSegments()).isTrue();
        assertThat(Transmit.of(LinkCapabilities.GATHERS, output).udpSegments()).isFalse();
    }

    @Test
    void theStackSaysWhatItWasBuiltFor() {
        GuestOutput out = out(TAP, IpVersion.V4);
        assertThat(stack.capabilities()).isEqualTo(TAP);
        assertThat(out.largeSegments()).isTrue();
        assertThat(out.offloadsUdp()).isTrue();
        GuestOutput plain = out(LinkCapabilities.GATHERS, IpVersion.V6);
        assertThat(plain.largeSegments()).isFalse();
        assertThat(plain.offloadsUdp()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aLargeTcpFrameGoesDescribedAsReadingItsHeadersWouldFindIt(IpVersion v) {
        GuestOutput out = out(TAP, v);
        tcpHeader(out);
        out.sendTcp(out.gateway(), guest(out), payload(4000), 5, 4000, SEGMENT);
        Sent s = link.last();
        assertThat(s.payloadApart()).as("the payload written from where it is").isTrue();
        assertThat(s.vnet()).containsExactly(FrameReading.tcpVnetHeader(s.frame(), s.length(), SEGMENT));
        assertThat(s.vnet()[1]).isEqualTo(v == IpVersion.V4 ? FrameReading.GSO_TCPV4 : FrameReading.GSO_TCPV6);
        assertThat(s.vnet()[2]).as("hdr_len: Ethernet, IP and TCP with its options").isEqualTo(14 + v.headerLength() + 32);
        assertThat(s.flowKey()).isEqualTo(FrameReading.flowKey(s.frame(), s.length())).isNotZero();
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aTcpSegmentAllInTheFrameIsCutOnlyWhenItsPayloadIsLargerThanASegment(IpVersion v) {
        GuestOutput out = out(TAP, v);
        int header = tcpHeader(out);
        MemorySegment.copy(payload(3000), 0, out.frame(), out.tcpOffset() + header, 3000);
        out.sendTcp(out.gateway(), guest(out), header + 3000, 1000);
        Sent cut = link.last();
        assertThat(cut.payloadApart()).isFalse();
        assertThat(cut.vnet()).containsExactly(FrameReading.tcpVnetHeader(cut.frame(), cut.length(), 1000));
        assertThat(cut.vnet()[1]).isNotEqualTo(FrameReading.GSO_NONE);

        header = tcpHeader(out);
        out.sendTcp(out.gateway(), guest(out), header + 1000, 1000); // exactly one segment: not cut, checksum still partial
        Sent whole = link.last();
        assertThat(whole.vnet()).containsExactly(FrameReading.tcpVnetHeader(whole.frame(), whole.length(), 1000));
        assertThat(whole.vnet()[1]).isEqualTo(FrameReading.GSO_NONE);
        assertThat(whole.flowKey()).isEqualTo(FrameReading.flowKey(whole.frame(), whole.length()));
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aRunOfUdpDatagramsGoesDescribedAsReadingItsHeadersWouldFindIt(IpVersion v) {
        GuestOutput out = out(TAP, v);
        MemorySegment.copy(payload(3000), 0, out.frame(), out.udpPayloadOffset(), 3000);
        assertThat(out.sendUdpSegments(out.gateway(), 53, guest(out), 40000, 3000, 1200)).isTrue();
        Sent s = link.last();
        assertThat(s.vnet()).containsExactly(FrameReading.udpVnetHeader(s.frame(), 1200));
        assertThat(s.flowKey()).isEqualTo(FrameReading.flowKey(s.frame(), s.length()));
    }

    @Test
    void aLinkThatRefusesUdpFramesToBeCutIsNotOfferedThemAgain() {
        GuestOutput out = out(TAP, IpVersion.V4);
        link.refuseUdpSegments = true;
        assertThat(out.sendUdpSegments(out.gateway(), 53, guest(out), 40000, 2400, 1200)).isFalse();
        assertThat(out.offloadsUdp()).isFalse();
        assertThat(out.sendUdpSegments(out.gateway(), 53, guest(out), 40000, 2400, 1200)).isFalse();
        assertThat(link.sent).isEmpty();
        assertThat(stack.counters().framesOut).isZero();
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void otherFramesGoWholeWithTheirFlowAndNothingLeftToTheLink(IpVersion v) {
        GuestOutput out = out(TAP, v);
        MemorySegment.copy(payload(100), 0, out.frame(), out.udpPayloadOffset(), 100);
        out.sendUdp(out.gateway(), 53, guest(out), 40000, 100);
        Sent s = link.last();
        assertThat(s.vnet()).containsOnly(0);
        assertThat(s.flowKey()).isEqualTo(FrameReading.flowKey(s.frame(), s.length()));
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void fragmentsCarryTheirFlowsHashWithoutPorts(IpVersion v) {
        GuestOutput out = out(TAP, v);
        MemorySegment.copy(payload(3000), 0, out.frame(), out.udpPayloadOffset(), 3000);
        out.sendUdp(out.gateway(), 53, guest(out), 40000, 3000);
        assertThat(link.sent).hasSizeGreaterThan(1);
        for (Sent s : link.sent) assertThat(s.flowKey()).isEqualTo(FrameReading.flowKey(s.frame(), s.length()));
    }

    /** Sends 1000 bytes of payload from elsewhere through a link that can do c: what it got, its checksum verified. */
    private Sent checkedSegment(LinkCapabilities c, IpVersion v) {
        GuestOutput out = out(c, v);
        tcpHeader(out);
        out.sendTcp(out.gateway(), guest(out), payload(1000), 5, 1000, SEGMENT);
        Sent s = link.last();
        assertThat(s.vnet()).containsOnly(0);
        Checker.expect(s.frame(), s.length(), v == IpVersion.V4 ? ipv4(tcp()) : ipv6(tcp()));
        assertThat(s.frame().asSlice(s.length() - 1000, 1000).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(payload(1000).asSlice(5, 1000).toArray(ValueLayout.JAVA_BYTE));
        return s;
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aLinkOfWholeFramesGetsThePayloadCopiedAndTheChecksumFilled(IpVersion v) {
        Sent s = checkedSegment(LinkCapabilities.WHOLE_FRAMES, v);
        assertThat(s.payloadApart()).isFalse();
        assertThat(s.flowKey()).as("one queue: no flow hashed").isZero();
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aLinkThatGathersGetsThePayloadApartAndTheChecksumFilled(IpVersion v) {
        assertThat(checkedSegment(LinkCapabilities.GATHERS, v).payloadApart()).isTrue();
        GuestOutput out = v == IpVersion.V4 ? stack.ipv4() : stack.ipv6();
        int beyondMtu = 2000; // never at the MSS: put together and sent in fragments
        tcpHeader(out);
        out.sendTcp(out.gateway(), guest(out), payload(beyondMtu), 5, beyondMtu, SEGMENT);
        assertThat(link.last().payloadApart()).isFalse();
        assertThat(link.sent).hasSizeGreaterThan(2);
    }
}
