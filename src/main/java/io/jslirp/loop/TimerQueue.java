package io.jslirp.loop;

import java.util.Arrays;

/**
 * The loop's armed timers, earliest {@code queuedAt} first: a binary heap in which every timer
 * knows its own slot, so that moving a deadline earlier (a retransmission armed on a connection
 * whose idle timeout was queued) removes the old entry in O(log n) rather than searching for it.
 */
final class TimerQueue {
    private Timer[] heap = new Timer[64];
    private int size;

    int size() {
        return size;
    }

    /** The earliest timer, or null. */
    Timer peek() {
        return size == 0 ? null : heap[0];
    }

    /** Queues timer, which must not be queued, at its {@code queuedAt}. */
    void add(Timer timer) {
        if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
        siftUp(size++, timer);
    }

    /** Takes the earliest timer out, or returns null. */
    Timer poll() {
        if (size == 0) return null;
        Timer first = heap[0];
        removeAt(0);
        return first;
    }

    /** Takes timer out, if it is queued. */
    void remove(Timer timer) {
        int i = timer.slot;
        if (i >= 0 && i < size && heap[i] == timer) removeAt(i);
    }

    private void removeAt(int i) {
        Timer removed = heap[i];
        removed.slot = -1;
        Timer last = heap[--size];
        heap[size] = null;
        if (i == size) return;
        siftDown(i, last);
        if (heap[i] == last) siftUp(i, last);
    }

    private void siftUp(int i, Timer t) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timer p = heap[parent];
            if (p.queuedAt <= t.queuedAt) break;
            place(i, p);
            i = parent;
        }
        place(i, t);
    }

    private void siftDown(int i, Timer t) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            Timer c = heap[child];
            int right = child + 1;
            if (right < size && heap[right].queuedAt < c.queuedAt) c = heap[child = right];
            if (t.queuedAt <= c.queuedAt) break;
            place(i, c);
            i = child;
        }
        place(i, t);
    }

    private void place(int i, Timer t) {
        heap[i] = t;
        t.slot = i;
    }
}
