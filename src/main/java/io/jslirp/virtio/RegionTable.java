package io.jslirp.virtio;

import java.util.List;

/**
 * Where guest memory lies: each region a range of guest-physical addresses and the same bytes'
 * address in the front-end's own address space (the user address vhost-user gives ring addresses
 * in). Pure arithmetic, no memory: the vhost-user backend checks a table before anything is
 * mapped, and {@link GuestMemory} adds a segment per region once it is.
 */
public final class RegionTable {
    /** One region: guest-physical start, length in bytes, and the front-end's user address of its start. */
    public record Region(long guestAddress, long size, long userAddress) {
        long guestEnd() {
            return guestAddress + size;
        }

        long userEnd() {
            return userAddress + size;
        }
    }

    private final Region[] regions;

    private RegionTable(Region[] regions) {
        this.regions = regions;
    }

    /** The table of these regions, or an IllegalArgumentException saying why they are not one ({@link #check}). */
    public static RegionTable of(List<Region> regions) {
        String error = check(regions);
        if (error != null) throw new IllegalArgumentException(error);
        return new RegionTable(regions.toArray(Region[]::new));
    }

    /**
     * Why these regions are not a table, or null: an empty region, one that runs past the end of
     * the (signed, 63-bit) address space in either view, or two that overlap in either view. One
     * address must mean one byte, or the device could be steered to read what the driver did not
     * mean to share.
     */
    public static String check(List<Region> regions) {
        for (int i = 0; i < regions.size(); i++) {
            Region r = regions.get(i);
            if (r.size() <= 0) return "region " + i + " is empty";
            if (r.guestAddress() < 0 || r.userAddress() < 0 || r.guestEnd() < 0 || r.userEnd() < 0)
                return "region " + i + " runs past the end of the address space";
            for (int j = 0; j < i; j++) {
                Region o = regions.get(j);
                if (r.guestAddress() < o.guestEnd() && o.guestAddress() < r.guestEnd())
                    return "regions " + j + " and " + i + " overlap in guest addresses";
                if (r.userAddress() < o.userEnd() && o.userAddress() < r.userEnd())
                    return "regions " + j + " and " + i + " overlap in user addresses";
            }
        }
        return null;
    }

    public int count() {
        return regions.length;
    }

    public Region region(int i) {
        return regions[i];
    }

    /** The region holding guest address gpa, or -1. A table has at most a few regions: a scan is the fastest lookup. */
    public int find(long gpa) {
        for (int i = 0; i < regions.length; i++) {
            Region r = regions[i];
            if (gpa >= r.guestAddress() && gpa - r.guestAddress() < r.size()) return i;
        }
        return -1;
    }

    /** The region holding all of [gpa, gpa + len) (len > 0), or -1 when the range is outside or crosses regions. */
    public int findWhole(long gpa, long len) {
        int i = find(gpa);
        if (i < 0 || len <= 0 || len > regions[i].guestEnd() - gpa) return -1;
        return i;
    }

    /** The guest address of the user range [uva, uva + len) when it lies inside one region, or -1. */
    public long userToGuest(long uva, long len) {
        for (Region r : regions) {
            if (uva >= r.userAddress() && uva - r.userAddress() < r.size())
                return len > 0 && len <= r.userEnd() - uva ? r.guestAddress() + (uva - r.userAddress()) : -1;
        }
        return -1;
    }
}
