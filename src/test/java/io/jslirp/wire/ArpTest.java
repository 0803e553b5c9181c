package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class ArpTest {

    /** A who-has 10.0.2.2 from 10.0.2.15 (52:54:00:12:34:56), as captured after the Ethernet header. */
    private static final String REQUEST = "0001 0800 06 04 0001 525400123456 0a00020f 000000000000 0a000202";

    @Property(tries = 300)
    void writeThenReadEveryField(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                 @ForAll @IntRange(max = 0xffff) int op,
                                 @ForAll @LongRange(max = 0xffff_ffff_ffffL) long sha, @ForAll int spa,
                                 @ForAll @LongRange(max = 0xffff_ffff_ffffL) long tha, @ForAll int tpa) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + Arp.LENGTH);
            Arp.write(s, off, op, sha, spa);
            Arp.writeTarget(s, off, tha, tpa);
            assertThat(Arp.check(s, off, Arp.LENGTH)).isNull();
            assertThat(Arp.operation(s, off)).isEqualTo(op);
            assertThat(Arp.senderMac(s, off)).isEqualTo(sha);
            assertThat(Arp.senderIp(s, off)).isEqualTo(spa);
            assertThat(Arp.targetMac(s, off)).isEqualTo(tha);
            assertThat(Arp.targetIp(s, off)).isEqualTo(tpa);
            byte[] b = Segs.bytes(s, off, Arp.LENGTH);
            assertThat(Ref.u16(b, 0)).isEqualTo(1);
            assertThat(Ref.u16(b, 2)).isEqualTo(0x0800);
            assertThat(Ref.u8(b, 4)).isEqualTo(6);
            assertThat(Ref.u8(b, 5)).isEqualTo(4);
            assertThat(Ref.mac(b, 8)).isEqualTo(sha);
            assertThat(Ref.u32(b, 24)).isEqualTo(tpa);
        }
    }

    @Test
    void writeReproducesCapturedRequest() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.allocate(kind, arena, Arp.LENGTH);
                Arp.write(s, 0, Arp.REQUEST, 0x5254_0012_3456L, 0x0a00020f);
                Arp.writeTarget(s, 0, 0, 0x0a000202);
                assertThat(Segs.bytes(s)).containsExactly(Segs.hex(REQUEST));
            }
        }
    }

    @Test
    void validRejectsTruncatedAndForeignPackets() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                byte[] ok = Segs.hex(REQUEST);
                MemorySegment s = Segs.of(kind, arena, ok);
                assertThat(Arp.check(s, 0, 28)).isNull();
                for (int len = 0; len < 28; len++) {
                    assertThat(Arp.check(s.asSlice(0, len), 0, len)).as("len %d", len).isNotNull();
                }
                // Trailing Ethernet padding is fine.
                MemorySegment padded = Segs.of(kind, arena, Ref.concat(ok, new byte[18]));
                assertThat(Arp.check(padded, 0, 46)).isNull();

                int[][] corruptions = {{0, 0x00, 1, 0x06}, {2, 0x86, 3, 0xdd}, {4, 0x08, -1, 0}, {5, 0x10, -1, 0},
                        {0, 0x01, 1, 0x01}};
                for (int[] c : corruptions) {
                    byte[] bad = ok.clone();
                    bad[c[0]] = (byte) c[1];
                    if (c[2] >= 0) bad[c[2]] = (byte) c[3];
                    assertThat(Arp.check(Segs.of(kind, arena, bad), 0, 28)).as("corrupted at %d", c[0]).isNotNull();
                }
            }
        }
    }
}
