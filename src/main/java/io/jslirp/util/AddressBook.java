package io.jslirp.util;

/**
 * The one representation of addresses above the wire: each address in use, IPv4 or IPv6, has a
 * small int handle, so flow tables, the TCP connection, the NAT and the policy carry both
 * versions alike. An IPv4 address is held as its IPv4-mapped form, ::ffff:a.b.c.d. Handles are
 * counted references: {@link #acquire} finds or adds an address, {@link #release} frees it with
 * its last reference. Lookups allocate nothing; arrays grow only with the number of addresses in use.
 */
public final class AddressBook {
    /** Not a handle: no address. */
    public static final int NONE = 0;
    /** The high 32 bits of the low half of an IPv4-mapped address (::ffff:a.b.c.d). */
    private static final long V4_MAPPED = 0xffffL << 32;

    private long[] his = new long[16], los = new long[16];
    private int[] refs = new int[16];
    /**
     * Handles free for use, a stack, never empty while fewer addresses are in use than it was made
     * with: it starts with the first handles (1 on top), and a handle never used yet is made only
     * when all are taken (from nextFresh on). So taking a handle goes one way from a fresh book's
     * first address on, as in one that has freed some: {@code jslirp qemu} compiles its data path on its
     * warm-up's book, whose handles had been freed, and the branch for a book with none free was a
     * trap that the VM's first connection hit in C2's code (Stack.receive, TcpNat.open).
     */
    private int[] free = new int[16];
    private int freeCount;
    private int nextFresh = his.length;
    /** Open addressing, linear probing: slot to handle, NONE when empty. */
    private int[] index = new int[32];
    private int size;

    public AddressBook() {
        for (int h = nextFresh - 1; h > NONE; h--) free[freeCount++] = h;
    }

    public int size() {
        return size;
    }

    public long hi(int handle) {
        return his[handle];
    }

    public long lo(int handle) {
        return los[handle];
    }

    /** Whether handle is an IPv4 address. */
    public boolean isIpv4(int handle) {
        return his[handle] == 0 && (los[handle] & -1L << 32) == V4_MAPPED;
    }

    /** The IPv4 address (host order) of an IPv4 handle. */
    public int ipv4(int handle) {
        return (int) los[handle];
    }

    /** The handle of the IPv4 address (host order) with one more reference, added when it was not in use. */
    public int acquire4(int address) {
        return acquire(0, V4_MAPPED | (address & 0xffffffffL));
    }

    /** The address as text: dotted IPv4, or IPv6 in brackets (as host:port notation writes it). */
    public String format(int handle) {
        return format(his[handle], los[handle]);
    }

    /** hi:lo as text: dotted IPv4 for an IPv4-mapped address, else IPv6 in brackets. */
    public static String format(long hi, long lo) {
        return hi == 0 && (lo & -1L << 32) == V4_MAPPED ? io.jslirp.wire.Ipv4.format((int) lo) : "[" + io.jslirp.wire.Ipv6.format(hi, lo) + "]";
    }

    /** The handle of hi:lo with one more reference, added when it was not in use. */
    public int acquire(long hi, long lo) {
        int slot = slot(hi, lo);
        int h = index[slot];
        if (h != NONE) {
            refs[h]++;
            return h;
        }
        h = freeCount > 0 ? free[--freeCount] : newHandle();
        his[h] = hi;
        los[h] = lo;
        refs[h] = 1;
        if ((size + 1) * 2 > index.length) {
            growIndex();
            slot = slot(hi, lo);
        }
        index[slot] = h;
        size++;
        return h;
    }

    /** One more reference to a handle in use. */
    public void retain(int handle) {
        refs[handle]++;
    }

    /** Drops one reference; the last frees the handle (it may then name another address). */
    public void release(int handle) {
        if (--refs[handle] > 0) return;
        removeFromIndex(slot(his[handle], los[handle]));
        if (freeCount == free.length) free = java.util.Arrays.copyOf(free, free.length * 2);
        free[freeCount++] = handle;
        size--;
    }

    private int newHandle() {
        if (nextFresh == his.length) {
            int n = his.length * 2;
            his = java.util.Arrays.copyOf(his, n);
            los = java.util.Arrays.copyOf(los, n);
            refs = java.util.Arrays.copyOf(refs, n);
        }
        return nextFresh++;
    }

    private static int hash(long hi, long lo) {
        long h = (hi * 0x9E3779B97F4A7C15L) ^ (lo * 0xC2B2AE3D27D4EB4FL);
        return (int) (h ^ (h >>> 31));
    }

    private int slot(long hi, long lo) {
        int mask = index.length - 1;
        int i = hash(hi, lo) & mask;
        while (index[i] != NONE && (his[index[i]] != hi || los[index[i]] != lo)) i = (i + 1) & mask;
        return i;
    }

    /** Backward-shift deletion keeps every remaining address reachable from its home slot. */
    private void removeFromIndex(int i) {
        int mask = index.length - 1;
        index[i] = NONE;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            int h = index[j];
            if (h == NONE) return;
            int home = hash(his[h], los[h]) & mask;
            boolean movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                index[i] = h;
                index[j] = NONE;
                i = j;
            }
        }
    }

    private void growIndex() {
        int[] old = index;
        index = new int[old.length * 2];
        for (int h : old) {
            if (h != NONE) index[slot(his[h], los[h])] = h;
        }
    }
}
