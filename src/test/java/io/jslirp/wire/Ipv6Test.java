package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class Ipv6Test {

    @Property(tries = 300)
    void writeThenReadBack(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off, @ForAll @IntRange(max = 65535) int payload,
                           @ForAll @IntRange(max = 255) int next, @ForAll @IntRange(max = 255) int hop,
                           @ForAll long sHi, @ForAll long sLo, @ForAll long dHi, @ForAll long dLo) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + 40);
            Ipv6.write(s, off, new IpHeader().source(sHi, sLo).destination(dHi, dLo).protocol(next).ttl(hop).payloadLength(payload));
            byte[] b = Segs.bytes(s, off, 40);
            assertThat(Ref.u8(b, 0)).isEqualTo(0x60);
            assertThat(Ref.u16(b, 4)).isEqualTo(payload);
            assertThat(Ref.u8(b, 6)).isEqualTo(next);
            assertThat(Ref.u8(b, 7)).isEqualTo(hop);
            assertThat(java.util.Arrays.copyOfRange(b, 8, 24)).isEqualTo(Ref.address6(sHi, sLo));
            assertThat(java.util.Arrays.copyOfRange(b, 24, 40)).isEqualTo(Ref.address6(dHi, dLo));
            assertThat(Ipv6.payloadLength(s, off)).isEqualTo(payload);
            assertThat(Ipv6.nextHeader(s, off)).isEqualTo(next);
            assertThat(Ipv6.hopLimit(s, off)).isEqualTo(hop);
            assertThat(new long[] {Ipv6.sourceHi(s, off), Ipv6.sourceLo(s, off), Ipv6.destinationHi(s, off), Ipv6.destinationLo(s, off)})
                    .containsExactly(sHi, sLo, dHi, dLo);
        }
    }

    @Test
    void checkRejectsWhatIsNotAWholeIpv6Packet() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(60);
            Ipv6.write(s, 0, new IpHeader().source(0, 1).destination(0, 2).protocol(Ipv6.PROTO_UDP).ttl(64).payloadLength(20));
            assertThat(Ipv6.check(s, 0, 60)).isNull();
            assertThat(Ipv6.check(s, 0, 59)).isEqualTo(Drop.TRUNCATED);
            assertThat(Ipv6.check(s, 0, 39)).isEqualTo(Drop.TRUNCATED);
            Bytes.u8(s, 0, 0x45);
            assertThat(Ipv6.check(s, 0, 60)).isEqualTo(Drop.BAD_VERSION);
        }
    }

    @Test
    void parsesAndFormatsTextAddresses() {
        long[] gw = Ipv6.parse("fd00::2");
        assertThat(gw).containsExactly(0xfd00_0000_0000_0000L, 2L);
        assertThat(Ipv6.format(gw[0], gw[1])).isEqualTo("fd00::2");
        assertThat(Ipv6.format(0, 0)).isEqualTo("::");
        assertThat(Ipv6.format(0, 1)).isEqualTo("::1");
        assertThat(Ipv6.format(0xfe80_0000_0000_0000L, 0)).isEqualTo("fe80::");
        assertThat(Ipv6.format(0x2001_0db8_0000_0000L, 0x0001_0000_0000_0001L)).isEqualTo("2001:db8::1:0:0:1"); // first of equal runs
        assertThat(Ipv6.format(0x2001_0db8_0001_0001L, 0x0001_0001_0000_0001L)).isEqualTo("2001:db8:1:1:1:1:0:1"); // one zero group stays
        assertThatThrownBy(() -> Ipv6.parse("10.0.2.2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Ipv6.parse("fd00::zz")).isInstanceOf(IllegalArgumentException.class);
    }

    @Property(tries = 300)
    void formatIsWhatTheJdkParsesBack(@ForAll long hi, @ForAll long lo) throws Exception {
        String text = Ipv6.format(hi, lo);
        assertThat(InetAddress.getByName(text).getAddress()).isEqualTo(Ref.address6(hi, lo));
        long[] back = Ipv6.parse(text);
        assertThat(back).containsExactly(hi, lo);
    }

    @Test
    void classifiesAddresses() {
        assertThat(Ipv6.isLinkLocal(Ipv6.parse("fe80::1")[0])).isTrue();
        assertThat(Ipv6.isLinkLocal(Ipv6.parse("febf::1")[0])).isTrue();
        assertThat(Ipv6.isLinkLocal(Ipv6.parse("fec0::1")[0])).isFalse();
        assertThat(Ipv6.isLinkLocal(Ipv6.parse("fd00::1")[0])).isFalse();
        assertThat(Ipv6.isMulticast(Ipv6.parse("ff02::1")[0])).isTrue();
        assertThat(Ipv6.isMulticast(Ipv6.parse("fe80::1")[0])).isFalse();
    }

    @Property(tries = 300)
    void pseudoHeaderSumMatchesReference(@ForAll long sHi, @ForAll long sLo, @ForAll long dHi, @ForAll long dLo,
                                         @ForAll @IntRange(max = 255) int protocol, @ForAll @IntRange(max = 65535) int length) {
        byte[] pseudo = Ref.pseudoHeader6(Ref.address6(sHi, sLo), Ref.address6(dHi, dLo), protocol, length);
        assertThat(Checksum.fold(Checksum.pseudoHeader6(sHi, sLo, dHi, dLo, protocol, length)))
                .isEqualTo(Ref.sum(pseudo, 0, 40, 0));
    }

    /** What write describes, read gives back: addresses, protocol, hop limit, lengths, and a fragment's offset, flag and id. */
    @Property(tries = 300)
    void headerDescriptionsRoundTrip(@ForAll @IntRange(max = 255) int protocol, @ForAll @IntRange(max = 255) int hop,
                                     @ForAll @IntRange(max = 1400) int payload, @ForAll long sHi, @ForAll long sLo,
                                     @ForAll long dHi, @ForAll long dLo, @ForAll boolean fragment,
                                     @ForAll @IntRange(max = 8000) int units, @ForAll int id) {
        if (isMulticast(sHi) || isExtension(protocol)) return;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(48 + payload);
            IpHeader written = new IpHeader().source(sHi, sLo).destination(dHi, dLo).protocol(protocol).ttl(hop)
                    .payloadLength(payload).id(id);
            boolean more = units % 2 == 0;
            if (fragment) written.fragment(units * 8, more);
            int header = Ipv6.write(s, 0, written);
            IpHeader read = new IpHeader();
            Drop error = Ipv6.read(s, 0, header + payload, read);
            boolean atomic = fragment && units == 0 && !more;
            boolean tooFar = fragment && !atomic && units * 8 + payload > 65535;
            boolean unaligned = fragment && !atomic && more && payload % 8 != 0;
            if (tooFar || unaligned) {
                assertThat(error).isEqualTo(Drop.BAD_FRAGMENT);
                assertThat(read.problemCode()).isEqualTo(Ipv6.PROBLEM_FIELD);
                return;
            }
            assertThat(error).isNull();
            assertThat(new long[] {read.sourceHi(), read.sourceLo(), read.destinationHi(), read.destinationLo()})
                    .containsExactly(sHi, sLo, dHi, dLo);
            assertThat(read.protocol()).isEqualTo(protocol);
            assertThat(read.ttl()).isEqualTo(hop);
            assertThat(read.headerLength()).isEqualTo(header);
            assertThat(read.payloadLength()).isEqualTo(payload);
            assertThat(read.isFragment()).isEqualTo(fragment && !atomic);
            if (read.isFragment()) {
                assertThat(read.fragmentOffset()).isEqualTo(units * 8);
                assertThat(read.moreFragments()).isEqualTo(more);
                assertThat(read.id()).isEqualTo(id);
            }
        }
    }

    private static boolean isMulticast(long hi) {
        return (hi >>> 56) == 0xff;
    }

    private static boolean isExtension(int protocol) {
        return protocol == Ipv6.HOP_BY_HOP || protocol == Ipv6.ROUTING || protocol == Ipv6.FRAGMENT
                || protocol == Ipv6.DESTINATION_OPTIONS || protocol == Ipv6.NO_NEXT_HEADER;
    }

    /** The extension headers a destination walks (RFC 8200 section 4), and where what it cannot take is pointed at. */
    @Test
    void readWalksExtensionHeadersToTheUpperLayer() {
        // fixed header, hop-by-hop (PadN), destination options (Pad1 x6), then UDP
        byte[] packet = Segs.hex("60000000 0018 00 40" + "fd00" + "0".repeat(26) + "01" + "fd00" + "0".repeat(26) + "02"
                + "3c00 0104 00000000" + "1100 0000 00000000" + "0000 0000 0008 0000");
        MemorySegment s = MemorySegment.ofArray(packet);
        IpHeader h = new IpHeader();
        assertThat(Ipv6.read(s, 0, packet.length, h)).isNull();
        assertThat(h.protocol()).isEqualTo(Ipv6.PROTO_UDP);
        assertThat(h.headerLength()).isEqualTo(56);
        assertThat(h.payloadLength()).isEqualTo(8);
        assertThat(h.protocolPointer()).isEqualTo(48);

        packet[40] = (byte) 0xfd; // hop-by-hop names a header that is no extension: the upper layer's, for the stack to know
        assertThat(Ipv6.read(s, 0, packet.length, h)).isNull();
        assertThat(h.protocol()).isEqualTo(0xfd);
        assertThat(h.protocolPointer()).isEqualTo(40);
        packet[40] = 0; // hop-by-hop after hop-by-hop
        assertThat(Ipv6.read(s, 0, packet.length, h)).isEqualTo(Drop.UNSUPPORTED);
        assertThat(h.problemCode()).isEqualTo(Ipv6.PROBLEM_NEXT_HEADER);
        assertThat(h.problemPointer()).isEqualTo(40);
        packet[40] = 0x3c;
        packet[43] = 9; // PadN running past its header
        assertThat(Ipv6.read(s, 0, packet.length, h)).isEqualTo(Drop.BAD_OPTION);
        packet[43] = 4;
        packet[41] = 3; // a header longer than the packet
        assertThat(Ipv6.read(s, 0, packet.length, h)).isEqualTo(Drop.TRUNCATED);
        packet[41] = 0;
        packet[8] = (byte) 0xff; // a multicast source
        assertThat(Ipv6.read(s, 0, packet.length, h)).isEqualTo(Drop.BAD_FIELD);
    }
}
