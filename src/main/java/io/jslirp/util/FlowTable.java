package io.jslirp.util;

/**
 * Map from a flow's 4-tuple (two IPv4 addresses, two ports) to a value, with open addressing
 * and linear probing so that a lookup on the packet path allocates nothing.
 */
public final class FlowTable<V> {
    private long[] addresses;   // (a << 32) | b
    private int[] ports;        // (portA << 16) | portB
    private Object[] values;    // null = empty slot
    private int size;

    public FlowTable(int initialCapacity) {
        int cap = Integer.highestOneBit(Math.max(16, initialCapacity) * 2 - 1);
        allocate(cap);
    }

    private void allocate(int cap) {
        addresses = new long[cap];
        ports = new int[cap];
        values = new Object[cap];
    }

    public int size() {
        return size;
    }

    private static int hash(long addr, int port) {
        long h = addr * 0x9E3779B97F4A7C15L ^ (port * 0xC2B2AE3D27D4EB4FL);
        return (int) (h ^ (h >>> 29));
    }

    private int slot(long addr, int port) {
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

    private static int port(int pa, int pb) {
        return (pa << 16) | (pb & 0xffff);
    }

    @SuppressWarnings("unchecked")
    public V get(int addrA, int portA, int addrB, int portB) {
        return (V) values[slot(addr(addrA, addrB), port(portA, portB))];
    }

    public void put(int addrA, int portA, int addrB, int portB, V value) {
        if ((size + 1) * 2 > values.length) grow();
        long a = addr(addrA, addrB);
        int p = port(portA, portB);
        int i = slot(a, p);
        if (values[i] == null) size++;
        addresses[i] = a;
        ports[i] = p;
        values[i] = value;
    }

    public void remove(int addrA, int portA, int addrB, int portB) {
        long a = addr(addrA, addrB);
        int p = port(portA, portB);
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
        int[] op = ports;
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
