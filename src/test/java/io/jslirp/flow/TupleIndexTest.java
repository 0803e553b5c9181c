package io.jslirp.flow;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TupleIndexTest {
    private static final int LANE = 1;
    record Key(int a, int pa, int b, int pb) {}

    /** Random puts and removes over a small key space (many collisions) agree with a HashMap. */
    @Property(tries = 200)
    void behavesLikeAMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3000) int operations) {
        Random r = new Random(seed);
        TupleIndex<Key> table = new TupleIndex<>(4);
        Map<Key, Key> model = new HashMap<>();
        for (int i = 0; i < operations; i++) {
            Key k = new Key(0x0a000200 + r.nextInt(4), r.nextInt(8), 0x7f000001 + r.nextInt(3), r.nextInt(40));
            if (r.nextInt(3) == 0) {
                table.remove(LANE, k.a, k.pa, k.b, k.pb);
                model.remove(k);
            } else {
                table.put(LANE, k.a, k.pa, k.b, k.pb, k);
                model.put(k, k);
            }
            Key probe = new Key(0x0a000200 + r.nextInt(4), r.nextInt(8), 0x7f000001 + r.nextInt(3), r.nextInt(40));
            assertThat(table.get(LANE, probe.a, probe.pa, probe.b, probe.pb)).isEqualTo(model.get(probe));
        }
        assertThat(table.size()).isEqualTo(model.size());
        for (Key k : model.keySet()) assertThat(table.get(LANE, k.a, k.pa, k.b, k.pb)).isSameAs(model.get(k));
        List<Key> seen = new java.util.ArrayList<>();
        table.forEach(seen::add);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(model.values());
    }

    @Test
    void portsAndAddressesAreDistinguished() {
        TupleIndex<String> table = new TupleIndex<>(16);
        table.put(LANE, 1, 2, 3, 4, "a");
        assertThat(table.get(LANE, 1, 2, 3, 4)).isEqualTo("a");
        assertThat(table.get(LANE, 3, 4, 1, 2)).isNull();
        assertThat(table.get(LANE, 1, 4, 3, 2)).isNull();
        assertThat(table.get(LANE, 1, 2, 3, 5)).isNull();
    }

    @Test
    void lanesAreDistinguished() {
        TupleIndex<String> table = new TupleIndex<>(16);
        table.put(0, 1, 2, 3, 4, "tcp");
        table.put(1, 1, 2, 3, 4, "udp");
        assertThat(table.get(0, 1, 2, 3, 4)).isEqualTo("tcp");
        assertThat(table.get(1, 1, 2, 3, 4)).isEqualTo("udp");
        assertThat(table.get(2, 1, 2, 3, 4)).isNull();
        table.remove(0, 1, 2, 3, 4);
        assertThat(table.get(1, 1, 2, 3, 4)).isEqualTo("udp");
        assertThat(table.size()).isEqualTo(1);
    }
}
