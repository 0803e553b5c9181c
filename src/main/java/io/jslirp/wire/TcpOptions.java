package io.jslirp.wire;

/** The options of one TCP segment, parsed by {@link Tcp#parseOptions}; reused across segments. */
public final class TcpOptions {
    /** Maximum segment size, or -1 when absent. */
    public int mss;
    /** Window-scale shift (capped at 14), or -1 when absent. */
    public int windowScale;
    public boolean sackPermitted;
    public boolean hasTimestamp;
    public int tsVal;
    public int tsEcr;
    /** SACK blocks (RFC 2018): [sackEdges[2i], sackEdges[2i+1]) for i below sackBlocks. */
    public int sackBlocks;
    public final int[] sackEdges = new int[8];

    public TcpOptions() {
        clear();
    }

    public void clear() {
        mss = -1;
        windowScale = -1;
        sackPermitted = false;
        hasTimestamp = false;
        tsVal = 0;
        tsEcr = 0;
        sackBlocks = 0;
    }
}
