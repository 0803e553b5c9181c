package io.jslirp.util;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class FlowTableTest {
    record Key(int a, int pa, int b, int pb) {}

    /** Random puts and removes over a small key space (many collisions) agree with a HashMap. */
    @Property(tries = 200)
    void behavesLikeAMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3000) int operations) {
        Random r = new Random(seed);
        FlowTable<Key> table = new FlowTable<>(4);
        Map<Key, Key> model = new HashMap<>();
        for (int i = 0; i < operations; i++) {
            Key k = new Key(0x0a000200 + r.nextInt(4), r.nextInt(8), 0x7f000001 + r.nextInt(3), r.nextInt(40));
            if (r.nextInt(3) == 0) {
                table.remove(k.a, k.pa, k.b, k.pb);
                model.remove(k);
            } else {
                table.put(k.a, k.pa, k.b, k.pb, k);
                model.put(k, k);
            }
            Key probe = new Key(0x0a000200 + r.nextInt(4), r.nextInt(8), 0x7f000001 + r.nextInt(3), r.nextInt(40));
            assertThat(table.get(probe.a, probe.pa, probe.b, probe.pb)).isEqualTo(model.get(probe));
        }
        assertThat(table.size()).isEqualTo(model.size());
        for (Key k : model.keySet()) assertThat(table.get(k.a, k.pa, k.b, k.pb)).isSameAs(model.get(k));
        List<Key> seen = new java.util.ArrayList<>();
        table.forEach(seen::add);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(model.values());
    }

    @Test
    void portsAndAddressesAreDistinguished() {
        FlowTable<String> table = new FlowTable<>(16);
        table.put(1, 2, 3, 4, "a");
        assertThat(table.get(1, 2, 3, 4)).isEqualTo("a");
        assertThat(table.get(3, 4, 1, 2)).isNull();
        assertThat(table.get(1, 4, 3, 2)).isNull();
        assertThat(table.get(1, 2, 3, 5)).isNull();
    }
}
