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

class EthernetTest {

    @Property(tries = 300)
    void writeThenReadEveryField(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                 @ForAll @LongRange(max = 0xffff_ffff_ffffL) long dst,
                                 @ForAll @LongRange(max = 0xffff_ffff_ffffL) long src,
                                 @ForAll @IntRange(max = 0xffff) int type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + Ethernet.HEADER_LENGTH);
            Ethernet.write(s, off, dst, src, type);
            assertThat(Ethernet.destination(s, off)).isEqualTo(dst);
            assertThat(Ethernet.source(s, off)).isEqualTo(src);
            assertThat(Ethernet.type(s, off)).isEqualTo(type);
            byte[] h = Segs.bytes(s, off, 14);
            assertThat(Ref.mac(h, 0)).isEqualTo(dst);
            assertThat(Ref.mac(h, 6)).isEqualTo(src);
            assertThat(Ref.u16(h, 12)).isEqualTo(type);
        }
    }

    @Test
    void readsCapturedFrameHeader() {
        MemorySegment s = MemorySegment.ofArray(Segs.hex("ffffffffffff 525400123456 0806"));
        assertThat(Ethernet.destination(s, 0)).isEqualTo(Ethernet.BROADCAST);
        assertThat(Ethernet.source(s, 0)).isEqualTo(0x5254_0012_3456L);
        assertThat(Ethernet.type(s, 0)).isEqualTo(Ethernet.TYPE_ARP);
    }
}
