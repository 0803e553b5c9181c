package io.jslirp.link;

import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixSocketFile;
import io.jslirp.util.Log;
import io.jslirp.vhostuser.Features;
import io.jslirp.virtio.Chain;
import io.jslirp.virtio.RxFrames;
import io.jslirp.virtio.VirtioException;
import io.jslirp.virtio.Virtqueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * QEMU's vhost-user netdev (-netdev vhost-user): the guest's virtqueues read and written in its
 * own memory, shared with this process, QEMU out of the data path. A unix stream socket at a
 * path carries the control messages ({@link VhostSession}); frames never cross it.
 *
 * <p>Transmit: a kick of the transmit ring (ring 1) makes the poller readable; {@link #receive}
 * pops chains, each the 12-byte virtio-net header then the frame, copies the frame out (the
 * header kept aside for its checksum flags) and pushes the chain back used. Receive: {@link #send}
 * puts the frame behind its virtio-net header ({@link VirtioNetHeader}: the checksum and the
 * cutting left to the guest's driver when it took those offloads) into the receive ring (ring 0)
 * with {@link RxFrames}; frames finding no buffer there wait in a backlog
 * ({@link RxBacklog}) for the driver's kick saying it added buffers, and are dropped (the stack
 * counts them) only when it is full, as for a full tap queue. The used elements of both rings are published at the
 * flush, and the guest interrupted (its call descriptor written) once then if its driver asks.
 *
 * <p>One front-end at a time: while one is served the listener is not watched, and the next
 * connection (QEMU reconnecting, the next VM) waits in its backlog until the current one ends.
 * As {@link StreamLink}, the loop polls one descriptor, an epoll instance of this link's own
 * holding the listener, the connection and the kick descriptors.
 */
public final class VhostUserLink implements Link {
    /** Largest frame either way: an Ethernet header and a 64 KiB IP datagram. */
    static final int MAX_FRAME = 14 + 65535;
    private static final int TAG_LISTENER = 1, TAG_SESSION = 2, TAG_KICK = 16;
    private static final int MAX_ROUNDS = 64;

    private final Epoll poller = new Epoll(8);
    private final int listener;
    private final UnixSocketFile file;
    private VhostSession session;
    /**
     * The link completes TCP checksums and cuts large TCP frames: the guest's driver does, when it
     * took the offloads offered ({@link VhostSession#OFFER}), and {@link SoftOffload} here when not.
     */
    static final LinkCapabilities CAPABILITIES = new LinkCapabilities(false, true, false, false);

    /** The virtio-net header of the frame toward the guest being put (num_buffers is filled in the ring). */
    private final MemorySegment header = Arena.ofAuto().allocate(RxFrames.HEADER, 8);
    /** The virtio-net header of the frame from the guest last read: whether its checksum is left to us. */
    private final MemorySegment txHeader = Arena.ofAuto().allocate(RxFrames.HEADER, 8);
    /** Checksums and cuts for a guest whose driver did not take the offloads. */
    private final SoftOffload soft = new SoftOffload(MAX_FRAME);
    /** Frames toward the guest waiting for receive buffers. */
    private final RxBacklog backlog = new RxBacklog();
    /** Chains the guest's driver got wrong, each dropped (it is pushed back used, empty). */
    private long badChains;

    private VhostUserLink(int listener, UnixSocketFile file) {
        this.listener = listener;
        this.file = file;
        poller.add(listener, Epoll.IN, TAG_LISTENER);
    }

    /**
     * Listens on a unix stream socket at path (replacing only a stale socket file there: see
     * {@link UnixSocketFile}) for vhost-user front-ends. Throws IllegalArgumentException when that
     * fails, naming the path as role ("the --vhost-user path").
     */
    public static VhostUserLink listenUnix(String path, String role) {
        UnixListener l = UnixListener.listen(path, role);
        return new VhostUserLink(l.fd(), l.file());
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
        } else if (session != null) {
            if (tag == TAG_SESSION) {
                if (!session.readable()) ended();
            } else {
                session.drainKick(tag - TAG_KICK);
                if (tag == TAG_KICK) receiveKicked();
            }
        }
    }

    private void accept() {
        int fd = Sockets.accept4(listener, null);
        if (fd < 0) return;
        session = new VhostSession(fd, poller, TAG_KICK);
        poller.add(fd, Epoll.IN, TAG_SESSION);
        poller.remove(listener); // the next front-end waits for this one to end
        Log.debug(() -> "vhost-user front-end connected");
    }

    /** The session ended (it said why): the listener is watched again for the next front-end. */
    private void ended() {
        session = null;
        backlog.clear();
        poller.add(listener, Epoll.IN, TAG_LISTENER);
    }

    /**
     * The next frame the guest transmitted, copied into buffer: its length, or 0 when the ring is
     * empty (kicks then asked for again) or not running. A chain too short for the header or with
     * a frame larger than buffer is returned to the guest and dropped.
     */
    private int transmitted(MemorySegment buffer) {
        VhostSession s = session;
        Virtqueue tx = s == null ? null : s.transmit();
        if (tx == null) return 0;
        while (true) {
            Chain c;
            try {
                c = tx.pop();
            } catch (VirtioException e) {
                if (!refused(s, 1, e)) return 0;
                continue;
            }
            if (c == null) {
                if (tx.allowKicks()) return 0;
                continue; // chains came while kicks were off: read them first
            }
            tx.suppressKicks(); // the ring is read until empty anyway
            long length = c.readableBytes() - RxFrames.HEADER;
            int n = 0;
            if (length > 0 && length <= buffer.byteSize()) {
                c.read(0, txHeader, 0, RxFrames.HEADER);
                n = (int) c.read(RxFrames.HEADER, buffer, 0, length);
            }
            tx.push(c.head(), 0);
            s.pushed(1);
            if (n > 0) return n;
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

    /** Puts a whole frame, its checksums filled, behind a zeroed virtio-net header: as {@link #put}. */
    @Override
    public boolean send(MemorySegment frame, int length) {
        VirtioNetHeader.clear(header);
        return put(frame, length);
    }

    /**
     * Puts the frame f describes, its payload first copied behind its headers (the frame buffer has
     * room): behind a virtio-net header saying what the guest's driver is left to do, when it took
     * that offload; else with the checksum completed, or cut into segments, here.
     */
    @Override
    public boolean send(TxFrame f) {
        VhostSession s = session;
        int length = f.length();
        if (s == null || s.receive() == null) {
            backlog.clear();
            return false;
        }
        if (length > MAX_FRAME) return false;
        MemorySegment frame = f.frame();
        if (f.payloadLength() > 0) MemorySegment.copy(f.payload(), f.payloadOffset(), frame, f.frameLength(), f.payloadLength());
        long features = s.features();
        boolean csum = Features.has(features, Features.NET_GUEST_CSUM);
        TxFrame.Segmentation cut = f.segmentation();
        boolean guestCuts = csum && (cut == TxFrame.Segmentation.NONE
                || cut == TxFrame.Segmentation.TCP4 && Features.has(features, Features.NET_GUEST_TSO4)
                || cut == TxFrame.Segmentation.TCP6 && Features.has(features, Features.NET_GUEST_TSO6));
        if (guestCuts) {
            VirtioNetHeader.fill(header, f);
            return put(frame, length);
        }
        VirtioNetHeader.clear(header);
        if (cut == TxFrame.Segmentation.NONE) {
            if (f.partialChecksum()) SoftOffload.completeChecksum(frame, length, f.checksumStart(), f.checksumOffset());
            return put(frame, length);
        }
        boolean all = true;
        for (int i = 0, n = SoftOffload.pieces(f, length); i < n; i++) all &= put(soft.piece(), soft.cut(frame, length, f, i));
        return all;
    }

    /**
     * Puts the frame into the receive ring behind {@link #header}, or, when the ring has no free
     * buffer now, into the backlog (behind frames waiting there already): false (the stack counts
     * a drop) when no front-end is connected, the ring does not run, or the backlog is full.
     */
    private boolean put(MemorySegment frame, int length) {
        VhostSession s = session;
        RxFrames rx = s == null ? null : s.receive();
        if (rx == null) {
            backlog.clear();
            return false;
        }
        if (length > MAX_FRAME) return false;
        if (!backlog.isEmpty()) drainBacklog(s, rx);
        if (backlog.isEmpty()) {
            try {
                int chains = rx.put(header, 0, frame, 0, length);
                if (chains > 0) s.pushed(0);
                if (chains != RxFrames.NO_ROOM) return chains > 0;
            } catch (VirtioException e) {
                refused(s, 0, e);
                return false;
            }
        }
        if (!backlog.add(header, frame, length)) return false;
        drainBacklog(s, rx); // (asks for a kick when the driver adds buffers)
        return true;
    }

    /**
     * Puts the frames of the backlog into the receive ring, in order; while some still wait the
     * driver is asked to kick when it adds buffers, and once none do, not to.
     */
    private void drainBacklog(VhostSession s, RxFrames rx) {
        if (backlog.isEmpty()) return;
        Virtqueue q = s.receiveQueue();
        try {
            while (true) {
                if (backlog.drain(rx) > 0) s.pushed(0);
                if (backlog.isEmpty()) {
                    q.suppressKicks();
                    return;
                }
                if (q.kickOnNextAddition()) return;
            }
        } catch (VirtioException e) {
            refused(s, 0, e);
        }
    }

    /** The receive ring's kick: buffers came for the frames waiting. */
    private void receiveKicked() {
        VhostSession s = session;
        RxFrames rx = s == null ? null : s.receive();
        if (rx != null) drainBacklog(s, rx);
    }

    /** Publishes the used elements of both rings and interrupts the guest once, if its driver asks. */
    @Override
    public void flush() {
        receiveKicked(); // (buffers may have come without a kick: the ring is looked at once an iteration anyway)
        if (session != null) session.flush();
    }

    @Override
    public void close() {
        if (session != null) session.close();
        session = null;
        Libc.close(listener);
        poller.close();
        file.release();
    }
}
