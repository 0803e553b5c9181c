package io.jslirp.flow;

/**
 * Map from a flow's lane and 4-tuple (two address handles, two ports) to a value, with open
 * addressing and linear probing so that a lookup on the packet path allocates nothing. The lane
 * keeps protocols apart: the same addresses and ports are another flow in TCP than in UDP. The
 * table of flows indexes their guest sides with it; a forwarded socket, its clients.
 */
public final class TupleIndex<V> {
    private long[] addresses;   // (a << 32) | b
    private long[] ports;       // (lane << 32) | (portA << 16) | portB
    private Object[] values;    // null = empty slot
    private int size;

    public TupleIndex(int initialCapacity) {
        int cap = Integer.highestOneBit(Math.max(16, initialCapacity) * 2 - 1);
        allocate(cap);
    }

    private void allocate(int cap) {
        addresses = new long[cap];
        ports = new long[cap];
        values = new Object[cap];
    }

    public int size() {
        return size;
    }

    private static int hash(long addr, long port) {
        long h = addr * 0x9E3779B97F4A7C15L ^ (port * 0xC2B2AE3D27D4EB4FL);
        return (int) (h ^ (h >>> 29));
    }

    private int slot(long addr, long port) {
        int mask = values.length - 1;
        int i = hash(addr, port) & mask;
        while (values[i] != null && (addresses[i] != addr || ports[i] != port)) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private static long addr(int a, int b) {
        return ((long) a << 32) | (b & 0xffffffffL);
    }

    private static long port(int lane, int pa, int pb) {
        return ((long) lane << 32) | ((pa & 0xffffL) << 16) | (pb & 0xffff);
    }

    @SuppressWarnings("unchecked")
    public V get(int lane, int addrA, int portA, int addrB, int portB) {
        return (V) values[slot(addr(addrA, addrB), port(lane, portA, portB))];
    }

    public void put(int lane, int addrA, int portA, int addrB, int portB, V value) {
        if ((size + 1) * 2 > values.length) grow();
        long a = addr(addrA, addrB);
        long p = port(lane, portA, portB);
        int i = slot(a, p);
        if (values[i] == null) size++;
        addresses[i] = a;
        ports[i] = p;
        values[i] = value;
    }

    public void remove(int lane, int addrA, int portA, int addrB, int portB) {
        long a = addr(addrA, addrB);
        long p = port(lane, portA, portB);
        int i = slot(a, p);
        if (values[i] == null) return;
        values[i] = null;
        size--;
        // Backward-shift deletion keeps every remaining key reachable from its home slot.
        int mask = values.length - 1;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (values[j] == null) return;
            int home = hash(addresses[j], ports[j]) & mask;
            boolean movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                addresses[i] = addresses[j];
                ports[i] = ports[j];
                values[i] = values[j];
                values[j] = null;
                i = j;
            }
        }
    }

    /** Calls action for every value; the action must not modify the table. */
    @SuppressWarnings("unchecked")
    public void forEach(java.util.function.Consumer<V> action) {
        for (Object v : values) {
            if (v != null) action.accept((V) v);
        }
    }

    private void grow() {
        long[] oa = addresses;
        long[] op = ports;
        Object[] ov = values;
        allocate(ov.length * 2);
        size = 0;
        for (int i = 0; i < ov.length; i++) {
            if (ov[i] != null) {
                int s = slot(oa[i], op[i]);
                addresses[s] = oa[i];
                ports[s] = op[i];
                values[s] = ov[i];
                size++;
            }
        }
    }
}
