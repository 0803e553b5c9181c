package io.jslirp.virtio;

import java.lang.foreign.MemorySegment;

/**
 * The guest's memory as the device sees it: a {@link RegionTable} and, for each region, a segment
 * of exactly its size (the mapping of the region's file from its offset). Buffers are named by
 * region and offset rather than by slices, so the packet path makes no segment per buffer.
 */
public final class GuestMemory {
    private final RegionTable table;
    private final MemorySegment[] segments;

    public GuestMemory(RegionTable table, MemorySegment... segments) {
        if (segments.length != table.count()) throw new IllegalArgumentException(table.count() + " regions, " + segments.length + " segments");
        for (int i = 0; i < segments.length; i++) {
            if (segments[i].byteSize() != table.region(i).size())
                throw new IllegalArgumentException("segment " + i + " is " + segments[i].byteSize() + " bytes, region " + table.region(i).size());
        }
        this.table = table;
        this.segments = segments.clone();
    }

    public RegionTable table() {
        return table;
    }

    /** The whole of region i. */
    public MemorySegment segment(int region) {
        return segments[region];
    }

    /**
     * The bytes [gpa, gpa + len) as one segment, or null when they are not all inside one region.
     * Allocates a slice: for what is set up once (rings, indirect tables are read in place through
     * {@link #segment} instead).
     */
    public MemorySegment slice(long gpa, long len) {
        int r = table.findWhole(gpa, len);
        return r < 0 ? null : segments[r].asSlice(gpa - table.region(r).guestAddress(), len);
    }
}
