package io.jslirp.virtio;

import static io.jslirp.virtio.Virtqueue.DESC_INDIRECT;
import static io.jslirp.virtio.Virtqueue.DESC_NEXT;
import static io.jslirp.virtio.Virtqueue.DESC_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VirtqueueTest {
    private static final long INDIRECT = 1L << Virtqueue.F_INDIRECT_DESC, EVENT_IDX = 1L << Virtqueue.F_EVENT_IDX;
    private final Arena arena = Arena.ofConfined();
    private Driver driver = new Driver(8);

    @AfterEach
    void close() {
        driver.close();
        arena.close();
    }

    private byte[] readAll(Chain c) {
        MemorySegment dst = arena.allocate(Math.max(1, c.readableBytes()));
        assertThat(c.read(0, dst, 0, c.readableBytes())).isEqualTo(c.readableBytes());
        return dst.asSlice(0, c.readableBytes()).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] bytes(int fill, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) b[i] = (byte) (fill + i);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private Fault refusal(Virtqueue q) {
        try {
            q.pop();
        } catch (VirtioException e) {
            return e.fault();
        }
        throw new AssertionError("no refusal");
    }

    @Test
    void popsAReadableChainAndPushesItBackWithItsLength() throws VirtioException {
        driver.desc(3, driver.buffer(10, 1), 10, DESC_NEXT, 5);
        driver.desc(5, driver.buffer(6, 50), 6, 0, 0);
        driver.offer(3);
        Virtqueue q = driver.queue(0);
        assertThat(q.pending()).isEqualTo(1);
        Chain c = q.pop();
        assertThat(c.head()).isEqualTo(3);
        assertThat(c.buffers()).isEqualTo(2);
        assertThat(c.readableBuffers()).isEqualTo(2);
        assertThat(c.writableBytes()).isZero();
        assertThat(readAll(c)).isEqualTo(concat(bytes(1, 10), bytes(50, 6)));
        assertThat(q.pop()).isNull();
        q.push(c.head(), 0);
        assertThat(driver.usedIdx()).as("not visible before publish").isZero();
        q.publish();
        assertThat(driver.usedIdx()).isEqualTo(1);
        assertThat(driver.usedId(0)).isEqualTo(3);
        assertThat(driver.usedLen(0)).isZero();
    }

    @Test
    void readsFromAnOffsetAndWritesIntoTheWritableBuffers() throws VirtioException {
        driver.desc(0, driver.buffer(4, 1), 4, DESC_NEXT, 1);
        long w1 = driver.buffer(5, 0), w2 = driver.buffer(7, 0);
        driver.desc(1, w1, 5, DESC_NEXT | DESC_WRITE, 2);
        driver.desc(2, w2, 7, DESC_WRITE, 0);
        driver.offer(0);
        Virtqueue q = driver.queue(0);
        Chain c = q.pop();
        assertThat(c.readableBuffers()).isEqualTo(1);
        assertThat(c.writableBytes()).isEqualTo(12);
        MemorySegment one = arena.allocate(2);
        assertThat(c.read(2, one, 0, 10)).isEqualTo(2);
        assertThat(one.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes(3, 2));
        MemorySegment src = arena.allocate(20);
        src.copyFrom(MemorySegment.ofArray(bytes(100, 20)));
        assertThat(c.write(3, src, 0, 20)).as("only 9 bytes of room from position 3").isEqualTo(9);
        assertThat(driver.seg(w1).asSlice(3, 2).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes(100, 2));
        assertThat(driver.seg(w2).asSlice(0, 7).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes(102, 7));
        q.push(c.head(), 12);
        q.publish();
        assertThat(driver.usedLen(0)).isEqualTo(12);
    }

    @Test
    void aBufferAcrossTwoRegionsIsTwoPieces() throws VirtioException {
        driver.bufferAt(Driver.GPA1 - 6);
        long addr = driver.buffer(16, 7);
        driver.desc(0, addr, 16, 0, 0);
        driver.offer(0);
        Chain c = driver.queue(0).pop();
        assertThat(c.buffers()).isEqualTo(2);
        assertThat(c.length(0)).isEqualTo(6);
        assertThat(c.length(1)).isEqualTo(10);
        assertThat(c.segment(0)).isNotSameAs(c.segment(1));
        assertThat(readAll(c)).isEqualTo(bytes(7, 16));
    }

    @Test
    void ringIndicesWrapAroundTheQueueAndTheSixteenBits() throws VirtioException {
        driver.close();
        driver = new Driver(4, 65533);
        Virtqueue q = driver.queue(0);
        for (int round = 0; round < 10; round++) {
            int head = round % 4;
            driver.desc(head, driver.buffer(3, round), 3, 0, 0);
            driver.offer(head);
            Chain c = q.pop();
            assertThat(c.head()).isEqualTo(head);
            assertThat(readAll(c)).isEqualTo(bytes(round, 3));
            q.push(c.head(), round);
            q.publish();
            assertThat(driver.usedIdx()).isEqualTo((65533 + round + 1) & 0xffff);
            assertThat(driver.usedId(65533 + round)).isEqualTo(head);
            assertThat(driver.usedLen(65533 + round)).isEqualTo(round);
        }
        assertThat(q.lastAvail()).isEqualTo((65533 + 10) & 0xffff);
    }

    @Test
    void followsAnIndirectTable() throws VirtioException {
        long table = driver.buffer(48, 0);
        MemorySegment t = driver.seg(table);
        long w = driver.buffer(8, 0);
        Driver.desc(t, 0, driver.buffer(5, 10), 5, DESC_NEXT, 2);
        Driver.desc(t, 2, driver.buffer(3, 40), 3, DESC_NEXT, 1);
        Driver.desc(t, 1, w, 8, DESC_WRITE, 0);
        driver.desc(6, table, 48, DESC_INDIRECT, 0);
        driver.offer(6);
        Chain c = driver.queue(INDIRECT).pop();
        assertThat(c.head()).isEqualTo(6);
        assertThat(readAll(c)).isEqualTo(concat(bytes(10, 5), bytes(40, 3)));
        assertThat(c.writableBytes()).isEqualTo(8);
    }

    @Test
    void aDirectPrefixThenAnIndirectTable() throws VirtioException {
        long table = driver.buffer(16, 0);
        Driver.desc(driver.seg(table), 0, driver.buffer(2, 90), 2, 0, 0);
        driver.desc(0, driver.buffer(3, 1), 3, DESC_NEXT, 1);
        driver.desc(1, table, 16, DESC_INDIRECT, 0);
        driver.offer(0);
        assertThat(readAll(driver.queue(INDIRECT).pop())).isEqualTo(concat(bytes(1, 3), bytes(90, 2)));
    }

    /** Each hostile chain is refused with its reason, returned as used with length 0, and the next chain still pops. */
    private void refusedThenRecovers(long features, int head, Fault expected) throws VirtioException {
        driver.offer(head);
        driver.desc(7, driver.buffer(4, 9), 4, 0, 0);
        driver.offer(7);
        Virtqueue q = driver.queue(features);
        assertThat(refusal(q)).isEqualTo(expected);
        assertThat(expected.fatal()).isFalse();
        q.publish();
        assertThat(driver.usedIdx()).isEqualTo(1);
        assertThat(driver.usedId(0)).isEqualTo(head);
        assertThat(driver.usedLen(0)).isZero();
        assertThat(q.inFlight()).isZero();
        assertThat(readAll(q.pop())).isEqualTo(bytes(9, 4));
    }

    @Test
    void aDescriptorOutsideGuestMemoryIsRefused() throws VirtioException {
        driver.desc(0, Driver.GPA1 + Driver.REGION - 4, 8, 0, 0); // runs 4 bytes past the last region
        refusedThenRecovers(0, 0, Fault.DESCRIPTOR_OUTSIDE_MEMORY);
    }

    @Test
    void anAddressWithTheTopBitSetIsOutside() throws VirtioException {
        driver.desc(0, 0xffff_ffff_ffff_f000L, 16, 0, 0);
        refusedThenRecovers(0, 0, Fault.DESCRIPTOR_OUTSIDE_MEMORY);
    }

    @Test
    void aDescriptorLoopIsRefused() throws VirtioException {
        long b = driver.buffer(1, 0);
        driver.desc(0, b, 1, DESC_NEXT, 1);
        driver.desc(1, b, 1, DESC_NEXT, 0);
        refusedThenRecovers(0, 0, Fault.DESCRIPTOR_LOOP);
    }

    @Test
    void aLoopInsideAnIndirectTableIsRefused() throws VirtioException {
        long table = driver.buffer(32, 0), b = driver.buffer(1, 0);
        Driver.desc(driver.seg(table), 0, b, 1, DESC_NEXT, 1);
        Driver.desc(driver.seg(table), 1, b, 1, DESC_NEXT, 0);
        driver.desc(0, table, 32, DESC_INDIRECT, 0);
        refusedThenRecovers(INDIRECT, 0, Fault.DESCRIPTOR_LOOP);
    }

    @Test
    void aNextBeyondTheTableIsRefused() throws VirtioException {
        driver.desc(0, driver.buffer(1, 0), 1, DESC_NEXT, 8);
        refusedThenRecovers(0, 0, Fault.BAD_DESCRIPTOR_INDEX);
    }

    @Test
    void anIndirectTableInsideAnIndirectTableIsRefused() throws VirtioException {
        long inner = driver.buffer(16, 0), outer = driver.buffer(16, 0);
        Driver.desc(driver.seg(inner), 0, driver.buffer(1, 0), 1, 0, 0);
        Driver.desc(driver.seg(outer), 0, inner, 16, DESC_INDIRECT, 0);
        driver.desc(0, outer, 16, DESC_INDIRECT, 0);
        refusedThenRecovers(INDIRECT, 0, Fault.NESTED_INDIRECT);
    }

    @Test
    void anIndirectTableNotNegotiatedIsRefused() throws VirtioException {
        long table = driver.buffer(16, 0);
        Driver.desc(driver.seg(table), 0, driver.buffer(1, 0), 1, 0, 0);
        driver.desc(0, table, 16, DESC_INDIRECT, 0);
        refusedThenRecovers(0, 0, Fault.BAD_INDIRECT);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, 24})
    void anIndirectTableOfABadLengthIsRefused(int len) throws VirtioException {
        driver.desc(0, driver.buffer(32, 0), len, DESC_INDIRECT, 0);
        refusedThenRecovers(INDIRECT, 0, Fault.BAD_INDIRECT);
    }

    @Test
    void anIndirectTableOutsideGuestMemoryIsRefused() throws VirtioException {
        driver.desc(0, Driver.GPA0 - 16, 32, DESC_INDIRECT, 0);
        refusedThenRecovers(INDIRECT, 0, Fault.INDIRECT_OUTSIDE_MEMORY);
    }

    @Test
    void aReadableBufferAfterAWritableOneIsRefused() throws VirtioException {
        driver.desc(0, driver.buffer(4, 0), 4, DESC_WRITE | DESC_NEXT, 1);
        driver.desc(1, driver.buffer(4, 0), 4, 0, 0);
        refusedThenRecovers(0, 0, Fault.READABLE_AFTER_WRITABLE);
    }

    @Test
    void aHeadBeyondTheTableIsRefusedAndNotPushed() throws VirtioException {
        driver.offer(8);
        Virtqueue q = driver.queue(0);
        assertThat(refusal(q)).isEqualTo(Fault.BAD_DESCRIPTOR_INDEX);
        q.publish();
        assertThat(driver.usedIdx()).isZero();
        assertThat(q.pop()).isNull();
    }

    @Test
    void anAvailableIndexThatJumpsBreaksTheQueue() throws VirtioException {
        Virtqueue q = driver.queue(0);
        driver.availIndex(9);
        assertThat(refusal(q)).isEqualTo(Fault.AVAIL_INDEX_JUMP);
        assertThat(Fault.AVAIL_INDEX_JUMP.fatal()).isTrue();
        driver.availIndex(1);
        assertThat(refusal(q)).as("broken until set up again").isEqualTo(Fault.AVAIL_INDEX_JUMP);
        assertThat(q.broken()).isEqualTo(Fault.AVAIL_INDEX_JUMP);
    }

    @Test
    void anAvailableIndexOfExactlyTheQueueSizeIsFine() throws VirtioException {
        Virtqueue q = driver.queue(0);
        for (int i = 0; i < 8; i++) {
            driver.desc(i, driver.buffer(1, i), 1, 0, 0);
            driver.offer(i);
        }
        for (int i = 0; i < 8; i++) assertThat(q.pop().head()).isEqualTo(i);
        assertThat(q.pop()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -4, 3, 6, 100, 65536, 32768 * 2})
    void aQueueSizeNotAPowerOfTwoUpTo32768IsRefused(int size) {
        assertThat(Virtqueue.checkSize(size)).isEqualTo(Fault.BAD_QUEUE_SIZE);
        assertThatThrownBy(() -> new Virtqueue(driver.memory, new Virtqueue.Rings(size, Driver.DESC, Driver.AVAIL, Driver.USED), 0, 0))
                .isInstanceOf(VirtioException.class).extracting(e -> ((VirtioException) e).fault()).isEqualTo(Fault.BAD_QUEUE_SIZE);
    }

    @Test
    void queueSizesThatArePowersOfTwoAreFine() {
        for (int s = 1; s <= Virtqueue.MAX_SIZE; s <<= 1) assertThat(Virtqueue.checkSize(s)).isNull();
    }

    @Test
    void ringsOutsideGuestMemoryOrMisalignedAreRefused() {
        long[][] bad = {
            {Driver.GPA0 - 0x1000, Driver.AVAIL, Driver.USED},
            {Driver.DESC, Driver.GPA1 + Driver.REGION - 8, Driver.USED},
            {Driver.DESC, Driver.AVAIL, Driver.GPA0 + Driver.REGION - 16}, // crosses into the next region
            {Driver.DESC + 8, Driver.AVAIL, Driver.USED},
            {Driver.DESC, Driver.AVAIL + 1, Driver.USED},
            {Driver.DESC, Driver.AVAIL, Driver.USED + 2},
        };
        for (long[] r : bad) {
            assertThatThrownBy(() -> new Virtqueue(driver.memory, new Virtqueue.Rings(8, r[0], r[1], r[2]), 0, 0))
                    .isInstanceOf(VirtioException.class).extracting(e -> ((VirtioException) e).fault()).isEqualTo(Fault.RING_OUTSIDE_MEMORY);
        }
    }

    @Test
    void rewindGivesBackChainsAsIfNeverPopped() throws VirtioException {
        for (int i = 0; i < 3; i++) {
            driver.desc(i, driver.buffer(1, i), 1, 0, 0);
            driver.offer(i);
        }
        Virtqueue q = driver.queue(0);
        q.pop();
        q.pop();
        q.rewind(2);
        assertThat(q.inFlight()).isZero();
        assertThat(q.pop().head()).isEqualTo(0);
        assertThatThrownBy(() -> q.rewind(2)).isInstanceOf(IllegalStateException.class);
    }
}
