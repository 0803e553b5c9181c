package io.jslirp.embed;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ring of frames from the guest against a plain queue of copies, across many wrap-arounds. */
class FrameQueueTest {
    @Test
    void framesComeOutAsTheyWentInAndAFullRingRefuses() {
        FrameQueue queue = new FrameQueue(1000);
        ArrayDeque<byte[]> model = new ArrayDeque<>();
        int modelBytes = 0;
        Random random = new Random(5);
        MemorySegment out = MemorySegment.ofArray(new byte[1000]);
        int refused = 0;
        for (int step = 0; step < 100_000; step++) {
            if (random.nextBoolean()) {
                byte[] frame = new byte[1 + random.nextInt(300)];
                random.nextBytes(frame);
                boolean taken = queue.offer(MemorySegment.ofArray(frame), 0, frame.length);
                int size = 4 + ((frame.length + 3) & ~3);
                if (modelBytes + size <= 1000 - 300 - 4) assertThat(taken).as("room for it even at a wrap").isTrue();
                if (taken) {
                    model.add(frame);
                    modelBytes += size;
                } else {
                    refused++;
                }
            } else {
                int n = queue.poll(out);
                byte[] expected = model.poll();
                if (expected == null) {
                    assertThat(n).isZero();
                } else {
                    assertThat(Arrays.copyOf(out.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), n)).isEqualTo(expected);
                    modelBytes -= 4 + ((expected.length + 3) & ~3);
                }
            }
        }
        assertThat(refused).as("the ring filled up at times").isPositive();
    }
}
