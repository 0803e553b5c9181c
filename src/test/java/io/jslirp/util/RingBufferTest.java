package io.jslirp.util;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingBufferTest {
    private final BufferPool pool = new BufferPool(1 << 20);

    /**
     * Appends (direct and through the write spans, as a read syscall does), peeks (copied, and in
     * place as a gathering write takes them), discards and growth agree with a deque.
     */
    @Property(tries = 200)
    void behavesLikeAByteQueue(@ForAll long seed) {
        Random r = new Random(seed);
        try (Arena arena = Arena.ofConfined()) {
            RingBuffer ring = new RingBuffer(pool, 16, 128);
            ArrayDeque<Byte> model = new ArrayDeque<>();
            MemorySegment src = arena.allocate(256);
            MemorySegment dst = arena.allocate(256);
            for (int step = 0; step < 300; step++) {
                if (r.nextInt(20) == 0) ring.grow();
                if (ring.isEmpty() && r.nextInt(4) == 0) ring.release(); // no bytes written ahead between steps
                switch (r.nextInt(4)) {
                    case 0 -> {
                        int len = r.nextInt(80);
                        for (int i = 0; i < len; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
                        int n = ring.append(src, 0, len);
                        assertThat(n).isEqualTo(Math.min(len, ring.capacity() - model.size()));
                        for (int i = 0; i < n; i++) model.add(src.get(ValueLayout.JAVA_BYTE, i));
                    }
                    case 1 -> {
                        // Fill the free spans the way readv2 would, then commit.
                        int n = r.nextInt(ring.free() + 1);
                        int first = Math.min(n, ring.writeSpan());
                        for (int i = 0; i < n; i++) {
                            byte b = (byte) r.nextInt();
                            long at = i < first ? ring.writeOffset() + i : i - first;
                            ring.memory().set(ValueLayout.JAVA_BYTE, at, b);
                            model.add(b);
                        }
                        assertThat(ring.writeSpan() + ring.writeSpan2()).isEqualTo(ring.free());
                        ring.commitWrite(n);
                    }
                    case 2 -> {
                        int n = r.nextInt(model.size() + 1);
                        ring.discard(n);
                        for (int i = 0; i < n; i++) model.poll();
                        // Bytes written ahead of the tail survive a discard, even one that empties the ring.
                        if (ring.free() > 3) {
                            src.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x77);
                            assertThat(ring.writeAhead(2, src, 0, 1)).isEqualTo(1);
                            if (ring.isEmpty()) ring.discard(0);
                            src.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x11);
                            src.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x22);
                            ring.append(src, 0, 2);
                            ring.commitWrite(1);
                            ring.peek(ring.size() - 3, dst, 0, 3);
                            assertThat(dst.asSlice(0, 3).toArray(ValueLayout.JAVA_BYTE)).containsExactly(0x11, 0x22, 0x77);
                            model.add((byte) 0x11);
                            model.add((byte) 0x22);
                            model.add((byte) 0x77);
                        }
                    }
                    default -> {
                        int skip = r.nextInt(model.size() + 1);
                        int len = r.nextInt(model.size() - skip + 1);
                        ring.peek(skip, dst, 0, len);
                        Byte[] expected = model.toArray(new Byte[0]);
                        for (int i = 0; i < len; i++) assertThat(dst.get(ValueLayout.JAVA_BYTE, i)).isEqualTo(expected[skip + i]);
                        // The same bytes where a gathering write takes them: a span from offsetOf, the rest from 0.
                        int first = ring.contiguous(skip, len);
                        for (int i = 0; i < len; i++) {
                            long at = i < first ? ring.offsetOf(skip) + i : i - first;
                            assertThat(ring.memory().get(ValueLayout.JAVA_BYTE, at)).isEqualTo(expected[skip + i]);
                        }
                    }
                }
                assertThat(ring.size()).isEqualTo(model.size());
                assertThat(ring.readSpan() + ring.readSpan2()).isEqualTo(model.size());
                if (ring.readSpan() > 0) {
                    assertThat(ring.memory().get(ValueLayout.JAVA_BYTE, ring.readOffset())).isEqualTo(model.peek());
                }
            }
        }
    }

    @Test
    void refusesToDiscardOrCommitMoreThanPossible() {
        try (RingBuffer ring = new RingBuffer(pool, 16, 16)) {
            assertThat(ring.grow()).isFalse();
            assertThatThrownBy(() -> ring.discard(1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ring.commitWrite(17)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void growthKeepsBytesWrittenAheadAtTheirDistance() {
        try (Arena arena = Arena.ofConfined(); RingBuffer ring = new RingBuffer(pool, 8, 64)) {
            MemorySegment src = arena.allocate(8);
            for (int i = 0; i < 8; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            ring.append(src, 0, 6);
            ring.discard(5);                       // head near the end: held bytes wrap next
            ring.append(src, 6, 2);                // held: 6 7 8
            ring.writeAhead(2, src, 0, 2);         // ahead: _ _ 1 2 (wraps)
            assertThat(ring.grow()).isTrue();
            assertThat(ring.capacity()).isEqualTo(16);
            ring.append(src, 3, 2);                // fills the gap with 4 5
            ring.commitWrite(2);
            MemorySegment dst = arena.allocate(7);
            ring.peek(0, dst, 0, 7);
            assertThat(dst.toArray(ValueLayout.JAVA_BYTE)).containsExactly(6, 7, 8, 4, 5, 1, 2);
        }
    }

    /** What a burst left free goes back to the system by the second trim after it; what keeps being reused stays. */
    @Test
    void trimmingReturnsTheFreeBlocksNoRingTookSinceTheTrimBefore() {
        BufferPool p = new BufferPool(1 << 20);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(64);
            RingBuffer[] burst = new RingBuffer[4];
            for (int i = 0; i < burst.length; i++) {
                burst[i] = new RingBuffer(p, 64, 64);
                burst[i].append(src, 0, 64);
            }
            assertThat(p.inUse()).isEqualTo(4 * 64);
            for (RingBuffer r : burst) {
                r.discard(64);
                r.release();
            }
            assertThat(p.freeBytes()).as("kept for reuse").isEqualTo(4 * 64);
            RingBuffer steady = new RingBuffer(p, 64, 64);
            steady.append(src, 0, 1);                       // one block reused: three stayed free all along
            assertThat(p.trim()).as("the first trim knows of no interval yet: the blocks were given back after it").isZero();
            steady.discard(1);
            steady.release();
            steady.append(src, 0, 1);                       // the steady ring takes one again in the next interval
            assertThat(p.trim()).as("the three no ring took since the last trim").isEqualTo(3 * 64);
            assertThat(p.freeBytes()).isZero();
            steady.discard(1);
            steady.release();
            assertThat(p.freeBytes()).isEqualTo(64);
            assertThat(p.trim()).as("given back after the last trim: kept one more interval").isZero();
            assertThat(p.trim()).as("then returned").isEqualTo(64);
            assertThat(p.freeBytes()).isZero();
            steady.append(src, 0, 1);                        // a new block from the system
            assertThat(p.inUse()).isEqualTo(64);
            steady.close();
        }
    }

    @Test
    void memoryIsHeldOnlyWhileInUseAndGrowthStaysWithinTheBudget() {
        BufferPool small = new BufferPool(48);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(64);
            RingBuffer a = new RingBuffer(small, 16, 64), b = new RingBuffer(small, 16, 64);
            assertThat(small.inUse()).isZero();                   // nothing taken before the first byte
            a.append(src, 0, 10);
            assertThat(a.holdsMemory()).isTrue();
            assertThat(small.inUse()).isEqualTo(16);
            assertThat(a.grow()).isTrue();                        // 16 -> 32: 16 of 48 reserved
            assertThat(a.grow()).isTrue();                        // 32 -> 64: 48 of 48
            assertThat(b.grow()).isFalse();                       // the budget is spent
            assertThat(b.capacity()).isEqualTo(16);
            assertThat(small.reserved()).isEqualTo(48);
            a.discard(10);
            a.release();
            assertThat(a.holdsMemory()).isFalse();
            assertThat(small.inUse()).isZero();
            assertThat(small.reserved()).as("a drained buffer holds none of the budget").isZero();
            assertThat(a.capacity()).isEqualTo(16);
            a.resume(64);                                         // no other wants it: its size again
            assertThat(a.capacity()).isEqualTo(64);
            assertThat(small.inUse()).as("grown without memory: nothing to copy").isZero();
            a.append(src, 0, 64);                                 // taken at full size
            assertThat(small.inUse()).isEqualTo(64);
            a.close();
            b.close();
            assertThat(small.inUse()).isZero();
            assertThat(small.reserved()).isZero();
            assertThat(small.peak()).isEqualTo(32 + 64);           // growing copies from the old block to the new
        }
    }

    /** A buffer that grew once and drained leaves the budget to the others; it takes back what they leave. */
    @Test
    void aReleasedBufferLeavesItsGrowthToTheOthers() {
        BufferPool small = new BufferPool(48);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(64);
            RingBuffer a = new RingBuffer(small, 16, 64), b = new RingBuffer(small, 16, 64);
            a.append(src, 0, 1);
            assertThat(a.grow() && a.grow()).isTrue();            // 16 -> 64: the whole budget
            assertThat(b.grow()).isFalse();
            a.discard(1);
            a.release();
            assertThat(b.grow()).as("the budget a gave back").isTrue(); // 16 -> 32: 16 of 48
            a.resume(64);
            assertThat(a.capacity()).as("16 -> 32 fits the 32 left, 32 -> 64 does not").isEqualTo(32);
            assertThat(small.reserved()).isEqualTo(32);                  // 16 for each: 32 -> 64 would need 32 more
            assertThat(a.append(src, 0, 64)).isEqualTo(32);
            a.resume(64);
            assertThat(a.capacity()).as("not while it holds memory").isEqualTo(32);
            a.close();
            b.close();
            assertThat(small.reserved()).isZero();
        }
    }

    @Test
    void releasingWhileBytesAreHeldIsAnError() {
        try (Arena arena = Arena.ofConfined(); RingBuffer ring = new RingBuffer(pool, 16, 16)) {
            ring.append(arena.allocate(1), 0, 1);
            assertThatThrownBy(ring::release).isInstanceOf(IllegalStateException.class);
        }
    }
}
