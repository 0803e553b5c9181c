package io.jslirp.virtio;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The device side of a split virtqueue (virtio 1.x): the driver offers descriptor chains in the
 * available ring, the device pops them, fills or reads their buffers and pushes them to the used
 * ring with the length it wrote. Everything in guest memory is the driver's and untrusted: a
 * chain is walked with bounds on every index, address and length, and refused with a
 * {@link Fault}. No allocation per chain: one {@link Chain} flyweight is refilled by each pop.
 *
 * <p>Ordering with the driver, which runs on another CPU: the available index is read before the
 * entries it covers (acquire), the used entries are written before the used index (release), and
 * the notification decisions read the driver's event index after our index is visible (full fence).
 */
public final class Virtqueue {
    /** The largest queue size the split layout allows. */
    public static final int MAX_SIZE = 32768;
    /** Feature bits of the ring itself, as the transport negotiates them. */
    public static final int F_INDIRECT_DESC = 28, F_EVENT_IDX = 29;

    /** A descriptor's flags (virtio 1.x split ring): another follows, the device writes it, it holds an indirect table. */
    public static final int DESC_NEXT = 1, DESC_WRITE = 2, DESC_INDIRECT = 4;
    static final int AVAIL_NO_INTERRUPT = 1, USED_NO_NOTIFY = 1;
    static final int DESC_SIZE = 16;
    /** The most pieces the device keeps of one chain; network chains hold a handful. */
    private static final int MAX_PIECES = 1024;

    /** Where the three parts of a queue lie in guest-physical memory, and its size. */
    public record Rings(int size, long descAddress, long availAddress, long usedAddress) {}

    private final GuestMemory memory;
    private final RegionTable table;
    private final int size;
    private final int mask;
    private final MemorySegment desc;
    private final MemorySegment avail;
    private final MemorySegment used;
    private final boolean eventIdx;
    private final boolean indirect;
    private final Chain chain;
    private int lastAvail;
    private int usedIdx;
    private int publishedUsed;
    private int signalledUsed;
    private boolean signalledValid;
    private int inFlight;
    private int seen;
    private boolean kicksAllowed = true;
    private Fault broken;

    /**
     * A queue over these rings, resuming at available index base (vhost-user's SET_VRING_BASE) and at
     * the used index the ring holds. features are the negotiated device features (only the ring's bits
     * are read).
     */
    public Virtqueue(GuestMemory memory, Rings rings, int base, long features) throws VirtioException {
        Fault f = checkSize(rings.size());
        if (f != null) throw new VirtioException(f, "queue size " + rings.size());
        this.memory = memory;
        this.table = memory.table();
        this.size = rings.size();
        this.mask = size - 1;
        this.desc = ring(rings.descAddress(), (long) DESC_SIZE * size, 16, "descriptor table");
        this.avail = ring(rings.availAddress(), 6 + 2L * size, 2, "available ring");
        this.used = ring(rings.usedAddress(), 6 + 8L * size, 4, "used ring");
        this.eventIdx = (features & (1L << F_EVENT_IDX)) != 0;
        this.indirect = (features & (1L << F_INDIRECT_DESC)) != 0;
        this.chain = new Chain(memory, Math.min(2 * size, MAX_PIECES));
        this.lastAvail = base & 0xffff;
        this.usedIdx = this.publishedUsed = Le.u16(used, 2);
    }

    /** Why size cannot be a queue size, or null. */
    public static Fault checkSize(int size) {
        return size <= 0 || size > MAX_SIZE || (size & (size - 1)) != 0 ? Fault.BAD_QUEUE_SIZE : null;
    }

    private MemorySegment ring(long gpa, long len, int align, String what) throws VirtioException {
        MemorySegment s = (gpa & (align - 1)) == 0 ? memory.slice(gpa, len) : null;
        if (s == null) throw new VirtioException(Fault.RING_OUTSIDE_MEMORY, what + " at 0x" + Long.toHexString(gpa) + " (" + len + " bytes)");
        return s;
    }

    public int size() {
        return size;
    }

    /** The next available index the device will read: what GET_VRING_BASE reports. */
    public int lastAvail() {
        return lastAvail;
    }

    /** The used index including pushes not yet published. */
    public int usedIndex() {
        return usedIdx;
    }

    /** Chains popped and neither pushed nor rewound. */
    public int inFlight() {
        return inFlight;
    }

    /** The fatal fault that broke this queue, or null. */
    public Fault broken() {
        return broken;
    }

    /** Chains the driver has made available and the device not yet popped (raw: may exceed the size on a hostile driver). */
    public int pending() {
        return (Le.u16(avail, 2) - lastAvail) & 0xffff;
    }

    /**
     * The next available chain, or null when there is none. A refused chain has already been
     * pushed back as used with length 0 (unless its head itself was not an index), so the caller
     * only counts the exception and goes on; a fatal one breaks the queue, every later pop repeats it.
     */
    public Chain pop() throws VirtioException {
        if (broken != null) throw new VirtioException(broken, "queue broken earlier");
        int pending = pending();
        if (pending == 0) return null;
        if (pending > size) {
            broken = Fault.AVAIL_INDEX_JUMP;
            throw new VirtioException(broken, "available index " + Le.u16(avail, 2) + ", last seen " + lastAvail);
        }
        VarHandle.acquireFence();
        int head = Le.u16(avail, 4 + 2L * (lastAvail & mask));
        lastAvail = (lastAvail + 1) & 0xffff;
        if (eventIdx && kicksAllowed) Le.u16(used, 4 + 8L * size, lastAvail);
        if (head >= size) throw new VirtioException(Fault.BAD_DESCRIPTOR_INDEX, "head " + head + " of a queue of " + size);
        inFlight++;
        chain.reset(head);
        seen = 0;
        Fault f = walk(head);
        if (f != null) {
            push(head, 0);
            throw new VirtioException(f, "chain at head " + head);
        }
        return chain;
    }

    private Fault walk(int head) {
        int idx = head;
        while (true) {
            if (++seen > size) return Fault.DESCRIPTOR_LOOP;
            long d = (long) DESC_SIZE * idx;
            int flags = Le.u16(desc, d + 12);
            long addr = Le.u64(desc, d), len = Le.u32(desc, d + 8) & 0xffffffffL;
            Fault f = (flags & DESC_INDIRECT) != 0 ? walkIndirect(addr, len, flags) : buffer(addr, len, flags);
            if (f != null) return f;
            if ((flags & DESC_NEXT) == 0) return null;
            idx = Le.u16(desc, d + 14);
            if (idx >= size) return Fault.BAD_DESCRIPTOR_INDEX;
        }
    }

    /** The chain in an indirect table: bounded by the table's length and, with the direct part, by the queue size. */
    private Fault walkIndirect(long addr, long len, int flags) {
        if (!indirect || (flags & DESC_NEXT) != 0 || len == 0 || len % DESC_SIZE != 0) return Fault.BAD_INDIRECT;
        int r = table.findWhole(addr, len);
        if (r < 0) return Fault.INDIRECT_OUTSIDE_MEMORY;
        MemorySegment seg = memory.segment(r);
        long base = addr - table.region(r).guestAddress(), n = len / DESC_SIZE;
        long idx = 0, inTable = 0;
        while (true) {
            if (++inTable > n || ++seen > size) return Fault.DESCRIPTOR_LOOP;
            long d = base + DESC_SIZE * idx;
            int f = Le.u16(seg, d + 12);
            if ((f & DESC_INDIRECT) != 0) return Fault.NESTED_INDIRECT;
            Fault fault = buffer(Le.u64(seg, d), Le.u32(seg, d + 8) & 0xffffffffL, f);
            if (fault != null) return fault;
            if ((f & DESC_NEXT) == 0) return null;
            idx = Le.u16(seg, d + 14);
            if (idx >= n) return Fault.BAD_DESCRIPTOR_INDEX;
        }
    }

    /** Adds [addr, addr + len) to the chain, one piece per region it lies in. */
    private Fault buffer(long addr, long len, int flags) {
        boolean writable = (flags & DESC_WRITE) != 0;
        if (!writable && chain.hasWritable()) return Fault.READABLE_AFTER_WRITABLE;
        while (len > 0) {
            int r = table.find(addr);
            if (r < 0) return Fault.DESCRIPTOR_OUTSIDE_MEMORY;
            RegionTable.Region region = table.region(r);
            long off = addr - region.guestAddress();
            long take = Math.min(len, region.size() - off);
            if (!chain.add(r, off, (int) take, writable)) return Fault.CHAIN_TOO_LONG;
            addr += take;
            len -= take;
        }
        return null;
    }

    /** Gives back the last n popped chains unused, as if never popped (a frame that did not fit). */
    public void rewind(int n) {
        if (n < 0 || n > inFlight) throw new IllegalStateException("rewinding " + n + " of " + inFlight + " in flight");
        lastAvail = (lastAvail - n) & 0xffff;
        inFlight -= n;
    }

    /** Returns a popped chain to the driver with len bytes written; the driver sees it after {@link #publish}. */
    public void push(int head, int len) {
        if (head < 0 || head >= size) throw new IllegalArgumentException("head " + head);
        if (inFlight == 0) throw new IllegalStateException("push with no chain in flight");
        inFlight--;
        long e = 4 + 8L * (usedIdx & mask);
        Le.u32(used, e, head);
        Le.u32(used, e + 4, len);
        usedIdx = (usedIdx + 1) & 0xffff;
    }

    /** Makes the pushed elements visible to the driver. */
    public void publish() {
        if (publishedUsed == usedIdx) return;
        VarHandle.releaseFence();
        Le.u16(used, 2, usedIdx);
        publishedUsed = usedIdx;
    }

    /**
     * Whether the driver wants an interrupt for what was published since the last one: with
     * EVENT_IDX, when the used index crossed the driver's used_event; without, unless the driver
     * set NO_INTERRUPT. Call once per flush, after {@link #publish}; a true answer is recorded as sent.
     */
    public boolean shouldNotify() {
        VarHandle.fullFence();
        int old = signalledUsed;
        boolean valid = signalledValid;
        signalledUsed = publishedUsed;
        signalledValid = true;
        if (valid && old == publishedUsed) return false;
        if (!eventIdx) return (Le.u16(avail, 0) & AVAIL_NO_INTERRUPT) == 0;
        return !valid || needEvent(Le.u16(avail, 4 + 2L * size), publishedUsed, old);
    }

    /** vring_need_event: whether moving an index from old to now passed event (all modulo 2^16). */
    public static boolean needEvent(int event, int now, int old) {
        return ((now - event - 1) & 0xffff) < ((now - old) & 0xffff);
    }

    /**
     * Asks the driver to kick on its next addition, even with chains pending that the device
     * cannot use yet (a frame that needs more receive buffers than there are): with EVENT_IDX the
     * event is the driver's available index, not the device's. True when that index did not move
     * meanwhile (safe to wait for the kick), false when the driver added chains (try them first).
     */
    public boolean kickOnNextAddition() {
        kicksAllowed = true;
        int idx = Le.u16(avail, 2);
        if (eventIdx) Le.u16(used, 4 + 8L * size, idx);
        else Le.u16(used, 0, 0);
        VarHandle.fullFence();
        return Le.u16(avail, 2) == idx;
    }

    /** Asks the driver not to kick while the device is polling the ring anyway. */
    public void suppressKicks() {
        kicksAllowed = false;
        if (!eventIdx) Le.u16(used, 0, USED_NO_NOTIFY);
    }

    /**
     * Asks the driver to kick on its next addition; true when the ring is still empty afterwards
     * (safe to wait for the kick), false when chains arrived meanwhile (pop them first).
     */
    public boolean allowKicks() {
        kicksAllowed = true;
        if (eventIdx) Le.u16(used, 4 + 8L * size, lastAvail);
        else Le.u16(used, 0, 0);
        VarHandle.fullFence();
        return pending() == 0;
    }
}
