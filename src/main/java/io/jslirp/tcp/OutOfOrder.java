package io.jslirp.tcp;

import io.jslirp.wire.Seq;

/**
 * Sorted, merged sequence ranges received ahead of a gap, a fixed number at most.
 * Used both ways: the guest's data that arrived beyond a gap (its bytes already sit in the
 * receive buffer's free space; reported to the guest as SACK blocks, see {@link Receiver}), and the
 * ranges the guest SACKed of ours (so {@link SackRecovery} resends only the gaps).
 */
final class OutOfOrder {
    /** The bound on the guest's out-of-order data kept per connection. */
    static final int MAX_RANGES = 8;

    private static final int[] NO_RANGES = {};
    /**
     * No ranges, for a connection that has had none: most never do, and with thousands of
     * connections two empty sets each add up. Nothing is ever added to it; its owner replaces it first.
     */
    static final OutOfOrder NONE = new OutOfOrder(0);

    private final int maxRanges;
    /**
     * The ranges, allocated by the first {@link #add}: two of these per connection, and most
     * connections never see a gap (thousands of them would hold empty arrays).
     */
    private int[] starts = NO_RANGES, ends = NO_RANGES;
    private int count;
    /** Sequence number of the segment that arrived last; its range goes first in SACK (RFC 2018). */
    private int latest;
    /** The edges {@link #sackBlocks(int)} reports, made with its first report. */
    private int[] sackEdges;

    OutOfOrder(int maxRanges) {
        this.maxRanges = maxRanges;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int count() {
        return count;
    }

    /** Records [start, end); false when it would need more ranges than this holds. */
    boolean add(int start, int end) {
        if (this == NONE) throw new IllegalStateException("ranges added to OutOfOrder.NONE");
        if (starts == NO_RANGES) {
            starts = new int[maxRanges];
            ends = new int[maxRanges];
        }
        int i = 0;
        while (i < count && Seq.lt(ends[i], start)) i++;          // ranges wholly before
        int j = i;
        while (j < count && Seq.le(starts[j], end)) j++;          // ranges overlapping or touching
        if (i == j && count == starts.length) return false;
        int mergedStart = start, mergedEnd = end;
        if (j > i) {
            if (Seq.lt(starts[i], mergedStart)) mergedStart = starts[i];
            if (Seq.gt(ends[j - 1], mergedEnd)) mergedEnd = ends[j - 1];
        }
        int removed = j - i;
        // Replace ranges i..j-1 with the merged one.
        int shift = 1 - removed;
        System.arraycopy(starts, j, starts, j + shift, count - j);
        System.arraycopy(ends, j, ends, j + shift, count - j);
        starts[i] = mergedStart;
        ends[i] = mergedEnd;
        count += shift;
        latest = start;
        return true;
    }

    /**
     * The next expected byte became rcvNxt: drops the ranges it covers and returns how many bytes
     * beyond rcvNxt are already received (now in order).
     */
    int advance(int rcvNxt) {
        int gained = 0;
        while (count > 0 && Seq.le(starts[0], rcvNxt + gained)) {
            if (Seq.gt(ends[0], rcvNxt + gained)) gained = ends[0] - rcvNxt;
            System.arraycopy(starts, 1, starts, 0, count - 1);
            System.arraycopy(ends, 1, ends, 0, count - 1);
            count--;
        }
        return gained;
    }

    /** The end of the range holding seq, or seq itself when no range holds it. */
    int skipCovered(int seq) {
        for (int i = 0; i < count; i++) {
            if (Seq.le(starts[i], seq) && Seq.lt(seq, ends[i])) return ends[i];
        }
        return seq;
    }

    /** How many bytes from seq up to the next range's start; {@code fallback} when no range starts after seq. */
    int gapAfter(int seq, int fallback) {
        for (int i = 0; i < count; i++) {
            if (Seq.gt(starts[i], seq)) return starts[i] - seq;
        }
        return fallback;
    }

    /** The end of the highest range; meaningful only when not empty. */
    int highestEnd() {
        return ends[count - 1];
    }

    void clear() {
        if (count != 0) count = 0; // NONE, shared, is never written
    }

    /**
     * Reports up to max SACK blocks in {@link #sackEdges()} (as {@link #sackBlocks(int[], int)}):
     * only a set that holds ranges ever reports, so the array is made here and not by each owner.
     */
    int sackBlocks(int max) {
        if (sackEdges == null || sackEdges.length < 2 * max) sackEdges = new int[2 * max];
        return sackBlocks(sackEdges, max);
    }

    /** The edges of the blocks the latest {@link #sackBlocks(int)} reported. */
    int[] sackEdges() {
        return sackEdges;
    }

    /** Fills edges with up to max SACK blocks, the latest segment's range first; returns how many. */
    int sackBlocks(int[] edges, int max) {
        int n = 0;
        int first = -1;
        for (int i = 0; i < count; i++) {
            if (Seq.le(starts[i], latest) && Seq.lt(latest, ends[i])) first = i;
        }
        if (first >= 0) {
            edges[0] = starts[first];
            edges[1] = ends[first];
            n = 1;
        }
        for (int i = 0; i < count && n < max; i++) {
            if (i == first) continue;
            edges[2 * n] = starts[i];
            edges[2 * n + 1] = ends[i];
            n++;
        }
        return n;
    }
}
