package io.jslirp.util;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class AddressBookTest {
    record Address(long hi, long lo) {}

    /** Random acquires and releases over a few addresses (many collisions, growth, reuse) agree with a reference count map. */
    @Property(tries = 200)
    void countsReferencesLikeAMap(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3000) int operations) {
        Random r = new Random(seed);
        AddressBook book = new AddressBook();
        Map<Address, Integer> refs = new HashMap<>();
        Map<Address, Integer> handles = new HashMap<>();
        for (int i = 0; i < operations; i++) {
            Address a = new Address(0xfd00_0000_0000_0000L + r.nextInt(3), r.nextInt(60));
            Integer held = refs.get(a);
            if (held != null && r.nextInt(2) == 0) {
                book.release(handles.get(a));
                if (held == 1) {
                    refs.remove(a);
                    handles.remove(a);
                } else {
                    refs.put(a, held - 1);
                }
            } else {
                int h = book.acquire(a.hi, a.lo);
                assertThat(h).isNotEqualTo(AddressBook.NONE);
                if (held != null) assertThat(h).isEqualTo(handles.get(a));
                handles.put(a, h);
                refs.merge(a, 1, Integer::sum);
            }
            assertThat(book.size()).isEqualTo(refs.size());
        }
        assertThat(new java.util.HashSet<>(handles.values())).hasSize(handles.size()); // one handle per address
        for (Map.Entry<Address, Integer> e : handles.entrySet()) {
            assertThat(book.hi(e.getValue())).isEqualTo(e.getKey().hi);
            assertThat(book.lo(e.getValue())).isEqualTo(e.getKey().lo);
        }
    }

    @Test
    void aHandleLivesAsLongAsItsLastReference() {
        AddressBook book = new AddressBook();
        int a = book.acquire(0xfd00_0000_0000_0000L, 2);
        book.retain(a);
        assertThat(book.acquire(0xfd00_0000_0000_0000L, 2)).isEqualTo(a);
        book.release(a);
        book.release(a);
        assertThat(book.size()).isEqualTo(1);
        book.release(a);
        assertThat(book.size()).isZero();
        int b = book.acquire(0, 1);
        assertThat(b).isEqualTo(a); // the freed handle is reused
        assertThat(book.lo(b)).isEqualTo(1);
    }
}
