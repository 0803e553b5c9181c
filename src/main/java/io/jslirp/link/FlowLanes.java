package io.jslirp.link;

/**
 * Picks the queue of a multi-queue tap that a frame toward the guest is written to, and with it
 * the queue the guest's own packets of that flow arrive on: the tun driver sends a flow's packets
 * out through the queue its last received packet came in by (its flow table, keyed by a symmetric
 * hash). New flows are dealt out in turn, so a handful of flows (a bulk upload and an interactive
 * session) never share a queue, and a bulk flow's backlog does not hold up the others.
 *
 * <p>A flow is what the stack's hash of the frame says ({@link io.jslirp.stack.TxFrame#flowKey()}:
 * addresses and protocol, and the ports of TCP and UDP); a frame without one (ARP) uses queue 0. A
 * slot remembers one flow; a second live flow that lands on a taken slot gets a queue from its
 * hash instead, so it still stays on one queue.
 */
final class FlowLanes {
    private static final int SLOTS = 4096;
    /** A slot not used for this long belongs to a flow that has ended. */
    private static final long STALE_NANOS = 10_000_000_000L;

    private final int queues;
    private final int[] keys = new int[SLOTS];
    private final byte[] lanes = new byte[SLOTS];
    private final long[] lastUsed = new long[SLOTS];
    private int nextLane;

    FlowLanes(int queues) {
        if (queues < 1 || queues > 256) throw new IllegalArgumentException("queues must be 1..256: " + queues);
        this.queues = queues;
    }

    /** The queue for a frame of the flow whose hash is key (0: none), at time now (nanoTime). */
    int laneOf(int key, long now) {
        if (queues == 1 || key == 0) return 0;
        int slot = key & (SLOTS - 1);
        if (keys[slot] == key) {
            lastUsed[slot] = now;
            return lanes[slot] & 0xff;
        }
        if (keys[slot] != 0 && now - lastUsed[slot] < STALE_NANOS) {
            return Integer.remainderUnsigned(key, queues);
        }
        int lane = nextLane;
        nextLane = (nextLane + 1) % queues;
        keys[slot] = key;
        lanes[slot] = (byte) lane;
        lastUsed[slot] = now;
        return lane;
    }
}
