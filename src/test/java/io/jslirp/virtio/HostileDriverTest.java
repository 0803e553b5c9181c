package io.jslirp.virtio;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * A driver writing anything into its rings (descriptor tables, indirect tables, available entries
 * and index, event fields): the queue answers with chains or typed refusals, never another
 * exception, every chain it hands out lies inside guest memory, and a refused chain is back in the
 * used ring.
 */
class HostileDriverTest {
    private static final long FEATURES = 1L << Virtqueue.F_INDIRECT_DESC | 1L << Virtqueue.F_EVENT_IDX;

    @Property(tries = 300)
    void anythingInTheRingsIsAChainOrARefusal(@ForAll long seed) throws VirtioException {
        Random r = new Random(seed);
        int size = 1 << r.nextInt(6);
        try (Driver driver = new Driver(size, r.nextInt(65536)); Arena arena = Arena.ofConfined()) {
            Virtqueue q = driver.queue(r.nextBoolean() ? FEATURES : 0);
            MemorySegment sink = arena.allocate(1 << 21);
            long tables = driver.buffer(16 * 64, 0);
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < size; i++) driver.desc(i, address(r), length(r), r.nextInt(8), next(r, size));
                for (int i = 0; i < 64; i++) Driver.desc(driver.seg(tables), i, r.nextInt(3) == 0 ? tables : address(r), length(r), r.nextInt(8), next(r, 64));
                int offers = r.nextInt(size + 1);
                for (int i = 0; i < offers; i++) driver.offer(r.nextInt(8) == 0 ? r.nextInt(65536) : r.nextInt(size));
                if (r.nextInt(10) == 0) driver.availIndex(r.nextInt(65536));
                drain(q, r, sink);
                if (q.broken() != null) return;
            }
        }
    }

    private static void drain(Virtqueue q, Random r, MemorySegment sink) {
        for (int n = 0; n <= q.size(); n++) {
            int usedBefore = q.usedIndex();
            Chain c;
            try {
                c = q.pop();
            } catch (VirtioException e) {
                if (e.fault().fatal()) {
                    assertThat(q.broken()).isEqualTo(e.fault());
                    return;
                }
                if (e.fault() != Fault.BAD_DESCRIPTOR_INDEX || q.usedIndex() != usedBefore)
                    assertThat(q.usedIndex()).as("a refused chain is returned").isEqualTo((usedBefore + 1) & 0xffff);
                continue;
            }
            if (c == null) return;
            long total = 0;
            for (int i = 0; i < c.buffers(); i++) {
                assertThat(c.offset(i)).isNotNegative();
                assertThat(c.offset(i) + c.length(i)).isLessThanOrEqualTo(c.segment(i).byteSize());
                total += c.length(i);
            }
            assertThat(total).isEqualTo(c.readableBytes() + c.writableBytes());
            long len = Math.min(c.readableBytes(), sink.byteSize());
            assertThat(c.read(0, sink, 0, len)).isEqualTo(len);
            q.push(c.head(), r.nextInt(100));
        }
        q.publish();
        q.shouldNotify();
        q.allowKicks();
    }

    /** Mostly inside guest memory, sometimes near its edges, sometimes anything. */
    private static long address(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextLong();
            case 1 -> Driver.GPA1 + Driver.REGION - r.nextInt(64);
            default -> Driver.GPA0 + r.nextInt((int) (2 * Driver.REGION));
        };
    }

    private static int length(Random r) {
        return r.nextInt(8) == 0 ? r.nextInt() : r.nextInt(4096);
    }

    private static int next(Random r, int size) {
        return r.nextInt(8) == 0 ? r.nextInt(65536) : r.nextInt(size);
    }
}
