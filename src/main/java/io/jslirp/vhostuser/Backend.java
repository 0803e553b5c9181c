package io.jslirp.vhostuser;

import static io.jslirp.vhostuser.Features.bit;
import static io.jslirp.vhostuser.Features.has;

import io.jslirp.virtio.GuestMemory;
import io.jslirp.virtio.RegionTable;
import io.jslirp.virtio.VirtioException;
import io.jslirp.virtio.Virtqueue;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The vhost-user backend of one connection as a state machine: it takes decoded messages (and
 * the descriptors that came with them) and returns what is to be done (an {@link Outcome}: actions
 * such as memory to map or a ring to start, and a reply), never touching a socket, a mapping or an
 * eventfd itself. It checks every message against what was offered and what came before; a
 * message it will not take makes an outcome with an error that releases everything, and the
 * caller closes the connection.
 *
 * <p>A ring starts (a {@link Action.StartRing}) once memory is mapped and its size, addresses and
 * kick are known, and, when the protocol features are negotiated, once it is enabled: as the
 * specification has it. GET_VRING_BASE stops it and answers where the device got to. Ring
 * addresses come as the front-end's user addresses and are turned into guest addresses by the
 * memory table, so the queues see one kind of address.
 */
public final class Backend {
    /** The protocol features this state machine implements; an offer may name only these. */
    public static final long SERVED_PROTOCOL = bit(Features.PROTOCOL_MQ) | bit(Features.PROTOCOL_REPLY_ACK);
    /** Queue pairs at most: a kick, call or err message names its ring in 8 bits. */
    public static final int MAX_QUEUE_PAIRS = 128;

    /** What the backend offers: device features (vhost-user's own bit is added), protocol features, queue pairs. */
    public record Offer(long features, long protocolFeatures, int queuePairs) {
        public Offer {
            if (queuePairs < 1 || queuePairs > MAX_QUEUE_PAIRS) throw new IllegalArgumentException(queuePairs + " queue pairs");
            if ((protocolFeatures & ~SERVED_PROTOCOL) != 0) throw new IllegalArgumentException("protocol features 0x" + Long.toHexString(protocolFeatures));
            if (!has(features, Features.VERSION_1) || has(features, Features.LOG_ALL)) throw new IllegalArgumentException("features 0x" + Long.toHexString(features));
        }
    }

    private final Offer offer;
    private final RingState[] rings;
    /** The outcome being filled: handle's, or mapped's (a second one, so the reply of the message that asked for the mapping survives). */
    private Outcome out;
    private final Outcome handled;
    private final Outcome mappedOutcome;
    private long features;
    private long protocolFeatures;
    /** The table of the last MapMemory; memory once the caller has mapped it. */
    private RegionTable table;
    private GuestMemory memory;
    private boolean[] taken = new boolean[0];

    public Backend(Offer offer, MemorySegment replyBuffer) {
        this.offer = offer;
        this.rings = new RingState[2 * offer.queuePairs()];
        for (int i = 0; i < rings.length; i++) rings[i] = new RingState();
        this.handled = this.out = new Outcome(replyBuffer);
        this.mappedOutcome = new Outcome(replyBuffer);
    }

    /** The device features the front-end acknowledged (0 before SET_FEATURES). */
    public long features() {
        return features;
    }

    public long protocolFeatures() {
        return protocolFeatures;
    }

    /** Ring i's queue while it is started, else null. */
    public Virtqueue queue(int ring) {
        return rings[ring].queue;
    }

    /** Whether ring i is being served (started and enabled). */
    public boolean running(int ring) {
        return rings[ring].running;
    }

    /** What to do for m, which came with these descriptors (the backend takes them all: see {@link Action}). */
    public Outcome handle(Message m, int[] fds) {
        out = handled;
        out.reset();
        taken = new boolean[fds.length];
        try {
            boolean replied = dispatch(m, fds);
            if (!replied && m.needsReply() && has(protocolFeatures, Features.PROTOCOL_REPLY_ACK))
                out.reply(Encoder.u64(out.replyBuffer(), m.request(), Message.FLAG_REPLY, 0));
        } catch (ProtocolException e) {
            fail(e.getMessage());
        }
        for (int i = 0; i < fds.length; i++) if (!taken[i]) out.add(new Action.CloseFd(fds[i]));
        return out;
    }

    /**
     * The caller mapped the memory of the last {@link Action.MapMemory}: rings waiting for it start.
     * A separate outcome from handle's: the reply to the message that asked for the mapping is still due.
     */
    public Outcome mapped(GuestMemory mapped) {
        out = mappedOutcome;
        out.reset();
        try {
            if (table == null || mapped.table() != table) throw new ProtocolException("mapped memory of a table not asked for");
            memory = mapped;
            for (int r = 0; r < rings.length; r++) tryStart(r);
        } catch (ProtocolException e) {
            fail(e.getMessage());
        }
        return out;
    }

    /** The connection is gone: everything it held is to be released. */
    public Outcome close() {
        out = handled;
        out.reset();
        releaseAll();
        return out;
    }

    /** Handles m; true when it wrote its own reply. */
    private boolean dispatch(Message m, int[] fds) throws ProtocolException {
        return switch (m.request()) {
            case GET_FEATURES -> reply64(m, offer.features() | bit(Features.PROTOCOL_FEATURES));
            case SET_FEATURES -> setFeatures(m.u64());
            case SET_OWNER -> false;
            case RESET_OWNER -> {
                resetRings();
                yield false;
            }
            case SET_MEM_TABLE -> setMemTable(m, fds);
            case SET_VRING_NUM -> setNum(m);
            case SET_VRING_ADDR -> setAddr(m);
            case SET_VRING_BASE -> setBase(m);
            case GET_VRING_BASE -> getBase(m);
            case SET_VRING_KICK, SET_VRING_CALL, SET_VRING_ERR -> setFd(m, fds);
            case GET_PROTOCOL_FEATURES -> reply64(m, offer.protocolFeatures());
            case SET_PROTOCOL_FEATURES -> setProtocolFeatures(m.u64());
            case GET_QUEUE_NUM -> reply64(m, offer.queuePairs());
            case SET_VRING_ENABLE -> setEnable(m);
            default -> throw new ProtocolException(m.request() + " is not served (its feature is not offered)");
        };
    }

    private boolean reply64(Message m, long v) {
        out.reply(Encoder.u64(out.replyBuffer(), m.request(), Message.FLAG_REPLY, v));
        return true;
    }

    private boolean setFeatures(long v) throws ProtocolException {
        long extra = v & ~(offer.features() | bit(Features.PROTOCOL_FEATURES));
        if (extra != 0) throw new ProtocolException("SET_FEATURES with 0x" + Long.toHexString(extra) + ", not offered");
        if (!has(v, Features.VERSION_1)) throw new ProtocolException("SET_FEATURES without VERSION_1: legacy drivers are not served");
        for (RingState s : rings)
            if (s.queue != null && v != features) throw new ProtocolException("SET_FEATURES changing features while a ring is started");
        features = v;
        for (int r = 0; r < rings.length; r++) tryStart(r); // without the protocol features, rings need no enabling
        return false;
    }

    private boolean setProtocolFeatures(long v) throws ProtocolException {
        long extra = v & ~offer.protocolFeatures();
        if (extra != 0) throw new ProtocolException("SET_PROTOCOL_FEATURES with 0x" + Long.toHexString(extra) + ", not offered");
        protocolFeatures = v;
        return false;
    }

    private boolean setMemTable(Message m, int[] fds) throws ProtocolException {
        int n = (int) m.regions();
        if (fds.length != n) throw new ProtocolException("SET_MEM_TABLE of " + n + " regions with " + fds.length + " descriptors");
        List<RegionTable.Region> regions = new ArrayList<>(n);
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            regions.add(new RegionTable.Region(m.regionGuestAddress(i), m.regionSize(i), m.regionUserAddress(i)));
            offsets[i] = m.regionMmapOffset(i);
            if (offsets[i] < 0 || offsets[i] + m.regionSize(i) < 0) throw new ProtocolException("SET_MEM_TABLE region " + i + " at offset 0x" + Long.toHexString(offsets[i]) + " runs past any file");
        }
        String wrong = RegionTable.check(regions);
        if (wrong != null) throw new ProtocolException("SET_MEM_TABLE: " + wrong);
        for (int r = 0; r < rings.length; r++) unstart(r); // the queues point into the memory about to go
        if (table != null) out.add(new Action.UnmapMemory());
        table = RegionTable.of(regions);
        memory = null;
        out.add(new Action.MapMemory(table, offsets, fds.clone()));
        java.util.Arrays.fill(taken, true);
        return false;
    }

    /** The ring a message names, checked against the queues offered. */
    private int ring(Message m, long index) throws ProtocolException {
        if (index >= rings.length) {
            throw new ProtocolException("ring " + index + ", beyond the " + rings.length + " rings of the " + offer.queuePairs() + " queue pairs offered");
        }
        return (int) index;
    }

    /** The ring a message names, refused while it is started (its layout cannot change under the queue). */
    private RingState stopped(Message m) throws ProtocolException {
        RingState s = rings[ring(m, m.ringIndex())];
        if (s.queue != null) throw new ProtocolException(m.request() + " for ring " + m.ringIndex() + " while it is started");
        return s;
    }

    private boolean setNum(Message m) throws ProtocolException {
        RingState s = stopped(m);
        long num = m.ringNum();
        if (num > Virtqueue.MAX_SIZE || Virtqueue.checkSize((int) num) != null)
            throw new ProtocolException("ring " + m.ringIndex() + " of size " + num + ", not a power of two up to " + Virtqueue.MAX_SIZE);
        s.size = (int) num;
        return false;
    }

    private boolean setAddr(Message m) throws ProtocolException {
        RingState s = stopped(m);
        if (table == null) throw new ProtocolException("SET_VRING_ADDR before SET_MEM_TABLE");
        if (m.addrFlags() != 0) throw new ProtocolException("SET_VRING_ADDR asking for logging, which is not offered");
        long[] addrs = {m.descAddress(), m.availAddress(), m.usedAddress()};
        for (long a : addrs)
            if (table.userToGuest(a, 1) < 0) throw new ProtocolException("ring " + m.ringIndex() + " at user address 0x" + Long.toHexString(a) + ", outside guest memory");
        s.descUser = addrs[0];
        s.availUser = addrs[1];
        s.usedUser = addrs[2];
        s.addressed = true;
        tryStart((int) m.ringIndex());
        return false;
    }

    private boolean setBase(Message m) throws ProtocolException {
        RingState s = stopped(m);
        if (m.ringNum() > 0xffff) throw new ProtocolException("ring " + m.ringIndex() + " base " + m.ringNum() + ", beyond 16 bits");
        s.base = (int) m.ringNum();
        return false;
    }

    private boolean getBase(Message m) throws ProtocolException {
        int r = ring(m, m.ringIndex());
        unstart(r);
        rings[r].kicked = false; // started again by the next kick
        out.reply(Encoder.state(out.replyBuffer(), Request.GET_VRING_BASE, Message.FLAG_REPLY, r, rings[r].base));
        return true;
    }

    private boolean setFd(Message m, int[] fds) throws ProtocolException {
        long v = m.u64();
        if ((v & ~(Message.RING_INDEX_MASK | Message.NO_FD)) != 0) throw new ProtocolException(m.request() + " with unknown bits 0x" + Long.toHexString(v));
        boolean none = (v & Message.NO_FD) != 0;
        if (fds.length != (none ? 0 : 1)) throw new ProtocolException(m.request() + " with " + fds.length + " descriptors" + (none ? ", saying none" : ""));
        int r = ring(m, v & Message.RING_INDEX_MASK);
        RingState s = rings[r];
        int fd = none ? -1 : fds[0], old;
        if (!none) taken[0] = true;
        switch (m.request()) {
            case SET_VRING_KICK -> {
                old = s.kickFd;
                s.kickFd = fd;
                out.add(new Action.Kick(r, fd));
                s.kicked = true;
            }
            case SET_VRING_CALL -> {
                old = s.callFd;
                s.callFd = fd;
                out.add(new Action.Call(r, fd));
            }
            default -> {
                old = s.errFd;
                s.errFd = fd;
                out.add(new Action.Err(r, fd));
            }
        }
        if (old >= 0) out.add(new Action.CloseFd(old));
        tryStart(r);
        return false;
    }

    private boolean setEnable(Message m) throws ProtocolException {
        int r = ring(m, m.ringIndex());
        if (m.ringNum() > 1) throw new ProtocolException("SET_VRING_ENABLE of ring " + r + " with " + m.ringNum() + ", not 0 or 1");
        RingState s = rings[r];
        s.enabled = m.ringNum() == 1;
        if (s.enabled) tryStart(r);
        else if (s.running) {
            s.running = false;
            out.add(new Action.StopRing(r));
        }
        return false;
    }

    /** Starts ring r if all it needs is known; the queue is built first, so a refusal changes nothing. */
    private void tryStart(int r) throws ProtocolException {
        RingState s = rings[r];
        if (memory == null || s.size == 0 || !s.addressed || !s.kicked) return;
        if (s.queue == null) s.queue = build(r, s);
        boolean enabled = s.enabled || !has(features, Features.PROTOCOL_FEATURES);
        if (enabled && !s.running) {
            s.running = true;
            out.add(new Action.StartRing(r));
        }
    }

    private Virtqueue build(int r, RingState s) throws ProtocolException {
        long desc = table.userToGuest(s.descUser, 16L * s.size);
        long avail = table.userToGuest(s.availUser, 6 + 2L * s.size);
        long used = table.userToGuest(s.usedUser, 6 + 8L * s.size);
        if (desc < 0 || avail < 0 || used < 0) throw new ProtocolException("ring " + r + " of size " + s.size + " does not fit in guest memory");
        try {
            return new Virtqueue(memory, new Virtqueue.Rings(s.size, desc, avail, used), s.base, features);
        } catch (VirtioException e) {
            throw new ProtocolException("ring " + r + ": " + e.getMessage());
        }
    }

    /** Stops ring r and forgets its queue, keeping where it got to as its base. */
    private void unstart(int r) {
        RingState s = rings[r];
        if (s.running) out.add(new Action.StopRing(r));
        if (s.queue != null) s.base = s.queue.lastAvail();
        s.running = false;
        s.queue = null;
    }

    private void fail(String why) {
        out.fail(why);
        releaseAll();
    }

    private void resetRings() {
        for (int r = 0; r < rings.length; r++) {
            unstart(r);
            RingState s = rings[r];
            for (int fd : new int[] {s.kickFd, s.callFd, s.errFd}) if (fd >= 0) out.add(new Action.CloseFd(fd));
            s.clear();
        }
        features = 0;
    }

    private void releaseAll() {
        resetRings();
        if (table != null) out.add(new Action.UnmapMemory());
        table = null;
        memory = null;
        protocolFeatures = 0;
    }
}
