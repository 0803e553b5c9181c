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
 * <p>Ring 0 receives toward the guest, ring 1 transmits from it (one queue pair).
 */
final class VhostSession {
    /**
     * The device features offered. Toward the guest, checksums and TCP cutting left to its driver
     * (GUEST_CSUM, GUEST_TSO4/6: {@link VhostUserLink#CAPABILITIES}); from it, frames whose checksum
     * it left to us and TCP segments of up to 64 KiB (CSUM, HOST_TSO4/6), which the stack takes as
     * a tap's with vnet headers. Not UDP's: the stack does not cut a guest's UDP frames.
     */
    static final Backend.Offer OFFER = new Backend.Offer(
            Features.bit(Features.VERSION_1) | Features.bit(Features.NET_MRG_RXBUF)
                    | Features.bit(Features.RING_EVENT_IDX) | Features.bit(Features.RING_INDIRECT_DESC)
                    | Features.bit(Features.NET_GUEST_CSUM) | Features.bit(Features.NET_GUEST_TSO4) | Features.bit(Features.NET_GUEST_TSO6)
                    | Features.bit(Features.NET_CSUM) | Features.bit(Features.NET_HOST_TSO4) | Features.bit(Features.NET_HOST_TSO6),
            Features.bit(Features.PROTOCOL_REPLY_ACK), 1);
    static final int RINGS = 2 * OFFER.queuePairs();

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
    private final int[] kick = new int[RINGS], call = new int[RINGS], err = new int[RINGS];
    private RxFrames rx;
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

    /** The transmit queue while it runs, else null. */
    Virtqueue transmit() {
        return queues[1];
    }

    /** The receive queue while it runs, else null. */
    Virtqueue receiveQueue() {
        return queues[0];
    }

    /** The receive queue's frames while it runs, else null. */
    RxFrames receive() {
        return rx;
    }

    /** The device features the front-end acknowledged (0 before it did). */
    long features() {
        return backend.features();
    }

    /** Ring r's queue has used elements pushed and not yet published. */
    void pushed(int ring) {
        pushed[ring] = true;
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
                case Action.Call c -> keep(call, c.ring(), c.fd());
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
        rx = null;
        for (SharedMapping s : mappings) s.unmap();
        mappings = new SharedMapping[0];
        return null;
    }

    private String start(int ring) {
        Virtqueue q = backend.queue(ring);
        queues[ring] = q;
        if (ring == 0) {
            rx = new RxFrames(q, Features.has(backend.features(), Features.NET_MRG_RXBUF));
            q.suppressKicks(); // frames toward the guest are put when they come: a kick for new buffers would only cost the guest an exit
            long f = backend.features();
            Log.debug(() -> "vhost-user features acknowledged: 0x" + Long.toHexString(f) + (Features.has(f, Features.NET_GUEST_TSO4)
                    ? "" : " (no GUEST_TSO4: large TCP frames are cut here)"));
        }
        return null;
    }

    private String stop(int ring) {
        queues[ring] = null;
        pushed[ring] = false;
        if (ring == 0) rx = null;
        return null;
    }

    private String watchKick(int ring, int fd) {
        if (kick[ring] >= 0) poller.remove(kick[ring]); // (closed by the CloseFd that follows)
        kick[ring] = fd;
        if (fd >= 0) poller.add(fd, Epoll.IN, kickTag + ring);
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

    /** Empties ring r's kick descriptor (its count does not matter: the ring is read until empty). */
    void drainKick(int ring) {
        if (ring >= 0 && ring < RINGS && kick[ring] >= 0) Libc.read(kick[ring], counter, 0, 8);
    }

    /** Publishes what was pushed and interrupts the guest where its driver asks for it: once per flush. */
    void flush() {
        for (int r = 0; r < RINGS; r++) {
            Virtqueue q = queues[r];
            if (!pushed[r] || q == null) continue;
            pushed[r] = false;
            q.publish();
            if (q.shouldNotify() && call[r] >= 0) signal(call[r]);
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
