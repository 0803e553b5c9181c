package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** ICMPv6, UDP and TCP checksums over the IPv6 pseudo-header, against the textbook reference. */
class Icmpv6Test {

    @Property(tries = 300)
    void icmpChecksumMatchesReferenceAndVerifies(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                                 @ForAll @Size(min = 8, max = 120) byte[] message,
                                                 @ForAll long sHi, @ForAll long sLo, @ForAll long dHi, @ForAll long dLo) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + message.length);
            MemorySegment.copy(MemorySegment.ofArray(message), 0, s, off, message.length);
            Icmp.fillChecksum(s, off, message.length, Checksum.pseudoHeader6(sHi, sLo, dHi, dLo, 58, message.length));

            byte[] zeroed = message.clone();
            zeroed[2] = 0;
            zeroed[3] = 0;
            byte[] pseudo = Ref.pseudoHeader6(Ref.address6(sHi, sLo), Ref.address6(dHi, dLo), 58, message.length);
            byte[] out = Segs.bytes(s, off, message.length);
            assertThat(Ref.u16(out, 2)).isEqualTo(Ref.checksum(Ref.concat(pseudo, zeroed)));
            assertThat(Icmp.check(s, off, message.length, IpVersion.V6, new IpHeader().source(sHi, sLo).destination(dHi, dLo))).isNull();
            assertThat(Icmp.check(s, off, message.length, IpVersion.V6, new IpHeader().source(sHi, sLo ^ 0x100).destination(dHi, dLo)))
                    .isEqualTo(Drop.BAD_CHECKSUM);
        }
    }

    @Property(tries = 300)
    void udpChecksumMatchesReference(@ForAll @Size(max = 200) byte[] payload, @ForAll @IntRange(max = 65535) int sp,
                                     @ForAll @IntRange(max = 65535) int dp, @ForAll long sHi, @ForAll long sLo,
                                     @ForAll long dHi, @ForAll long dLo) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(8 + payload.length);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, s, 8, payload.length);
            Udp.write(s, 0, sp, dp, payload.length, Checksum.pseudoHeader6(sHi, sLo, dHi, dLo, 17, 8 + payload.length));
            byte[] out = Segs.bytes(s);
            byte[] pseudo = Ref.pseudoHeader6(Ref.address6(sHi, sLo), Ref.address6(dHi, dLo), 17, out.length);
            assertThat(Ref.u16(out, 0)).isEqualTo(sp);
            assertThat(Ref.u16(out, 2)).isEqualTo(dp);
            assertThat(Ref.u16(out, 4)).isEqualTo(8 + payload.length);
            assertThat(Ref.u16(out, 6)).isNotZero(); // 0 means "no checksum", which IPv6 forbids
            assertThat(Ref.checksum(Ref.concat(pseudo, out))).isIn(0, 0xffff);
        }
    }

    @Property(tries = 300)
    void tcpChecksumsMatchReference(@ForAll @Size(min = 20, max = 200) byte[] segment, @ForAll long sHi, @ForAll long sLo,
                                    @ForAll long dHi, @ForAll long dLo) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(segment.length);
            MemorySegment.copy(MemorySegment.ofArray(segment), 0, s, 0, segment.length);
            byte[] pseudo = Ref.pseudoHeader6(Ref.address6(sHi, sLo), Ref.address6(dHi, dLo), 6, segment.length);
            Tcp.fillChecksum(s, 0, segment.length, Checksum.pseudoHeader6(sHi, sLo, dHi, dLo, 6, segment.length));
            assertThat(Ref.checksum(Ref.concat(pseudo, Segs.bytes(s)))).isZero();

            // Offload: only the pseudo-header's sum, which the receiver's checksum of the rest completes.
            Tcp.setPartialChecksum(s, 0, Checksum.pseudoHeader6(sHi, sLo, dHi, dLo, 6, segment.length));
            assertThat(Bytes.u16(s, 16)).isEqualTo(Ref.sum(pseudo, 0, 40, 0));
        }
    }
}
