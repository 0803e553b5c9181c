package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class OutOfOrderTest {
    /** Random ranges above rcvNxt, merged and advanced, agree with a bit-per-byte model (near the 2^32 wrap too). */
    @Property(tries = 300)
    void agreesWithAByteModel(@ForAll long seed, @ForAll boolean nearWrap) {
        Random r = new Random(seed);
        int base = nearWrap ? -500 : 1000;
        OutOfOrder ooo = new OutOfOrder(OutOfOrder.MAX_RANGES);
        BitSet model = new BitSet();
        int rcvNxt = base;
        for (int step = 0; step < 60; step++) {
            int start = rcvNxt + 1 + r.nextInt(400);
            int len = 1 + r.nextInt(60);
            if (ooo.add(start, start + len)) model.set(start - base, start + len - base);
            assertThat(ooo.count()).isLessThanOrEqualTo(OutOfOrder.MAX_RANGES);
            if (r.nextInt(4) == 0) {
                int newNxt = rcvNxt + r.nextInt(100);
                int gained = ooo.advance(newNxt);
                int expected = 0;
                while (model.get(newNxt - base + expected)) expected++;
                assertThat(gained).isEqualTo(expected);
                rcvNxt = newNxt + gained;
                model.clear(0, rcvNxt - base);
            }
        }
        int[] edges = new int[2 * OutOfOrder.MAX_RANGES];
        int blocks = ooo.sackBlocks(edges, OutOfOrder.MAX_RANGES);
        BitSet reported = new BitSet();
        for (int i = 0; i < blocks; i++) reported.set(edges[2 * i] - base, edges[2 * i + 1] - base);
        assertThat(reported).isEqualTo(model);
    }
}
