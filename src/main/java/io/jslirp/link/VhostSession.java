package io.jslirp.link;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FdMessages;
import io.jslirp.sys.Libc;
import io.jslirp.sys.SharedMapping;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;
import io.jslirp.vhostuser.Action;
import io.jslirp.vhostuser.Backend;
import io.jslirp.vhostuser.Features;
import io.jslirp.vhostuser.Message;
import io.jslirp.vhostuser.Outcome;
import io.jslirp.vhostuser.ProtocolException;
import io.jslirp.virtio.GuestMemory;
import io.jslirp.virtio.RegionTable;
import io.jslirp.virtio.RxFrames;
import io.jslirp.virtio.Virtqueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One vhost-user front-end's connection, for {@link VhostUserLink}: reads its messages (the
 * descriptors beside them), has the {@link Backend} decide, carries out what it says (guest
 * memory mapped and unmapped, rings started and stopped, kick descriptors watched in the link's
 * poller, call descriptors kept) and sends the reply. The front-end is untrusted: whatever it
 * sends that is not taken ends the connection with one warning line and everything it held
 * released, never an exception out of the loop.
 *
 * <p>Queue pair k is two rings: ring 2k receives toward the guest, ring 2k + 1 transmits from it.
 * Up to {@link #MAX_QUEUE_PAIRS} pairs are offered (VIRTIO_NET_F_MQ, and GET_QUEUE_NUM with the
 * protocol's MQ); a front-end without multiqueue uses pair 0 alone. A ring is served while it runs:
 * started, and enabled by the front-end (QEMU enables the pairs the guest's driver asked for).
 */
final class VhostSession {
    /**
     * Queue pairs offered at most (QEMU's {@code queues=N} may not exceed it). The guest's driver
     * uses one pair per vCPU, each ring with an interrupt vector of its own, and this link's loop is
     * one thread whatever the count: more pairs spread only the guest's share of the work, which
     * pays up to the few vCPUs a VM behind a user-mode network is given. Each receive ring in use
     * costs the link a backlog ({@link RxBacklog}), made the first time that ring runs out of buffers.
     */
    static final int MAX_QUEUE_PAIRS = 8;
    /**
     * The device features offered. Toward the guest, checksums and TCP cutting left to its driver
     * (GUEST_CSUM, GUEST_TSO4/6: {@link VhostUserLink#CAPABILITIES}); from it, frames whose checksum
     * it left to us and TCP segments of up to 64 KiB (CSUM, HOST_TSO4/6), which the stack takes as
     * a tap's with vnet headers, and UDP frames of up to 64 KiB (HOST_USO), which the link cuts into
     * their datagrams ({@link UsoCut}) before the stack sees them. Not GUEST_USO: the link does not
     * say it takes UDP frames to cut toward the guest. MQ with
     * the protocol's MQ: up to {@link #MAX_QUEUE_PAIRS} pairs (QEMU's own device has the control
     * queue through which the driver picks how many it uses).
     */
    static final Backend.Offer OFFER = new Backend.Offer(
            Features.bit(Features.VERSION_1) | Features.bit(Features.NET_MRG_RXBUF)
                    | Features.bit(Features.RING_EVENT_IDX) | Features.bit(Features.RING_INDIRECT_DESC)
                    | Features.bit(Features.NET_GUEST_CSUM) | Features.bit(Features.NET_GUEST_TSO4) | Features.bit(Features.NET_GUEST_TSO6)
                    | Features.bit(Features.NET_CSUM) | Features.bit(Features.NET_HOST_TSO4) | Features.bit(Features.NET_HOST_TSO6)
                    | Features.bit(Features.NET_HOST_USO) | Features.bit(Features.NET_MQ),
            Features.bit(Features.PROTOCOL_REPLY_ACK) | Features.bit(Features.PROTOCOL_MQ), MAX_QUEUE_PAIRS);
    static final int RINGS = 2 * MAX_QUEUE_PAIRS;
    /**
     * A transmit ring's interrupts are deferred ({@link #flush(boolean)}) only once it has given
     * this many frames in a run: a guest sending steadily takes its used buffers back itself, where
     * one sending a request, or the first frames of a connection, may wait for the interrupt.
     */
    static final int BUSY_RUN_FRAMES = 64;
    /** A pause this long between a transmit ring's frames ends its run. */
    static final long RUN_GAP_NANOS = 10_000_000L;

    private final int socket;
    private final Epoll poller;
    /** The poller tag of ring r's kick descriptor is kickTag + r. */
    private final int kickTag;
    private final Backend backend;
    private final MemorySegment reply = Arena.ofAuto().allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final MemorySegment in = Arena.ofAuto().allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final MemorySegment counter = Arena.ofAuto().allocate(8, 8);
    private final FdMessages io = new FdMessages();
    private final Message message = new Message();
    /** Bytes of the message being read, its payload's size once its header is in, and the descriptors come with it. */
    private int have, payload = -1;
    private final int[] fds = new int[FdMessages.MAX_FDS];
    private int fdCount;
    private SharedMapping[] mappings = new SharedMapping[0];
    private final Virtqueue[] queues = new Virtqueue[RINGS];
    private final boolean[] pushed = new boolean[RINGS];
    /** Ring r published used elements whose interrupt was deferred ({@link #flush(boolean)}). */
    private final boolean[] owed = new boolean[RINGS];
    /** Frames transmit ring r gave in its current run (none more than {@link #RUN_GAP_NANOS} apart), and when its latest came. */
    private final int[] runFrames = new int[RINGS];
    private final long[] lastFrameAt = new long[RINGS];
    private final int[] kick = new int[RINGS], call = new int[RINGS], err = new int[RINGS];
    /** Pair k's receive ring's frames while it runs, else null. */
    private final RxFrames[] rx = new RxFrames[MAX_QUEUE_PAIRS];
    /** Ring r was found empty with kicks asked for: it needs no look until its kick (see {@link #idle}). */
    private final boolean[] idle = new boolean[RINGS];
    /** One more than the highest pair whose receive ring runs (0: none). */
    private int receiveLanes;
    private boolean closed;

    VhostSession(int socket, Epoll poller, int kickTag) {
        this.socket = socket;
        this.poller = poller;
        this.kickTag = kickTag;
        this.backend = new Backend(OFFER, reply);
        Arrays.fill(kick, -1);
        Arrays.fill(call, -1);
        Arrays.fill(err, -1);
    }

    /** Ring r's queue while it runs (started and enabled), else null. */
    Virtqueue queue(int ring) {
        return queues[ring];
    }

    /** Pair k's receive ring's frames while it runs, else null. */
    RxFrames receive(int pair) {
        return rx[pair];
    }

    /**
     * One more than the highest pair whose receive ring runs (0: none): the lanes flows toward the
     * guest are dealt over (a lane below it whose ring does not run falls back to pair 0).
     */
    int receiveLanes() {
        return receiveLanes;
    }

    /**
     * Whether ring r may be passed over until its kick: it was found empty after kicks were asked
     * for ({@link #markIdle}). A start, a new kick descriptor and a kick clear it.
     */
    boolean idle(int ring) {
        return idle[ring];
    }

    /** Ring r was found empty with kicks asked for; a ring without a kick descriptor is never idle (it is polled). */
    void markIdle(int ring) {
        idle[ring] = kick[ring] >= 0;
    }

    /** The device features the front-end acknowledged (0 before it did). */
    long features() {
        return backend.features();
    }

    /** Ring r's queue has used elements pushed and not yet published. */
    void pushed(int ring) {
        pushed[ring] = true;
    }

    /** Transmit ring r gave a frame at now (nanoTime): its run goes on, or a new one starts. */
    void transmitted(int ring, long now) {
        if (now - lastFrameAt[ring] > RUN_GAP_NANOS) runFrames[ring] = 0;
        if (runFrames[ring] < BUSY_RUN_FRAMES) runFrames[ring]++;
        lastFrameAt[ring] = now;
    }

    boolean closed() {
        return closed;
    }

    /**
     * Reads and handles every whole message the socket holds: false when the connection ended
     * (the front-end left, or sent what is not taken: then a warning says why).
     */
    boolean readable() {
        while (!closed) {
            // (more than 0 bytes wanted: a message is handled as soon as it is whole)
            int want = payload < 0 ? Message.HEADER - have : Message.HEADER + payload - have;
            int n = io.receive(socket, in, have, want);
            if (!takeFds()) return fail("more than " + FdMessages.MAX_FDS + " descriptors with one message");
            if (n == -Errno.EAGAIN || n == -Errno.EINTR) return true;
            if (n == 0) return end("closed the connection");
            if (n < 0) return fail("reading failed: " + Errno.describe(-n));
            have += n;
            if (payload < 0 && have == Message.HEADER) {
                try {
                    payload = Message.payloadSize(in);
                } catch (ProtocolException e) {
                    return fail(e.getMessage());
                }
            }
            if (payload >= 0 && have == Message.HEADER + payload && !handle()) return false;
        }
        return false;
    }

    /** Adds the descriptors the last read brought to the message's; false when there were too many. */
    private boolean takeFds() {
        boolean fits = !io.truncated();
        for (int i = 0; i < io.fdCount(); i++) {
            if (fdCount < fds.length) fds[fdCount++] = io.fd(i);
            else {
                Libc.close(io.fd(i));
                fits = false;
            }
        }
        return fits;
    }

    /** Handles the message read whole: false when the connection is to end. */
    private boolean handle() {
        int[] given = Arrays.copyOf(fds, fdCount);
        fdCount = 0;
        long length = have;
        have = 0;
        payload = -1;
        Message m;
        try {
            m = message.decode(in, length);
        } catch (ProtocolException e) {
            for (int fd : given) Libc.close(fd);
            return fail(e.getMessage());
        }
        Log.debug(() -> "vhost-user " + m.request() + (given.length > 0 ? " with " + given.length + " descriptors" : ""));
        flush(); // a new memory table or a stopped ring reads the used index back from the ring
        Outcome o = backend.handle(m, given);
        String why = perform(o);
        if (why == null) why = o.error();
        if (why == null && o.replyLength() > 0) {
            int n = io.send(socket, reply, 0, o.replyLength());
            if (n != o.replyLength()) why = "the reply to " + m.request() + " could not be sent: " + (n < 0 ? Errno.describe(-n) : n + " bytes taken");
        }
        if (why != null) return fail(m.request() + ": " + why);
        return true;
    }

    /** Carries out o's actions in order: null, or why the connection is to end. */
    private String perform(Outcome o) {
        String why = null;
        for (Action a : o.actions()) {
            String w = switch (a) {
                case Action.MapMemory mm -> map(mm);
                case Action.UnmapMemory u -> unmap();
                case Action.StartRing s -> start(s.ring());
                case Action.StopRing s -> stop(s.ring());
                case Action.Kick k -> watchKick(k.ring(), k.fd());
                case Action.Call c -> replaceCall(c.ring(), c.fd());
                case Action.Err e -> keep(err, e.ring(), e.fd());
                case Action.CloseFd c -> closeFd(c.fd());
            };
            if (why == null) why = w;
        }
        return why;
    }

    /** Maps each region's descriptor (closed then, mapped or not) and tells the backend. */
    private String map(Action.MapMemory mm) {
        RegionTable table = mm.table();
        SharedMapping[] maps = new SharedMapping[table.count()];
        MemorySegment[] segments = new MemorySegment[maps.length];
        String why = null;
        for (int i = 0; i < maps.length && why == null; i++) {
            try {
                maps[i] = SharedMapping.map(mm.fds()[i], mm.mmapOffsets()[i], table.region(i).size());
                segments[i] = maps[i].segment();
            } catch (SysException | IllegalArgumentException e) {
                why = "region " + i + " cannot be mapped: " + e.getMessage();
            }
        }
        for (int fd : mm.fds()) Libc.close(fd);
        if (why != null) {
            for (SharedMapping s : maps) if (s != null) s.unmap();
            return why;
        }
        mappings = maps;
        Outcome after = backend.mapped(new GuestMemory(table, segments));
        String w = perform(after);
        return w != null ? w : after.error();
    }

    private String unmap() {
        Arrays.fill(queues, null); // (stopped already: no queue may outlive its memory)
        Arrays.fill(rx, null);
        receiveLanes = 0;
        for (SharedMapping s : mappings) s.unmap();
        mappings = new SharedMapping[0];
        return null;
    }

    private String start(int ring) {
        Virtqueue q = backend.queue(ring);
        queues[ring] = q;
        idle[ring] = false;
        if (ring % 2 == 0) {
            rx[ring / 2] = new RxFrames(q, Features.has(backend.features(), Features.NET_MRG_RXBUF));
            q.suppressKicks(); // frames toward the guest are put when they come: a kick for new buffers would only cost the guest an exit
            countLanes();
        }
        if (ring == 0) {
            long f = backend.features();
            Log.debug(() -> "vhost-user features acknowledged: 0x" + Long.toHexString(f) + (Features.has(f, Features.NET_GUEST_TSO4)
                    ? "" : " (no GUEST_TSO4: large TCP frames are cut here)"));
        }
        return null;
    }

    private String stop(int ring) {
        queues[ring] = null;
        pushed[ring] = owed[ring] = false;
        runFrames[ring] = 0;
        if (ring % 2 == 0) {
            rx[ring / 2] = null;
            countLanes();
        }
        return null;
    }

    private void countLanes() {
        int n = rx.length;
        while (n > 0 && rx[n - 1] == null) n--;
        if (n != receiveLanes) {
            int lanes = n;
            Log.debug(() -> "vhost-user receive rings in use: " + lanes + " queue pair" + (lanes == 1 ? "" : "s"));
        }
        receiveLanes = n;
    }

    private String watchKick(int ring, int fd) {
        if (kick[ring] >= 0) poller.remove(kick[ring]); // (closed by the CloseFd that follows)
        kick[ring] = fd;
        idle[ring] = false; // (a kick written to the descriptor replaced is not seen)
        if (fd >= 0) poller.add(fd, Epoll.IN, kickTag + ring);
        return null;
    }

    /**
     * A new call descriptor for ring: kept, and signalled once if the ring runs. QEMU swaps a
     * ring's call descriptor when the guest masks or unmasks its interrupt vector (its own eventfd
     * while masked, whose pending signal it replays at the unmask), and tests the old one for a
     * signal right after sending the message, before this side has read it. The flush before each
     * message may signal the old one after that test: an interrupt lost, and with EVENT_IDX every
     * later one too, since the guest's used_event then stays behind the frames it was never told
     * of (its receive ring stalls). So the new one is signalled at once, as libvhost-user and passt
     * do: at worst a spurious interrupt, after which the driver reads its used ring and asks again.
     */
    private String replaceCall(int ring, int fd) {
        keep(call, ring, fd);
        if (fd >= 0 && queues[ring] != null) signal(fd);
        return null;
    }

    private static String keep(int[] fdOf, int ring, int fd) {
        fdOf[ring] = fd;
        return null;
    }

    /** Closes fd, forgetting it wherever it was kept. */
    private String closeFd(int fd) {
        for (int r = 0; r < RINGS; r++) {
            if (kick[r] == fd) {
                poller.remove(fd);
                kick[r] = -1;
            }
            if (call[r] == fd) call[r] = -1;
            if (err[r] == fd) err[r] = -1;
        }
        Libc.close(fd);
        return null;
    }

    /** Empties ring r's kick descriptor (its count does not matter: the ring is read until empty); the ring is looked at again. */
    void drainKick(int ring) {
        if (ring < 0 || ring >= RINGS) return;
        idle[ring] = false;
        if (kick[ring] >= 0) Libc.read(kick[ring], counter, 0, 8);
    }

    /**
     * Publishes what was pushed and interrupts the guest where its driver asks for it: once per
     * flush for a receive ring; for a transmit ring in a busy run ({@link #BUSY_RUN_FRAMES}), with
     * deferTransmit, not now but at {@link #notifyDeferred} (true is then returned: the caller
     * arranges that call).
     */
    boolean flush(boolean deferTransmit) {
        boolean deferred = false;
        for (int r = 0; r < RINGS; r++) {
            Virtqueue q = queues[r];
            if (!pushed[r] || q == null) continue;
            pushed[r] = false;
            q.publish();
            if (deferTransmit && r % 2 == 1 && runFrames[r] >= BUSY_RUN_FRAMES) deferred = owed[r] = true;
            else if (q.shouldNotify() && call[r] >= 0) signal(call[r]);
        }
        return deferred;
    }

    /** As {@link #flush(boolean)}, every ring's interrupt now. */
    void flush() {
        flush(false);
        notifyDeferred();
    }

    /**
     * Interrupts the guest for what the transmit rings published since their flushes deferred it,
     * where its driver still asks for that now: a driver that has meanwhile taken its used
     * buffers back itself (as Linux's does before each frame it transmits) has moved its used_event on.
     */
    void notifyDeferred() {
        for (int r = 1; r < RINGS; r += 2) {
            if (!owed[r]) continue;
            owed[r] = false;
            Virtqueue q = queues[r];
            if (q != null && q.shouldNotify() && call[r] >= 0) signal(call[r]);
        }
    }

    private void signal(int fd) {
        counter.set(ValueLayout.JAVA_LONG, 0, 1L);
        Libc.write(fd, counter, 0, 8);
    }

    /** A queue the guest's driver broke: its err descriptor signalled, and the connection ends. */
    boolean broken(int ring, String why) {
        if (err[ring] >= 0) signal(err[ring]);
        return fail("ring " + ring + ": " + why);
    }

    /** Ends the connection with a warning saying why. Always false. */
    boolean fail(String why) {
        Log.warn("vhost-user front-end disconnected: " + why);
        close();
        return false;
    }

    private boolean end(String why) {
        Log.debug(() -> "vhost-user front-end " + why);
        close();
        return false;
    }

    /** Releases everything the connection held, and the socket. Once. */
    void close() {
        if (closed) return;
        closed = true;
        perform(backend.close());
        unmap();
        for (int r = 0; r < RINGS; r++) {
            for (int fd : new int[] {kick[r], call[r], err[r]}) if (fd >= 0) closeFd(fd);
        }
        for (int i = 0; i < fdCount; i++) Libc.close(fds[i]);
        fdCount = 0;
        poller.remove(socket);
        Libc.close(socket);
    }
}
