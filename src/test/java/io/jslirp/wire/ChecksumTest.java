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

class ChecksumTest {

    @Property(tries = 500)
    void matchesReferenceOnRandomBytesLengthsAndOffsets(@ForAll Kind kind, @ForAll @Size(max = 300) byte[] data,
                                                        @ForAll @IntRange(max = 300) int offSeed,
                                                        @ForAll @IntRange(max = 300) int lenSeed) {
        int off = offSeed % (data.length + 1);
        int len = lenSeed % (data.length - off + 1);
        try (Arena arena = Arena.ofConfined()) {
            // Sliced to exactly off + len bytes so reading one byte too many throws.
            MemorySegment s = Segs.of(kind, arena, data).asSlice(0, off + len);
            assertThat(Checksum.of(s, off, len)).isEqualTo(Ref.checksum(data, off, len));
            assertThat(Checksum.sum(s, off, len, 0)).isEqualTo(Ref.sum(data, off, len, 0));
        }
    }

    @Property(tries = 300)
    void sumContinuesFromAnInitialPartialSum(@ForAll Kind kind, @ForAll @Size(max = 100) byte[] data,
                                             @ForAll int initial) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(kind, arena, data);
            assertThat(Checksum.sum(s, 0, data.length, initial))
                    .isEqualTo(Ref.sum(data, 0, data.length, initial & 0xffffffffL));
        }
    }

    @Property(tries = 300)
    void sumOfPiecesSplitAtEvenOffsetsEqualsSumOfWhole(@ForAll Kind kind, @ForAll @Size(max = 200) byte[] data,
                                                       @ForAll @IntRange(max = 100) int splitSeed) {
        int split = (splitSeed * 2) % (data.length + 1) & ~1;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(kind, arena, data);
            int first = Checksum.sum(s, 0, split, 0);
            int both = Checksum.sum(s, split, data.length - split, first);
            assertThat(Checksum.finish(both)).isEqualTo(Checksum.of(s, 0, data.length));
        }
    }

    @Property(tries = 300)
    void dataWithItsChecksumAppendedVerifiesToZero(@ForAll Kind kind, @ForAll @Size(max = 100) byte[] body) {
        byte[] even = body.length % 2 == 0 ? body : Ref.concat(body, new byte[1]);
        byte[] whole = Ref.concat(even, new byte[2]);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(kind, arena, whole);
            Bytes.u16(s, even.length, Checksum.of(s, 0, even.length));
            assertThat(Checksum.of(s, 0, whole.length)).isZero();
        }
    }

    @Property(tries = 300)
    void pseudoHeaderMatchesReference(@ForAll int src, @ForAll int dst, @ForAll @IntRange(max = 255) int protocol,
                                      @ForAll @IntRange(max = 0xffff) int length) {
        byte[] p = Ref.pseudoHeader4(src, dst, protocol, length);
        assertThat(Checksum.pseudoHeader4(src, dst, protocol, length)).isEqualTo(Ref.sum(p, 0, p.length, 0));
    }

    @Test
    void aLargeFrameSumsTheSameOnceTheLoopIsCompiled() {
        // 64 KiB at each alignment, thousands of times: the summing loop gets compiled (by C2, as
        // vector code) while it runs, and every answer must match the reference's.
        byte[] data = new byte[65535 + 3];
        new java.util.Random(7).nextBytes(data);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(Kind.NATIVE, arena, data);
            int[] want = new int[4];
            for (int off = 0; off < 4; off++) want[off] = Ref.sum(data, off, 65535 - off, 0x1234);
            for (int round = 0; round < 4000; round++) {
                int off = round & 3;
                assertThat(Checksum.sum(s, off, 65535 - off, 0x1234)).isEqualTo(want[off]);
            }
        }
    }

    @Test
    void rfc1071NumericalExample() {
        // RFC 1071 section 3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2, so the checksum is 220d.
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, Segs.hex("0001 f203 f4f5 f6f7"));
                assertThat(Checksum.sum(s, 0, 8, 0)).isEqualTo(0xddf2);
                assertThat(Checksum.of(s, 0, 8)).isEqualTo(0x220d);
            }
        }
    }

    @Test
    void capturedIpv4HeaderVerifies() {
        // A real header: 192.168.0.1 -> 192.168.0.199, UDP, total length 115, DF, TTL 64, checksum b861.
        byte[] header = Segs.hex("4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7");
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, header);
                assertThat(Checksum.of(s, 0, 20)).isZero();
                Bytes.u16(s, 10, 0);
                assertThat(Checksum.of(s, 0, 20)).isEqualTo(0xb861);
            }
        }
    }

    @Test
    void edgeValues() {
        MemorySegment empty = MemorySegment.ofArray(new byte[0]);
        assertThat(Checksum.of(empty, 0, 0)).isEqualTo(0xffff);
        MemorySegment ones = MemorySegment.ofArray(Segs.hex("ffff ffff ff"));
        assertThat(Checksum.sum(ones, 0, 4, 0)).isEqualTo(0xffff);
        assertThat(Checksum.of(ones, 0, 4)).isZero();
        // ffff + ffff + ff00 = 2fefe -> fefe + 2 = ff00
        assertThat(Checksum.sum(ones, 0, 5, 0)).isEqualTo(0xff00);
        // An odd trailing byte is the high byte of a zero-padded word.
        MemorySegment odd = MemorySegment.ofArray(Segs.hex("01"));
        assertThat(Checksum.sum(odd, 0, 1, 0)).isEqualTo(0x0100);
        assertThat(Checksum.fold(0x1_fffeL)).isEqualTo(0xffff);
        assertThat(Checksum.fold(0xffff_ffffL)).isEqualTo(0xffff);
        assertThat(Checksum.finish(0x1234)).isEqualTo(0xedcb);
    }

    @Test
    void unalignedLongRunsOnNativeMemory() {
        // The 8-byte fast path must give the same answer at every alignment.
        byte[] data = new byte[64];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 37 + 11);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(Kind.NATIVE, arena, data);
            for (int off = 0; off < 8; off++) {
                for (int len = 0; len <= data.length - off; len++) {
                    assertThat(Checksum.of(s, off, len)).as("off %d len %d", off, len)
                            .isEqualTo(Ref.checksum(data, off, len));
                }
            }
        }
    }
}
