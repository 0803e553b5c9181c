package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.link.Link;
import io.jslirp.loop.Pacing;
import io.jslirp.loop.Reactor;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Epoll;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Takes frames from the link's receive queues into the stack in batches, so that an interactive
 * flow does not wait behind a bulk transfer (lesson 3 of docs/design.md). How large a batch is,
 * and which queue is busy, the loop's {@link Pacing} decides from what this tells it:
 * <ul>
 * <li>A queue whose batch stops at its budget is backlogged: its next batch runs in the next
 *     iteration, after the other ready queues and host sockets, and after a flush of what they
 *     produced ({@link Reactor#continueAfterReady}).
 * <li>While frames keep arriving on queues that are not busy, busy queues get small batches, so
 *     the interactive flow waits behind a few microseconds of bulk work. Otherwise batches are
 *     large: each batch ends in a flush (a host write, an ACK that wakes the guest's sender),
 *     and fewer flushes per byte is what bulk throughput needs.
 * <li>A queue that is not busy brought an interactive request: once it is answered, the loop
 *     polls briefly for the next one there before the next bulk batch ({@link Reactor#expectNextRequest}).
 * </ul>
 */
final class LinkReceiver {
    private final Link link;
    private final Stack stack;
    private final Reactor loop;
    private final Pacing pacing;
    /** Null without --pcap. */
    private final Capture capture;
    private final MemorySegment rx = Arena.ofAuto().allocate(65536 + 64, 64);
    private final Runnable[] batches;

    LinkReceiver(Link link, Stack stack, Reactor loop, Capture capture) {
        this.link = link;
        this.stack = stack;
        this.loop = loop;
        this.pacing = loop.pacing();
        this.capture = capture;
        int queues = link.queues();
        pacing.linkQueues(queues);
        batches = new Runnable[queues];
        for (int q = 0; q < queues; q++) {
            int queue = q;
            batches[q] = () -> receiveBatch(queue, loop.clock().now());
            loop.register(link.fd(q), Epoll.IN, events -> onReadable(queue));
        }
    }

    private void onReadable(int queue) {
        if (pacing.backlogged(queue)) return; // its next batch is scheduled already
        long now = loop.clock().now();
        if (pacing.framesArrived(queue, now)) loop.expectNextRequest(link.fd(queue));
        receiveBatch(queue, now);
    }

    private void receiveBatch(int queue, long now) {
        boolean busy = pacing.busy(queue, now);
        boolean small = pacing.smallBatch(queue, now);
        int maxFrames = Pacing.batchFrames(small);
        int maxBytes = Pacing.batchBytes(small);
        int bytes = 0;
        long turns = pacing.hostTurns();
        for (int frames = 0; frames < maxFrames && bytes < maxBytes; frames++) {
            int n = link.receive(queue, rx);
            if (n == 0) {
                pacing.caughtUp(queue);
                loop.moved(bytes);
                return;
            }
            if (n < 0) {
                loop.stop();
                return;
            }
            if (capture != null) capture.frame(rx, n);
            try {
                stack.receive(rx, n, link.checksumTrusted());
            } catch (RuntimeException e) {
                // A bug for one frame must not stop the link: left mid-batch, the queue would stay
                // backlogged with no batch scheduled and never be read again. The frame is dropped.
                Log.warn("internal error (please report), a frame from the guest dropped: " + e);
                if (Log.debugEnabled()) e.printStackTrace();
            }
            bytes += n;
            if (frames == 0 && !busy && link.pollSeesEveryFrame() && pacing.hostTurns() != turns && pacing.mayStopEarly(queue)) {
                // A frame that left the guest waiting for the host (a request, a connect, its end),
                // on a queue without a backlog: it goes to be answered now, without first a read that
                // finds the queue empty (a frame behind it keeps the tap readable: the registration
                // is level-triggered). A ping-pong saves a system call a round trip, a connection
                // opened, used once and closed up to three. Not for every small frame: a download's ACKs
                // would then come one an iteration, which cost it much of its rate (docs/benchmarks.md,
                // Why the code is as it is); nor right after such a stop found frames behind it.
                pacing.stoppedEarly(queue);
                pacing.caughtUp(queue);
                loop.moved(bytes);
                return;
            }
        }
        loop.moved(bytes);
        // More may be waiting, on the tap or held by the link where epoll cannot see it.
        pacing.backlogged(queue, now);
        loop.continueAfterReady(batches[queue]);
    }
}
