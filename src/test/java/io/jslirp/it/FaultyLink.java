package io.jslirp.it;

import io.jslirp.link.Link;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Random;

/**
 * A link decorator that reorders and duplicates frames in both directions, for tests: each frame
 * is held back with probability {@code reorder} and released after the frames that follow it (at
 * the latest at the end of the loop iteration), and sent twice with probability {@code duplicate}.
 */
final class FaultyLink implements Link {
    private final Link inner;
    private final Random random;
    private final double reorder, duplicate;
    private final Arena arena = Arena.ofAuto();
    private final ArrayDeque<MemorySegment> heldIn = new ArrayDeque<>();
    private final ArrayDeque<MemorySegment> heldOut = new ArrayDeque<>();
    private final ArrayDeque<MemorySegment> duplicatesIn = new ArrayDeque<>();
    long reorderedIn, reorderedOut, duplicatedIn, duplicatedOut;

    FaultyLink(Link inner, long seed, double reorder, double duplicate) {
        this.inner = inner;
        this.random = new Random(seed);
        this.reorder = reorder;
        this.duplicate = duplicate;
    }

    private MemorySegment copy(MemorySegment frame, int length) {
        MemorySegment c = arena.allocate(length);
        MemorySegment.copy(frame, 0, c, 0, length);
        return c;
    }

    private static int deliver(MemorySegment held, MemorySegment buffer) {
        MemorySegment.copy(held, 0, buffer, 0, held.byteSize());
        return (int) held.byteSize();
    }

    @Override
    public int fd(int queue) {
        return inner.fd(queue);
    }

    /** One queue: reordering is meant to happen across all of the link's frames. */
    @Override
    public int receive(int queue, MemorySegment buffer) {
        if (!duplicatesIn.isEmpty()) return deliver(duplicatesIn.poll(), buffer);
        while (true) {
            int n = inner.receive(queue, buffer);
            if (n <= 0) {
                // Nothing more in this burst: what was held back goes now, after the frames that overtook it.
                return heldIn.isEmpty() ? n : deliver(heldIn.poll(), buffer);
            }
            if (random.nextDouble() < reorder) {
                heldIn.add(copy(buffer, n));
                reorderedIn++;
                continue;
            }
            if (random.nextDouble() < duplicate) {
                duplicatesIn.add(copy(buffer, n));
                duplicatedIn++;
            }
            return n;
        }
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        if (random.nextDouble() < reorder) {
            heldOut.add(copy(frame, length));
            reorderedOut++;
            return true;
        }
        boolean ok = inner.send(frame, length);
        if (random.nextDouble() < duplicate) {
            inner.send(frame, length);
            duplicatedOut++;
        }
        while (!heldOut.isEmpty() && random.nextBoolean()) sendHeld();
        return ok;
    }

    private void sendHeld() {
        MemorySegment h = heldOut.poll();
        inner.send(h, (int) h.byteSize());
    }

    @Override
    public void flush() {
        while (!heldOut.isEmpty()) sendHeld();
        inner.flush();
    }

    @Override
    public void close() {
        inner.close();
    }
}
