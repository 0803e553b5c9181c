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
    /**
     * The frame being put, in three pieces: the virtio-net header, then the frame's head and its
     * tail. Fields, not an array: a store into an array of an interface type is checked, and C2's
     * check, compiled for the segment classes the warm-up gave, was a trap for another.
     */
    private MemorySegment header, head, tail;
    private long headerOffset, headOffset, headLength, tailOffset, tailLength;

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
        return put(header, headerOff, frame, frameOff, frameLen, frame, 0, 0);
    }

    /**
     * As {@link #put(MemorySegment, long, MemorySegment, long, long)}, the frame in two pieces: its
     * first headLen bytes at headOff of head (its headers), then tailLen bytes at tailOff of tail
     * (its payload, where it waits): each byte is copied once, into the guest's buffers.
     */
    public int put(MemorySegment header, long headerOff, MemorySegment head, long headOff, long headLen,
            MemorySegment tail, long tailOff, long tailLen) throws VirtioException {
        this.header = header;
        this.headerOffset = headerOff;
        this.head = head;
        this.headOffset = headOff;
        this.headLength = headLen;
        this.tail = tail;
        this.tailOffset = tailOff;
        this.tailLength = tailLen;
        long len = HEADER + headLen + tailLen;
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
            if (n == 0) locateCount(c); // (the first chain has room for the header: checked above)
            long w = fill(c, done, len - done);
            heads[n] = c.head();
            lengths[n++] = (int) w;
            done += w;
        }
        countAt[0].set(ValueLayout.JAVA_BYTE, countOffset[0], (byte) n);
        countAt[1].set(ValueLayout.JAVA_BYTE, countOffset[1], (byte) (n >>> 8));
        for (int i = 0; i < n; i++) queue.push(heads[i], lengths[i]);
        return n;
    }

    /** Writes up to len of the frame's bytes from position from (over its pieces) into c's buffers from their start; returns how many went. */
    private long fill(Chain c, long from, long len) {
        long w = piece(c, 0, from, len, header, headerOffset, 0, HEADER);
        w += piece(c, w, from + w, len - w, head, headOffset, HEADER, headLength);
        w += piece(c, w, from + w, len - w, tail, tailOffset, HEADER + headLength, tailLength);
        return w;
    }

    /**
     * Writes the part of one piece (length bytes at offset of src, which is the frame's bytes from
     * position start) that lies at or after the frame's position from, up to len bytes, into c from
     * position at; returns how many went (fewer than asked when the chain is full; 0 when the piece
     * lies wholly before from, when nothing more is wanted, or when an earlier piece was cut short
     * by the chain's end, from then lying before start).
     */
    private static long piece(Chain c, long at, long from, long len, MemorySegment src, long offset, long start, long length) {
        long skip = from - start;
        if (skip < 0 || skip >= length || len <= 0) return 0;
        return c.write(at, src, offset + skip, Math.min(length - skip, len));
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
