package io.jslirp.virtio;

import static io.jslirp.virtio.Virtqueue.DESC_NEXT;
import static io.jslirp.virtio.Virtqueue.DESC_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RxFramesTest {
    private static final long RING_FEATURES = 0; // MRG_RXBUF is RxFrames's to know, not the queue's
    private final Arena arena = Arena.ofConfined();
    private final Driver driver = new Driver(8);
    private final long[] buffers = new long[8];

    @AfterEach
    void close() {
        driver.close();
        arena.close();
    }

    /** Offers n receive chains of one writable buffer of len bytes each. */
    private void offer(int n, int len) {
        for (int i = 0; i < n; i++) {
            buffers[i] = driver.buffer(len, 0);
            driver.desc(i, buffers[i], len, DESC_WRITE, 0);
            driver.offer(i);
        }
    }

    /** A frame of len bytes: a header with num_buffers 0xeeee (to see it overwritten), then a counting payload. */
    private MemorySegment frame(int len) {
        MemorySegment f = arena.allocate(len);
        for (int i = 0; i < len; i++) f.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        Le.u16(f, RxFrames.NUM_BUFFERS, 0xeeee);
        return f;
    }

    private static Fault refusal(RxFrames rx, MemorySegment frame) {
        try {
            rx.put(frame, 0, frame.byteSize());
        } catch (VirtioException e) {
            return e.fault();
        }
        throw new AssertionError("no refusal");
    }

    @Test
    void aFrameSpansChainsAndNumBuffersSaysHowMany() throws VirtioException {
        offer(4, 100);
        Virtqueue q = driver.queue(RING_FEATURES);
        MemorySegment f = frame(250);
        assertThat(new RxFrames(q, true).put(f, 0, 250)).isEqualTo(3);
        q.publish();
        assertThat(driver.usedIdx()).isEqualTo(3);
        int[] lens = {100, 100, 50};
        MemorySegment got = arena.allocate(250);
        for (int k = 0; k < 3; k++) {
            assertThat(driver.usedId(k)).isEqualTo(k);
            assertThat(driver.usedLen(k)).isEqualTo(lens[k]);
            MemorySegment.copy(driver.seg(buffers[k]), 0, got, 100L * k, lens[k]);
        }
        assertThat(Le.u16(got, RxFrames.NUM_BUFFERS)).isEqualTo(3);
        Le.u16(f, RxFrames.NUM_BUFFERS, 3);
        assertThat(got.mismatch(f)).isEqualTo(-1);
        assertThat(q.pending()).isEqualTo(1);
    }

    /**
     * A frame given as the virtio-net header, a head and a tail from three places reaches the
     * guest as the same bytes as the whole frame from one, whatever the chains' sizes and wherever
     * the pieces meet a chain's or a buffer's end (chains of two buffers here).
     */
    @Test
    void aFrameInPiecesLandsAsTheWholeFrame() throws VirtioException {
        int len = 240;
        MemorySegment whole = frame(len);
        for (int chainBytes : new int[] {12, 13, 40, 61, 100, 240}) {
            for (int headLen : new int[] {0, 1, 28, 54, 100, len - RxFrames.HEADER}) {
                try (Driver d = new Driver(64)) {
                    long[] first = new long[32], second = new long[32];
                    for (int i = 0; i < 32; i++) {
                        int a = (chainBytes + 1) / 2, b = chainBytes - a;
                        first[i] = d.buffer(a, 0);
                        second[i] = d.buffer(b, 0);
                        d.desc(2 * i, first[i], a, DESC_WRITE | DESC_NEXT, 2 * i + 1);
                        d.desc(2 * i + 1, second[i], b, DESC_WRITE, 0);
                        d.offer(2 * i);
                    }
                    Virtqueue q = d.queue(RING_FEATURES);
                    MemorySegment header = arena.allocate(RxFrames.HEADER + 3).asSlice(3); // (anywhere, not at 0)
                    MemorySegment.copy(whole, 0, header, 0, RxFrames.HEADER);
                    MemorySegment head = arena.allocate(headLen + 5);
                    MemorySegment.copy(whole, RxFrames.HEADER, head, 5, headLen);
                    int tailLen = len - RxFrames.HEADER - headLen;
                    MemorySegment tail = arena.allocate(tailLen + 9);
                    MemorySegment.copy(whole, RxFrames.HEADER + headLen, tail, 9, tailLen);
                    int chains = new RxFrames(q, true).put(header, 0, head, 5, headLen, tail, 9, tailLen);
                    assertThat(chains).as("chains of %d bytes", chainBytes).isEqualTo((len + chainBytes - 1) / chainBytes);
                    q.publish();
                    MemorySegment got = arena.allocate(len);
                    long at = 0;
                    for (int k = 0; k < chains; k++) {
                        int used = d.usedLen(k);
                        int a = (chainBytes + 1) / 2;
                        int id = d.usedId(k) / 2;
                        MemorySegment.copy(d.seg(first[id]), 0, got, at, Math.min(a, used));
                        if (used > a) MemorySegment.copy(d.seg(second[id]), 0, got, at + a, used - a);
                        at += used;
                    }
                    assertThat(at).isEqualTo(len);
                    MemorySegment expected = arena.allocate(len);
                    MemorySegment.copy(whole, 0, expected, 0, len);
                    Le.u16(expected, RxFrames.NUM_BUFFERS, chains);
                    assertThat(got.mismatch(expected)).as("chains of %d bytes, head of %d", chainBytes, headLen).isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void numBuffersMayStraddleTwoBuffersOfTheFirstChain() throws VirtioException {
        long a = driver.buffer(11, 0), b = driver.buffer(40, 0);
        driver.desc(0, a, 11, DESC_WRITE | DESC_NEXT, 1);
        driver.desc(1, b, 40, DESC_WRITE, 0);
        driver.offer(0);
        for (int i = 2; i < 2 + 3; i++) {
            driver.desc(i, driver.buffer(51, 0), 51, DESC_WRITE, 0);
            driver.offer(i);
        }
        Virtqueue q = driver.queue(RING_FEATURES);
        int n = new RxFrames(q, true).put(frame(51 * 3 + 1), 0, 51 * 3 + 1);
        assertThat(n).isEqualTo(4);
        int count = (driver.seg(a).get(ValueLayout.JAVA_BYTE, 10) & 0xff) | (driver.seg(b).get(ValueLayout.JAVA_BYTE, 0) & 0xff) << 8;
        assertThat(count).isEqualTo(4);
    }

    @Test
    void withoutRoomNothingIsTaken() throws VirtioException {
        offer(2, 100);
        Virtqueue q = driver.queue(RING_FEATURES);
        RxFrames rx = new RxFrames(q, true);
        assertThat(rx.put(frame(250), 0, 250)).isEqualTo(RxFrames.NO_ROOM);
        assertThat(q.lastAvail()).isZero();
        assertThat(q.inFlight()).isZero();
        assertThat(q.usedIndex()).isZero();
        assertThat(rx.put(frame(150), 0, 150)).as("a smaller frame still fits").isEqualTo(2);
    }

    @Test
    void withoutMergeableBuffersAFrameTakesOneChainOrIsTooBig() throws VirtioException {
        offer(3, 100);
        Virtqueue q = driver.queue(RING_FEATURES);
        RxFrames rx = new RxFrames(q, false);
        assertThat(rx.put(frame(101), 0, 101)).isEqualTo(RxFrames.TOO_BIG);
        assertThat(q.lastAvail()).isZero();
        assertThat(rx.put(frame(100), 0, 100)).isEqualTo(1);
        q.publish();
        assertThat(driver.usedLen(0)).isEqualTo(100);
        assertThat(Le.u16(driver.seg(buffers[0]), RxFrames.NUM_BUFFERS)).isEqualTo(1);
    }

    @Test
    void aChainWithoutRoomForTheHeaderIsRefused() throws VirtioException {
        offer(1, 8);
        Virtqueue q = driver.queue(RING_FEATURES);
        assertThat(refusal(new RxFrames(q, true), frame(20))).isEqualTo(Fault.RECEIVE_CHAIN_TOO_SMALL);
        q.publish();
        assertThat(driver.usedIdx()).isEqualTo(1);
        assertThat(driver.usedLen(0)).isZero();
    }

    @Test
    void aHostileChainMidFrameReturnsTheFramesEarlierChainsEmpty() throws VirtioException {
        offer(1, 100);
        driver.desc(1, Driver.GPA0 - 4096, 100, DESC_WRITE, 0);
        driver.offer(1);
        Virtqueue q = driver.queue(RING_FEATURES);
        assertThat(refusal(new RxFrames(q, true), frame(150))).isEqualTo(Fault.DESCRIPTOR_OUTSIDE_MEMORY);
        q.publish();
        assertThat(driver.usedIdx()).isEqualTo(2);
        assertThat(driver.usedLen(0)).isZero();
        assertThat(driver.usedLen(1)).isZero();
        assertThat(q.inFlight()).isZero();
    }
}
