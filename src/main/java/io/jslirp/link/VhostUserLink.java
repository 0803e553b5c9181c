package io.jslirp.link;

import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.TimerFd;
import io.jslirp.sys.UnixListener;
import io.jslirp.sys.UnixSocketFile;
import io.jslirp.util.Log;
import io.jslirp.vhostuser.Features;
import io.jslirp.virtio.Chain;
import io.jslirp.virtio.RxFrames;
import io.jslirp.virtio.VirtioException;
import io.jslirp.virtio.Virtqueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * QEMU's vhost-user netdev (-netdev vhost-user): the guest's virtqueues read and written in its
 * own memory, shared with this process, QEMU out of the data path. A unix stream socket at a
 * path carries the control messages ({@link VhostSession}); frames never cross it.
 *
 * <p>Multiqueue: up to {@link VhostSession#MAX_QUEUE_PAIRS} queue pairs are offered, pair k being
 * ring 2k (receive toward the guest) and ring 2k + 1 (transmit from it); a front-end without
 * multiqueue (QEMU without {@code queues=N}, or a device without {@code mq=on}) uses pair 0 alone.
 * The engine still sees one link queue: this link's own poller stands for every ring.
 *
 * <p>Transmit: a kick of any transmit ring makes the poller readable; {@link #receive} pops
 * chains, each the 12-byte virtio-net header then the frame, copies the frame out (the header
 * kept aside for its checksum flags) and pushes the chain back used. The running transmit rings
 * are taken in turn, one frame each, so a busy ring does not starve another; a ring found empty
 * after kicks were asked for is passed over until its kick. Receive: {@link #send} puts the frame
 * behind its virtio-net header ({@link VirtioNetHeader}: the checksum and the cutting left to the
 * guest's driver when it took those offloads) into a receive ring with {@link RxFrames}: its flow's
 * ring among those running and enabled ({@link RxRings}), ring 0 for a frame without a flow;
 * frames finding no buffer there wait in that ring's backlog ({@link RxBacklog}) for the driver's
 * kick saying it added buffers, and are dropped (the stack counts them) only when it is full, as
 * for a full tap queue. The used elements of every ring are published at the flush, and the guest
 * interrupted (the ring's call descriptor written) once per receive ring then if its driver asks;
 * for the transmit rings that interrupt waits {@link #TRANSMIT_INTERRUPT_DELAY_NANOS} (a timer
 * descriptor in the link's poller), and goes only if the driver still asks for it then.
 *
 * <p>One front-end at a time: while one is served the listener is not watched, and the next
 * connection (QEMU reconnecting, the next VM) waits in its backlog until the current one ends.
 * As {@link StreamLink}, the loop polls one descriptor, an epoll instance of this link's own
 * holding the listener, the connection and the kick descriptors.
 */
public final class VhostUserLink implements Link {
    /** Largest frame either way: an Ethernet header and a 64 KiB IP datagram. */
    static final int MAX_FRAME = 14 + 65535;
    private static final int TAG_LISTENER = 1, TAG_SESSION = 2, TAG_TIMER = 3, TAG_REST = 4, TAG_KICK = 16;
    /**
     * How long the guest's interrupt for the frames it transmitted waits, once its transmit ring
     * is busy ({@link VhostSession#BUSY_RUN_FRAMES}; see {@link #flush}). Linux's virtio-net driver
     * takes its used transmit buffers back itself before each frame it sends, and then moves its
     * used_event on; only a driver that stopped sending still needs the interrupt. Sent at each
     * flush, it cost a TCG guest uploading at MTU 1500 one interrupt per 1.5 frames (13,000–29,000
     * per 100 MiB); deferred 100 µs, 2,000–3,000 (docs/benchmarks.md, "Interrupts for transmitted
     * frames"). Short, and only in a busy run: a guest's TCP whose small-queue limit is reached (a
     * few frames, early in a connection) waits for the interrupt; deferred 500 µs from a ring's first
     * frame, a fresh VM's first 20 MiB went slower in most runs.
     */
    static final long TRANSMIT_INTERRUPT_DELAY_NANOS = 100_000L;
    private static final int MAX_ROUNDS = 64;

    private final Epoll poller = new Epoll(3 + VhostSession.RINGS);
    /** Fires when the deferred transmit interrupts are due. */
    private final TimerFd timer = new TimerFd();
    private final int listener;
    /** accept4 on the listener: the connection's descriptor or -errno (a test's own in tests). */
    private final IntUnaryOperator accept;
    /** The listener's rest while a front-end cannot be taken for want of descriptors; null without a listener. */
    private final ListenerRest rest;
    private final UnixSocketFile file;
    private VhostSession session;
    /**
     * The link completes TCP checksums and cuts large TCP frames: the guest's driver does, when it
     * took the offloads offered ({@link VhostSession#OFFER}), and {@link SoftOffload} here when not.
     * It spreads flows over the receive rings (the stack hashes each frame's flow): whether the
     * front-end will use more than one pair is not known when the stack is built.
     */
    static final LinkCapabilities CAPABILITIES = new LinkCapabilities(false, true, false, true);

    /** The virtio-net header of the frame toward the guest being put (num_buffers is filled in the ring). */
    private final MemorySegment header = Arena.ofAuto().allocate(RxFrames.HEADER, 8);
    /** The virtio-net header of the frame from the guest last read: whether its checksum is left to us. */
    private final MemorySegment txHeader = Arena.ofAuto().allocate(RxFrames.HEADER, 8);
    /** A guest's UDP frame left to be cut (HOST_USO), given out a datagram at a time. */
    private final UsoCut uso = new UsoCut(MAX_FRAME);
    /** Checksums and cuts for a guest whose driver did not take the offloads. */
    private final SoftOffload soft = new SoftOffload(MAX_FRAME);
    /** Which receive ring a frame toward the guest goes to, and the frames waiting for each ring's buffers. */
    private final RxRings rings;
    /** The clock the flows and the transmit rings' runs are timed by (System.nanoTime but in tests). */
    private final LongSupplier clock;
    /** The pair whose transmit ring is read first next time: the rings are taken in turn. */
    private int nextTransmit;
    /** Chains the guest's driver got wrong, each dropped (it is pushed back used, empty). */
    private long badChains;

    /** Frames read from the transmit rings so far. */
    private long chains;

    /** name: the listener's in messages ("the vhost-user socket PATH"), unused without one. */
    private VhostUserLink(int listener, String name, UnixSocketFile file, LongSupplier clock, IntUnaryOperator accept) {
        this.listener = listener;
        this.accept = accept;
        this.file = file;
        this.clock = clock;
        this.rings = new RxRings(VhostSession.MAX_QUEUE_PAIRS, clock);
        if (listener >= 0) poller.add(listener, Epoll.IN, TAG_LISTENER);
        this.rest = listener < 0 ? null : new ListenerRest(poller, listener, TAG_LISTENER, TAG_REST, name);
        poller.add(timer.fd(), Epoll.IN, TAG_TIMER);
    }

    /**
     * Listens on a unix stream socket at path (replacing only a stale socket file there: see
     * {@link UnixSocketFile}) for vhost-user front-ends. Throws IllegalArgumentException when that
     * fails, naming the path as role ("the --vhost-user path").
     */
    public static VhostUserLink listenUnix(String path, String role) {
        return listenUnix(path, role, System::nanoTime);
    }

    /** As {@link #listenUnix(String, String)}, timing by clock (a test's). */
    static VhostUserLink listenUnix(String path, String role, LongSupplier clock) {
        return listenUnix(path, role, clock, fd -> Sockets.accept4(fd, null));
    }

    /** As {@link #listenUnix(String, String, LongSupplier)}, taking front-ends with accept (a test's, to make it fail). */
    static VhostUserLink listenUnix(String path, String role, LongSupplier clock, IntUnaryOperator accept) {
        UnixListener l = UnixListener.listen(path, role, false, 4);
        return new VhostUserLink(l.fd(), "the vhost-user socket " + path, l.file(), clock, accept);
    }

    /**
     * Serves the front-end on one connected unix stream socket (one end of a socket pair: the
     * warm-up's own front-end); the link ends with it, there is no listener to go back to.
     */
    public static VhostUserLink connected(int fd) {
        Libc.setNonBlocking(fd);
        VhostUserLink link = new VhostUserLink(-1, null, null, System::nanoTime, null);
        link.attach(fd);
        return link;
    }

    /** Frames the guest transmitted that were read so far. */
    public long chains() {
        return chains;
    }

    /** Whether a front-end is connected now. */
    public boolean connected() {
        return session != null;
    }

    /** Chains refused so far (a descriptor outside memory, a loop, ...): each cost its frame only. */
    public long badChains() {
        return badChains;
    }

    @Override
    public int fd(int queue) {
        return poller.fd();
    }

    /** TCP frames of up to 64 KiB with partial checksums, whatever the front-end negotiates (see {@link #CAPABILITIES}). */
    @Override
    public LinkCapabilities capabilities() {
        return CAPABILITIES;
    }

    /** The guest's driver left the checksum of the frame last received to the device (CSUM), or vouched for it. */
    @Override
    public boolean checksumTrusted() {
        return VirtioNetHeader.checksumTrusted(txHeader);
    }

    /**
     * The next frame from the guest; between frames, what the poller reports (a connection, a
     * message, a kick) is handled first. A bounded number of rounds: an event that handling cannot
     * clear (an accept failing for want of descriptors) must not hold the loop here; the loop's
     * poll reports the link again.
     */
    @Override
    public int receive(int queue, MemorySegment buffer) {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            int n = transmitted(buffer);
            if (n > 0) return n;
            int ready = poller.wait(0);
            if (ready <= 0) return 0;
            for (int i = 0; i < ready; i++) event(poller.readyTag(i));
        }
        return 0;
    }

    private void event(int tag) {
        if (tag == TAG_LISTENER) {
            accept();
        } else if (tag == TAG_REST) {
            rest.wake();
        } else if (tag == TAG_TIMER) {
            if (timer.drain() && session != null) session.notifyDeferred();
        } else if (session != null) {
            if (tag == TAG_SESSION) {
                if (!session.readable()) ended();
            } else {
                int ring = tag - TAG_KICK;
                session.drainKick(ring);
                if (ring % 2 == 0) drain(session, ring / 2); // buffers came for the frames waiting
            }
        }
    }

    private void accept() {
        int fd = accept.applyAsInt(listener);
        if (fd < 0) {
            rest.failed(-fd); // (for want of descriptors the listener rests: the loop does not spin)
            return;
        }
        attach(fd);
        poller.remove(listener); // the next front-end waits for this one to end
        Log.debug(() -> "vhost-user front-end connected");
    }

    private void attach(int fd) {
        session = new VhostSession(fd, poller, TAG_KICK);
        poller.add(fd, Epoll.IN, TAG_SESSION);
    }

    /** The session ended (it said why): the listener is watched again for the next front-end. */
    private void ended() {
        session = null;
        rings.clear();
        uso.clear();
        if (listener >= 0 && !rest.resting()) poller.add(listener, Epoll.IN, TAG_LISTENER);
    }

    /**
     * The next frame the guest transmitted, copied into buffer: its length, or 0 when no running
     * transmit ring has one. The rings are taken in turn from where the last frame came from.
     */
    private int transmitted(MemorySegment buffer) {
        if (uso.pending()) return uso.next(buffer); // (txHeader still the frame's: its pieces' checksums are filled)
        for (int i = 0; i < VhostSession.MAX_QUEUE_PAIRS; i++) {
            VhostSession s = session;
            if (s == null) return 0;
            int pair = nextTransmit;
            nextTransmit = pair + 1 == VhostSession.MAX_QUEUE_PAIRS ? 0 : pair + 1;
            int n = transmitted(s, 2 * pair + 1, buffer);
            if (n > 0) return n;
        }
        return 0;
    }

    /**
     * The next frame on transmit ring ring, copied into buffer: its length, or 0 when the ring is
     * empty (kicks then asked for again, and the ring idle until one comes) or not running. A chain
     * too short for the header or with a frame larger than buffer is returned to the guest and dropped.
     */
    private int transmitted(VhostSession s, int ring, MemorySegment buffer) {
        Virtqueue tx = s.queue(ring);
        if (tx == null || s.idle(ring)) return 0;
        while (true) {
            Chain c;
            try {
                c = tx.pop();
            } catch (VirtioException e) {
                if (!refused(s, ring, e)) return 0;
                continue;
            }
            if (c == null) {
                if (!tx.allowKicks()) continue; // chains came while kicks were off: read them first
                s.markIdle(ring);
                return 0;
            }
            tx.suppressKicks(); // the ring is read until empty anyway
            long length = c.readableBytes() - RxFrames.HEADER;
            int n = 0;
            if (length > 0 && length <= buffer.byteSize()) {
                c.read(0, txHeader, 0, RxFrames.HEADER);
                n = (int) c.read(RxFrames.HEADER, buffer, 0, length);
            }
            tx.push(c.head(), 0);
            s.pushed(ring);
            if (n > 0 && VirtioNetHeader.gsoType(txHeader) == VirtioNetHeader.GSO_UDP_L4) {
                n = uso.take(buffer, n, VirtioNetHeader.checksumStart(txHeader), VirtioNetHeader.gsoSize(txHeader), buffer);
            }
            if (n > 0) {
                chains++;
                s.transmitted(ring, clock.getAsLong());
                return n;
            }
            badChains++;
        }
    }

    /**
     * A chain refused by ring's queue: counted and passed over (it was pushed back used), or, for a
     * fault that breaks the queue, the connection ended. True when the queue goes on.
     */
    private boolean refused(VhostSession s, int ring, VirtioException e) {
        s.pushed(ring);
        if (e.fault().fatal()) {
            s.broken(ring, e.getMessage());
            ended();
            return false;
        }
        badChains++;
        Log.debug(() -> "vhost-user ring " + ring + ": " + e.getMessage());
        return true;
    }

    /** Puts a whole frame, its checksums filled, behind a zeroed virtio-net header into receive ring 0: as {@link #put}. */
    @Override
    public boolean send(MemorySegment frame, int length) {
        VirtioNetHeader.clear(header);
        return put(0, frame, length);
    }

    /**
     * Puts the frame f describes into its flow's receive ring: behind a virtio-net header saying
     * what the guest's driver is left to do, when it took that offload, its payload copied straight
     * from where it waits (a host socket's peeked bytes are copied once, into the guest's buffers);
     * else with the payload first copied behind its headers (the frame buffer has room), the checksum
     * completed, or the frame cut into segments, here.
     */
    @Override
    public boolean send(TxFrame f) {
        VhostSession s = session;
        int length = f.length();
        if (s == null) {
            rings.clear();
            return false;
        }
        if (length > MAX_FRAME) return false;
        int pair = rings.pairOf(s, f.flowKey());
        MemorySegment frame = f.frame();
        long features = s.features();
        boolean csum = Features.has(features, Features.NET_GUEST_CSUM);
        TxFrame.Segmentation cut = f.segmentation();
        boolean guestCuts = csum && (cut == TxFrame.Segmentation.NONE
                || cut == TxFrame.Segmentation.TCP4 && Features.has(features, Features.NET_GUEST_TSO4)
                || cut == TxFrame.Segmentation.TCP6 && Features.has(features, Features.NET_GUEST_TSO6));
        if (guestCuts) {
            VirtioNetHeader.fill(header, f);
            return put(pair, frame, f.frameLength(), f.payload(), f.payloadOffset(), f.payloadLength());
        }
        if (f.payloadLength() > 0) MemorySegment.copy(f.payload(), f.payloadOffset(), frame, f.frameLength(), f.payloadLength());
        VirtioNetHeader.clear(header);
        if (cut == TxFrame.Segmentation.NONE) {
            if (f.partialChecksum()) SoftOffload.completeChecksum(frame, length, f.checksumStart(), f.checksumOffset());
            return put(pair, frame, length);
        }
        boolean all = true;
        for (int i = 0, n = SoftOffload.pieces(f, length); i < n; i++) all &= put(pair, soft.piece(), soft.cut(frame, length, f, i));
        return all;
    }

    /**
     * Puts the frame into pair's receive ring behind {@link #header}, or, when the ring has no free
     * buffer now, into its backlog (behind frames waiting there already): false (the stack counts
     * a drop) when no front-end is connected, the ring does not run, or the backlog is full.
     */
    private boolean put(int pair, MemorySegment frame, int length) {
        return put(pair, frame, length, frame, 0, 0);
    }

    /** As {@link #put(int, MemorySegment, int)}, the frame its head's first headLength bytes, then tailLength bytes of tail from tailOffset (copied once, into the ring). */
    private boolean put(int pair, MemorySegment head, int headLength, MemorySegment tail, long tailOffset, int tailLength) {
        int length = headLength + tailLength;
        VhostSession s = session;
        if (s == null) {
            rings.clear();
            return false;
        }
        if (length > MAX_FRAME) return false;
        try {
            return rings.put(s, pair, header, head, headLength, tail, tailOffset, tailLength);
        } catch (VirtioException e) {
            refused(s, 2 * pair, e);
            return false;
        }
    }

    /** Puts the frames waiting for pair's receive ring into it ({@link RxRings#drain}): false when the session ended. */
    private boolean drain(VhostSession s, int pair) {
        try {
            rings.drain(s, pair);
            return true;
        } catch (VirtioException e) {
            return refused(s, 2 * pair, e);
        }
    }

    /**
     * Publishes the used elements of every ring and interrupts the guest once per receive ring, if
     * its driver asks; the transmit rings' interrupts wait for the timer (see {@link #TRANSMIT_INTERRUPT_DELAY_NANOS}).
     */
    @Override
    public void flush() {
        // (buffers may have come without a kick: the rings with frames waiting are looked at once an iteration anyway)
        for (int pair = 0; pair < VhostSession.MAX_QUEUE_PAIRS && session != null; pair++) {
            if (rings.waiting(pair)) drain(session, pair);
        }
        if (session != null && session.flush(true) && !timer.armed()) timer.arm(TRANSMIT_INTERRUPT_DELAY_NANOS);
    }

    @Override
    public void close() {
        if (session != null) session.close();
        session = null;
        if (listener >= 0) Libc.close(listener);
        if (rest != null) rest.close();
        poller.close();
        timer.close();
        if (file != null) file.release();
    }
}
