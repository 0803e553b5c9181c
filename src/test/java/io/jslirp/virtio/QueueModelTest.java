package io.jslirp.virtio;

import static io.jslirp.virtio.Virtqueue.DESC_NEXT;
import static io.jslirp.virtio.Virtqueue.DESC_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Any interleaving of a well-behaved driver's offers and the device's pops, pushes, rewinds and
 * publishes keeps the rings consistent: each chain comes out once, whole and in offer order, the
 * used index counts exactly the published pushes, and each used element names a chain in flight.
 */
class QueueModelTest {
    @Property(tries = 200)
    void anyInterleavingKeepsTheRingsConsistent(@ForAll long seed) throws VirtioException {
        Random r = new Random(seed);
        int size = 1 << (1 + r.nextInt(4));
        try (Driver driver = new Driver(size, r.nextInt(65536))) {
            int start = driver.usedIdx();
            Virtqueue q = driver.queue(r.nextBoolean() ? 1L << Virtqueue.F_EVENT_IDX : 0);
            ArrayDeque<Integer> free = new ArrayDeque<>();
            for (int i = 0; i < size; i++) free.add(i);
            ArrayDeque<Integer> offered = new ArrayDeque<>(); // heads made available, not yet popped, in order
            List<Integer> popped = new ArrayList<>();         // heads popped, not yet pushed
            int[] lengthOf = new int[size];
            int pushed = 0, published = 0, reclaimed = 0, sincePush = 0;
            for (int step = 0; step < 400; step++) {
                switch (r.nextInt(5)) {
                    case 0 -> { // the driver offers a chain of one or two descriptors
                        if (free.size() < 2) break;
                        int head = free.poll(), second = free.poll();
                        int len = 1 + r.nextInt(32);
                        driver.desc(head, driver.buffer(len, head), len, DESC_NEXT, second);
                        driver.desc(second, driver.buffer(8, 0), 8, DESC_WRITE, 0);
                        lengthOf[head] = len;
                        driver.offer(head);
                        offered.add(head * 1000 + second);
                    }
                    case 1 -> {
                        Chain c = q.pop();
                        if (offered.isEmpty()) {
                            assertThat(c).isNull();
                            break;
                        }
                        int expected = offered.poll();
                        assertThat(c.head()).isEqualTo(expected / 1000);
                        assertThat(c.readableBytes()).isEqualTo(lengthOf[c.head()]);
                        assertThat(c.writableBytes()).isEqualTo(8);
                        popped.add(expected);
                        sincePush++;
                    }
                    case 2 -> {
                        if (popped.isEmpty()) break;
                        int e = popped.remove(r.nextInt(popped.size()));
                        q.push(e / 1000, e % 1000); // the length field carries the second descriptor back to the driver
                        pushed++;
                        sincePush = 0;
                    }
                    case 3 -> {
                        q.publish();
                        published = pushed;
                    }
                    default -> { // the driver reclaims what was published (the head and the second descriptor)
                        int used = (driver.usedIdx() - start) & 0xffff;
                        assertThat(used).isEqualTo(published & 0xffff);
                        for (; reclaimed < used; reclaimed++) {
                            int id = driver.usedId(start + reclaimed), second = driver.usedLen(start + reclaimed);
                            free.add(id);
                            free.add(second);
                        }
                    }
                }
                if (r.nextInt(20) == 0 && sincePush > 0) { // a frame that did not fit gives back its latest pops
                    int k = 1 + r.nextInt(sincePush);
                    q.rewind(k);
                    for (int i = 0; i < k; i++) offered.addFirst(popped.removeLast());
                    sincePush -= k;
                }
                assertThat(q.inFlight()).isEqualTo(popped.size());
                assertThat(q.usedIndex()).isEqualTo((start + pushed) & 0xffff);
            }
        }
    }
}
