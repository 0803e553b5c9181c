package io.jslirp.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The driver's side of a split virtqueue, written by hand from the layout in the virtio 1.x
 * specification, over a guest memory made in the test: two adjacent regions at made-up guest
 * addresses (so a buffer can cross from one into the other) whose user addresses are elsewhere.
 * The rings lie in the first region, buffers are taken from the second.
 */
final class Driver implements AutoCloseable {
    static final long GPA0 = 0x4000_0000L, GPA1 = GPA0 + 0x10_0000, REGION = 0x10_0000;
    static final long UVA0 = 0x7f12_0000_0000L, UVA1 = 0x7f34_0000_0000L;
    static final long DESC = GPA0 + 0x1000, AVAIL = GPA0 + 0x8_0000, USED = GPA0 + 0xA_0000;

    final Arena arena = Arena.ofConfined();
    final GuestMemory memory;
    final int size;
    private final int start;
    private int availIdx;
    private long nextBuffer = GPA1;

    Driver(int size) {
        this(size, 0);
    }

    /** A driver whose indices start at start (to reach the 16-bit wrap-around quickly). */
    Driver(int size, int start) {
        this.size = size;
        RegionTable table = RegionTable.of(List.of(
                new RegionTable.Region(GPA0, REGION, UVA0), new RegionTable.Region(GPA1, REGION, UVA1)));
        memory = new GuestMemory(table, arena.allocate(REGION, 4096), arena.allocate(REGION, 4096));
        this.start = availIdx = start & 0xffff;
        Le.u16(seg(AVAIL + 2), 0, availIdx);
        Le.u16(seg(USED + 2), 0, availIdx);
    }

    Virtqueue queue(long features) throws VirtioException {
        return new Virtqueue(memory, new Virtqueue.Rings(size, DESC, AVAIL, USED), start, features);
    }

    /** The byte at guest address gpa onwards, as a segment to the end of its region. */
    MemorySegment seg(long gpa) {
        int r = memory.table().find(gpa);
        return memory.segment(r).asSlice(gpa - memory.table().region(r).guestAddress());
    }

    /** A fresh buffer of len bytes in the second region, filled with fill, fill+1, ... */
    long buffer(int len, int fill) {
        long at = nextBuffer;
        nextBuffer += (len + 15) & ~15;
        for (int i = 0; i < len; i++) seg(at + i).set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) (fill + i));
        return at;
    }

    /** Sets the next buffer address (to place one across the regions' border). */
    void bufferAt(long gpa) {
        nextBuffer = gpa;
    }

    void desc(int i, long addr, int len, int flags, int next) {
        desc(seg(DESC), i, addr, len, flags, next);
    }

    static void desc(MemorySegment table, int i, long addr, int len, int flags, int next) {
        long d = 16L * i;
        Le.u64(table, d, addr);
        Le.u32(table, d + 8, len);
        Le.u16(table, d + 12, flags);
        Le.u16(table, d + 14, next);
    }

    /** Makes head available and publishes the new available index. */
    void offer(int head) {
        Le.u16(seg(AVAIL + 4 + 2L * (availIdx % size)), 0, head);
        availIdx = (availIdx + 1) & 0xffff;
        Le.u16(seg(AVAIL + 2), 0, availIdx);
    }

    /** Writes an available index directly, as a hostile driver might. */
    void availIndex(int idx) {
        Le.u16(seg(AVAIL + 2), 0, idx);
    }

    void availFlags(int flags) {
        Le.u16(seg(AVAIL), 0, flags);
    }

    void usedEvent(int idx) {
        Le.u16(seg(AVAIL + 4 + 2L * size), 0, idx);
    }

    int usedIdx() {
        return Le.u16(seg(USED + 2), 0);
    }

    int usedFlags() {
        return Le.u16(seg(USED), 0);
    }

    int availEvent() {
        return Le.u16(seg(USED + 4 + 8L * size), 0);
    }

    /** The id of used element k (k counted from 0 as the used index runs). */
    int usedId(int k) {
        return Le.u32(seg(USED + 4 + 8L * (k % size)), 0);
    }

    int usedLen(int k) {
        return Le.u32(seg(USED + 4 + 8L * (k % size) + 4), 0);
    }

    @Override
    public void close() {
        arena.close();
    }
}
