package io.jslirp.virtio;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Frames into a virtio-net receive queue. Each frame starts with the 12-byte virtio-net header of
 * virtio 1.x (whose last field, num_buffers, this class fills); with MRG_RXBUF a frame larger
 * than one chain is spread over as many chains as it needs and num_buffers says how many, without
 * it a frame takes exactly one chain. A frame is all or nothing: when the queue runs out midway
 * the chains taken are rewound and the frame stays with the caller.
 */
public final class RxFrames {
    /** The virtio-net header of virtio 1.x, num_buffers included. */
    public static final int HEADER = 12;
    /** Where num_buffers lies in the header. */
    public static final int NUM_BUFFERS = 10;
    /** {@link #put}'s answer when the queue has no room now (nothing taken). */
    public static final int NO_ROOM = 0;
    /** {@link #put}'s answer when the frame cannot fit a chain without MRG_RXBUF (nothing taken): drop it. */
    public static final int TOO_BIG = -1;

    private final Virtqueue queue;
    private final boolean mergeable;
    private final int[] heads;
    private final int[] lengths;
    /** Where num_buffers's two bytes lie in the first chain's buffers. */
    private final MemorySegment[] countAt = new MemorySegment[2];
    private final long[] countOffset = new long[2];

    public RxFrames(Virtqueue queue, boolean mergeable) {
        this.queue = queue;
        this.mergeable = mergeable;
        this.heads = new int[mergeable ? queue.size() : 1];
        this.lengths = new int[heads.length];
    }

    /**
     * Puts the frame src[off, off + len) (header first, len at least {@link #HEADER}); returns the
     * chains it took (pushed, not yet published), {@link #NO_ROOM} or {@link #TOO_BIG}. A chain
     * with no room for a header is refused and returned to the driver empty; a refusal by the
     * queue returns the frame's earlier chains empty too, and is thrown.
     */
    public int put(MemorySegment src, long off, long len) throws VirtioException {
        if (len < HEADER) throw new IllegalArgumentException("frame of " + len + " bytes, shorter than the virtio-net header");
        return put(src, off, src, off + HEADER, len - HEADER);
    }

    /**
     * As {@link #put(MemorySegment, long, long)}, the header's {@link #HEADER} bytes at headerOff
     * of header and the frame's frameLen bytes at frameOff of frame wherever each is: a frame goes
     * into the ring without first being copied behind a header.
     */
    public int put(MemorySegment header, long headerOff, MemorySegment frame, long frameOff, long frameLen) throws VirtioException {
        long len = HEADER + frameLen;
        int n = 0;
        long done = 0;
        while (done < len) {
            if (n == heads.length) return giveBack(n, mergeable ? NO_ROOM : TOO_BIG);
            Chain c;
            try {
                c = queue.pop();
            } catch (VirtioException e) {
                if (!e.fault().fatal()) returnEmpty(n);
                throw e;
            }
            if (c == null) return giveBack(n, NO_ROOM);
            if (n == 0 && c.writableBytes() < HEADER) {
                queue.push(c.head(), 0);
                throw new VirtioException(Fault.RECEIVE_CHAIN_TOO_SMALL, "receive chain at head " + c.head() + " has " + c.writableBytes() + " writable bytes");
            }
            if (!mergeable && c.writableBytes() < len) return giveBack(1, TOO_BIG);
            long w;
            if (n == 0) {
                locateCount(c);
                w = c.write(0, header, headerOff, HEADER); // (the first chain has room for it: checked above)
                w += c.write(HEADER, frame, frameOff, frameLen);
            } else {
                w = c.write(0, frame, frameOff + (done - HEADER), len - done);
            }
            heads[n] = c.head();
            lengths[n++] = (int) w;
            done += w;
        }
        countAt[0].set(ValueLayout.JAVA_BYTE, countOffset[0], (byte) n);
        countAt[1].set(ValueLayout.JAVA_BYTE, countOffset[1], (byte) (n >>> 8));
        for (int i = 0; i < n; i++) queue.push(heads[i], lengths[i]);
        return n;
    }

    private int giveBack(int n, int answer) {
        queue.rewind(n);
        return answer;
    }

    private void returnEmpty(int n) {
        for (int i = 0; i < n; i++) queue.push(heads[i], 0);
    }

    /** Finds num_buffers's bytes in the first chain's writable buffers (they may straddle two). */
    private void locateCount(Chain c) {
        for (int b = 0; b < 2; b++) {
            long at = NUM_BUFFERS + b;
            for (int i = c.readableBuffers(); i < c.buffers(); i++) {
                if (at < c.length(i)) {
                    countAt[b] = c.segment(i);
                    countOffset[b] = c.offset(i) + at;
                    break;
                }
                at -= c.length(i);
            }
        }
    }
}
