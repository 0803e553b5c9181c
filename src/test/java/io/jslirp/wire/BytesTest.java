package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class BytesTest {

    @Property(tries = 300)
    void fieldsAreBigEndianAndRoundTrip(@ForAll Kind kind, @ForAll @IntRange(max = 9) int off,
                                        @ForAll @IntRange(max = 0xff) int a, @ForAll @IntRange(max = 0xffff) int b,
                                        @ForAll int c, @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + 13);
            Bytes.u8(s, off, a);
            Bytes.u16(s, off + 1, b);
            Bytes.u32(s, off + 3, c);
            Bytes.mac(s, off + 7, mac);

            assertThat(Bytes.u8(s, off)).isEqualTo(a);
            assertThat(Bytes.u16(s, off + 1)).isEqualTo(b);
            assertThat(Bytes.u32(s, off + 3)).isEqualTo(c);
            assertThat(Bytes.mac(s, off + 7)).isEqualTo(mac);

            byte[] raw = Segs.bytes(s);
            assertThat(Ref.u8(raw, off)).isEqualTo(a);
            assertThat(Ref.u16(raw, off + 1)).isEqualTo(b);
            assertThat(Ref.u32(raw, off + 3)).isEqualTo(c);
            assertThat(Ref.mac(raw, off + 7)).isEqualTo(mac);
        }
    }

    @Test
    void readsAreUnsigned() {
        MemorySegment s = MemorySegment.ofArray(new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xfd, (byte) 0xfc,
                (byte) 0xfb, (byte) 0xfa});
        assertThat(Bytes.u8(s, 0)).isEqualTo(0xff);
        assertThat(Bytes.u16(s, 0)).isEqualTo(0xfffe);
        assertThat(Bytes.u32(s, 0)).isEqualTo(0xfffefdfc);
        assertThat(Bytes.mac(s, 0)).isEqualTo(0xfffe_fdfc_fbfaL);
    }

    @Test
    void writesTruncateToFieldWidth() {
        MemorySegment s = MemorySegment.ofArray(new byte[4]);
        Bytes.u8(s, 0, 0x1ab);
        Bytes.u16(s, 1, 0x12345);
        assertThat(Segs.bytes(s)).containsExactly(0xab, 0x23, 0x45, 0x00);
    }

    @Test
    void outOfBoundsAccessThrowsInsteadOfReadingPastTheSegment() {
        MemorySegment s = MemorySegment.ofArray(new byte[3]);
        assertThatThrownBy(() -> Bytes.u32(s, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Bytes.u16(s, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
