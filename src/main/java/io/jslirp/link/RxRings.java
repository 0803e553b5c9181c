package io.jslirp.link;

import io.jslirp.virtio.RxFrames;
import io.jslirp.virtio.VirtioException;
import io.jslirp.virtio.Virtqueue;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * Frames toward the guest over the receive rings of a vhost-user session, for {@link VhostUserLink}:
 * which ring a frame goes to, and the frames waiting for a ring's buffers. Flows are dealt over the
 * queue pairs whose receive rings run ({@link FlowLanes}, as a multi-queue tap deals them), so one
 * flow stays on one ring; a frame without a flow (ARP), or of a flow whose ring does not run (its
 * pair not enabled by the guest's driver), goes to pair 0. Each ring has its own backlog
 * ({@link RxBacklog}, made the first time the ring runs out of buffers): a ring's frames reach the
 * guest in the order they were sent, and a ring short of buffers does not hold up the others.
 */
final class RxRings {
    private final RxBacklog[] backlogs;
    private final LongSupplier clock;
    private FlowLanes lanes = new FlowLanes(1);
    /** The lanes {@link #lanes} deals over: rebuilt when the guest's driver changes how many pairs it uses. */
    private int laneCount = 1;

    /** For up to pairs queue pairs; clock times the flows ({@link FlowLanes}: System.nanoTime). */
    RxRings(int pairs, LongSupplier clock) {
        this.backlogs = new RxBacklog[pairs];
        this.clock = clock;
    }

    /** The pair whose receive ring takes a frame of the flow whose hash is key (0: none). */
    int pairOf(VhostSession s, int key) {
        int n = s.receiveLanes();
        if (n <= 1 || key == 0) return 0;
        if (n != laneCount) {
            lanes = new FlowLanes(n);
            laneCount = n;
        }
        int pair = lanes.laneOf(key, clock.getAsLong());
        return s.receive(pair) != null ? pair : 0;
    }

    /**
     * Puts a frame (head's first headLength bytes, then tailLength bytes of tail from tailOffset:
     * a payload where it waits, copied once) behind header's {@link RxFrames#HEADER} bytes into
     * pair's receive ring, or, when the ring has no free buffer now or frames wait for it already,
     * behind them in its backlog: false (a drop) when the ring does not run or the backlog is full.
     * Frames already waiting are put first. A refusal by the ring's queue is thrown (the frame refused dropped).
     */
    boolean put(VhostSession s, int pair, MemorySegment header, MemorySegment head, int headLength, MemorySegment tail,
            long tailOffset, int tailLength) throws VirtioException {
        RxFrames rx = s.receive(pair);
        if (rx == null) {
            clear(pair);
            return false;
        }
        drain(s, pair);
        RxBacklog b = backlogs[pair];
        if (b == null || b.isEmpty()) {
            int chains = rx.put(header, 0, head, 0, headLength, tail, tailOffset, tailLength);
            if (chains > 0) s.pushed(2 * pair);
            if (chains != RxFrames.NO_ROOM) return chains > 0;
        }
        if (b == null) b = backlogs[pair] = new RxBacklog();
        if (!b.add(header, head, headLength, tail, tailOffset, tailLength)) return false;
        drain(s, pair); // (asks for a kick when the driver adds buffers)
        return true;
    }

    /** Whether frames wait for pair's receive ring. */
    boolean waiting(int pair) {
        RxBacklog b = backlogs[pair];
        return b != null && !b.isEmpty();
    }

    /**
     * Puts the frames waiting for pair's receive ring into it, in order; while some still wait the
     * driver is asked to kick when it adds buffers, and once none do, not to. The frames of a ring
     * that stopped (its pair disabled, the front-end stopping it) are dropped. A refusal by the
     * queue is thrown (the frame refused dropped).
     */
    void drain(VhostSession s, int pair) throws VirtioException {
        if (!waiting(pair)) return;
        RxBacklog b = backlogs[pair];
        RxFrames rx = s.receive(pair);
        if (rx == null) {
            b.clear();
            return;
        }
        Virtqueue q = s.queue(2 * pair);
        while (true) {
            if (b.drain(rx) > 0) s.pushed(2 * pair);
            if (b.isEmpty()) {
                q.suppressKicks();
                return;
            }
            if (q.kickOnNextAddition()) return;
        }
    }

    private void clear(int pair) {
        if (backlogs[pair] != null) backlogs[pair].clear();
    }

    /** Drops every frame waiting (the session ended). */
    void clear() {
        for (int k = 0; k < backlogs.length; k++) clear(k);
    }
}
