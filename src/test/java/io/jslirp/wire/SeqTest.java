package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class SeqTest {

    @Property(tries = 500)
    void comparisonsAreAntisymmetricAndConsistent(@ForAll int a, @ForAll int b) {
        assertThat(Seq.lt(a, a)).isFalse();
        assertThat(Seq.gt(a, a)).isFalse();
        assertThat(Seq.le(a, a)).isTrue();
        assertThat(Seq.ge(a, a)).isTrue();
        if (b - a == Integer.MIN_VALUE) {
            return; // exactly half the space apart: the order is undefined (RFC 1982 section 3.2)
        }
        assertThat(Seq.lt(a, b)).isEqualTo(Seq.gt(b, a));
        assertThat(Seq.le(a, b)).isEqualTo(Seq.ge(b, a));
        assertThat(Seq.lt(a, b) && Seq.lt(b, a)).isFalse();
        assertThat(Seq.gt(a, b) && Seq.gt(b, a)).isFalse();
        assertThat(Seq.le(a, b)).isEqualTo(Seq.lt(a, b) || a == b);
        assertThat(Seq.ge(a, b)).isEqualTo(Seq.gt(a, b) || a == b);
        if (a != b) {
            assertThat(Seq.lt(a, b) ^ Seq.lt(b, a)).isTrue();
        }
    }

    @Property(tries = 500)
    void aNumberIsBeforeEveryNumberLessThanHalfTheSpaceAhead(@ForAll int a,
                                                            @ForAll @LongRange(min = 1, max = (1L << 31) - 1) long d) {
        int b = (int) ((a & 0xffffffffL) + d); // a + d modulo 2^32, maybe wrapping past zero
        assertThat(Seq.lt(a, b)).isTrue();
        assertThat(Seq.le(a, b)).isTrue();
        assertThat(Seq.gt(b, a)).isTrue();
        assertThat(Seq.ge(b, a)).isTrue();
        assertThat(Seq.gt(a, b)).isFalse();
        assertThat(Seq.ge(a, b)).isFalse();
    }

    @Property(tries = 500)
    void inWindowHoldsForExactlyTheSizeNumbersFromStart(@ForAll int start, @ForAll @IntRange(min = 0) int size,
                                                        @ForAll @LongRange(max = 0xffff_ffffL) long distance) {
        int x = (int) ((start & 0xffffffffL) + distance);
        assertThat(Seq.inWindow(x, start, size)).isEqualTo(distance < size);
    }

    @Property(tries = 200)
    void inWindowAroundTheWrap(@ForAll @IntRange(min = 1, max = 100) int before, @ForAll @IntRange(min = 1, max = 100) int after) {
        int start = -before; // 2^32 - before
        int size = before + after;
        assertThat(Seq.inWindow(start, start, size)).isTrue();
        assertThat(Seq.inWindow(-1, start, size)).isTrue();
        assertThat(Seq.inWindow(0, start, size)).isTrue();
        assertThat(Seq.inWindow(after - 1, start, size)).isTrue();
        assertThat(Seq.inWindow(after, start, size)).isFalse();
        assertThat(Seq.inWindow(start - 1, start, size)).isFalse();
    }

    @Test
    void knownValues() {
        assertThat(Seq.lt(0xfffffff0, 5)).isTrue();
        assertThat(Seq.gt(5, 0xfffffff0)).isTrue();
        assertThat(Seq.lt(0x7fffffff, 0x80000000)).isTrue();
        assertThat(Seq.inWindow(0x0f, 0xfffffff0, 0x20)).isTrue();
        assertThat(Seq.inWindow(0x10, 0xfffffff0, 0x20)).isFalse();
        assertThat(Seq.inWindow(0xffffffef, 0xfffffff0, 0x20)).isFalse();
        assertThat(Seq.inWindow(7, 7, 0)).as("empty window").isFalse();
    }
}
