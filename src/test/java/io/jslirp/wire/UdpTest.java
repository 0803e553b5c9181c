package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class UdpTest {

    @Property(tries = 300)
    void write4ThenReadEveryFieldAndVerifyChecksum(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                                   @ForAll @IntRange(max = 0xffff) int sp,
                                                   @ForAll @IntRange(max = 0xffff) int dp,
                                                   @ForAll @Size(max = 200) byte[] payload,
                                                   @ForAll int srcIp, @ForAll int dstIp) {
        int len = Udp.HEADER_LENGTH + payload.length;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + len);
            s.fill((byte) 0x5a);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, s, off + 8, payload.length);
            Udp.write(s, off, sp, dp, payload.length, Checksum.pseudoHeader4(srcIp, dstIp, 17, len));

            assertThat(Udp.sourcePort(s, off)).isEqualTo(sp);
            assertThat(Udp.destinationPort(s, off)).isEqualTo(dp);
            assertThat(Udp.length(s, off)).isEqualTo(len);
            assertThat(Udp.check(s, off, len)).isNull();

            byte[] datagram = Segs.bytes(s, off, len);
            assertThat(Ref.u16(datagram, 0)).isEqualTo(sp);
            assertThat(Ref.u16(datagram, 2)).isEqualTo(dp);
            assertThat(Ref.u16(datagram, 4)).isEqualTo(len);
            byte[] pseudo = Ref.pseudoHeader4(srcIp, dstIp, 17, len);
            byte[] zeroed = datagram.clone();
            zeroed[6] = 0;
            zeroed[7] = 0;
            int expected = Ref.checksum(Ref.concat(pseudo, zeroed));
            assertThat(Ref.u16(datagram, 6)).isEqualTo(expected == 0 ? 0xffff : expected);
            assertThat(Ref.checksum(Ref.concat(pseudo, datagram))).as("verifies").isZero();
        }
    }

    @Test
    void computedZeroChecksumIsSentAsAllOnes() {
        // Choose the last payload word so the whole sum is 0xffff: the computed checksum is 0, which
        // RFC 768 reserves for "no checksum", so 0xffff must be sent instead.
        int srcIp = 0x0a000202, dstIp = 0x0a00020f;
        byte[] datagram = Segs.hex("0035 c001 000c 0000 1234 0000");
        int partial = Ref.sum(Ref.concat(Ref.pseudoHeader4(srcIp, dstIp, 17, 12), datagram), 0, 24, 0);
        Ref.put16(datagram, 10, 0xffff - partial);
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, datagram);
                Udp.write(s, 0, 53, 0xc001, 4, Checksum.pseudoHeader4(srcIp, dstIp, 17, 12));
                assertThat(Bytes.u16(s, 6)).isEqualTo(0xffff);
                assertThat(Ref.checksum(Ref.concat(Ref.pseudoHeader4(srcIp, dstIp, 17, 12), Segs.bytes(s)))).isZero();
            }
        }
    }

    @Test
    void checkRejectsTruncatedAndInconsistentLengths() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                byte[] b = Segs.hex("0044 0043 000c 0000 01020304 0000");
                MemorySegment s = Segs.of(kind, arena, b);
                assertThat(Udp.check(s.asSlice(0, 12), 0, 12)).isNull();
                assertThat(Udp.check(s, 0, 14)).as("IP payload longer than the datagram").isNull();
                for (int len = 0; len < 8; len++) {
                    assertThat(Udp.check(s.asSlice(0, len), 0, len)).isEqualTo(Drop.TRUNCATED);
                }
                assertThat(Udp.check(s.asSlice(0, 11), 0, 11)).as("length > buffer").isEqualTo(Drop.BAD_LENGTH);
                for (int l : new int[] {0, 1, 7, 15, 0xffff}) {
                    Bytes.u16(s, 4, l);
                    assertThat(Udp.check(s, 0, 14)).as("length field %d", l).isEqualTo(Drop.BAD_LENGTH);
                }
                Bytes.u16(s, 4, 8);
                assertThat(Udp.check(s, 0, 14)).as("empty datagram").isNull();
            }
        }
    }
}
