package io.jslirp.tcp;

/**
 * Per-connection TCP parameters.
 *
 * @param mss             largest segment payload we send and announce (MTU - 40 for IPv4)
 * @param receiveBuffer   most guest bytes a connection holds toward the host socket (data beyond a
 *                        gap, and what the socket refused); bounds the window advertised to the guest
 * @param sendBuffer      unused since bytes toward the guest stay in the host socket until the
 *                        guest acknowledges them (its receive buffer bounds them); kept equal to receiveBuffer
 * @param initialBuffer   what the buffer toward the host starts with when it must hold bytes; it
 *                        grows as they need (see {@link TcpConnection}), and an idle flow holds none
 * @param timeWaitNanos   how long a connection closed by the host side lingers to answer a
 *                        retransmitted guest FIN
 * @param bufferBudget    most bytes all connections' buffers together may grow by beyond their
 *                        initial size; data beyond a gap takes no buffer once they hold an eighth of it
 *                        (see {@link io.jslirp.util.BufferPool})
 */
public record TcpConfig(int mss, int receiveBuffer, int sendBuffer, int initialBuffer, long timeWaitNanos, long bufferBudget) {
    public static final long DEFAULT_BUFFER_BUDGET = 32L << 20;
    public static final long INITIAL_RTO_NANOS = 1_000_000_000L;
    public static final long MIN_RTO_NANOS = 200_000_000L;
    public static final long MAX_RTO_NANOS = 60_000_000_000L;
    /** Retransmissions of one segment before the connection is given up. */
    public static final int MAX_RETRANSMISSIONS = 12;

    public static TcpConfig forMtu(int mtu) {
        return new TcpConfig(mtu - 40, 1 << 20, 1 << 20, 4 << 10, 2_000_000_000L, DEFAULT_BUFFER_BUDGET);
    }

    /**
     * With each connection's buffers growing to at most maxBuffer bytes per direction, and all of
     * them together by at most budget bytes. Throws IllegalArgumentException for values the
     * window arithmetic cannot take.
     */
    public TcpConfig withBuffers(int maxBuffer, long budget) {
        if (maxBuffer < initialBuffer || maxBuffer > 1 << 30 || Integer.bitCount(maxBuffer) != 1) {
            throw new IllegalArgumentException("the per-connection buffer must be a power of two from " + initialBuffer + " to 1 GiB");
        }
        if (budget < 0) throw new IllegalArgumentException("the buffer budget cannot be negative");
        return new TcpConfig(mss, maxBuffer, maxBuffer, initialBuffer, timeWaitNanos, budget);
    }

    /** What a connection's buffer toward the host starts with: initialBuffer, within receiveBuffer. */
    public int firstBuffer() {
        return Math.min(initialBuffer, receiveBuffer);
    }

    /** Our window-scale shift: the smallest that fits the receive buffer in 16 bits. */
    public int windowShift() {
        int shift = 0;
        while ((receiveBuffer >>> shift) > 0xffff) shift++;
        return shift;
    }
}
