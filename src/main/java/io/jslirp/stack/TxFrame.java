package io.jslirp.stack;

import io.jslirp.wire.Bytes;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

import java.lang.foreign.MemorySegment;

/**
 * One frame toward the guest as the stack hands it to the link ({@link FrameSink#send(TxFrame)}),
 * with what the stack knows of it, so that no link reads back the headers the stack has just
 * written: where the frame's bytes are (its first {@link #frameLength()} bytes in
 * {@link #frame()}, then perhaps a payload from elsewhere), whether its checksum is left to the
 * link and where, how the link is to cut it, and its flow's hash for the link's queues. One per
 * output, reused for every frame: valid during the send only.
 */
public final class TxFrame {
    /** How the link cuts the frame for the guest: not at all, into TCP segments of either version, or into UDP datagrams. */
    public enum Segmentation { NONE, TCP4, TCP6, UDP }

    private MemorySegment frame, payload;
    private int frameLength;
    private long payloadOffset;
    private int payloadLength;
    private Segmentation segmentation = Segmentation.NONE;
    private int segmentSize, headersLength, checksumStart, checksumOffset, flowKey;
    private boolean refused;

    /** The buffer whose first {@link #frameLength()} bytes are the frame's start (all of it, without a payload from elsewhere). */
    public MemorySegment frame() {
        return frame;
    }

    public int frameLength() {
        return frameLength;
    }

    /**
     * The rest of the frame, {@link #payloadLength()} bytes from {@link #payloadOffset()}, where the
     * host's data waits (a link that gathers reads it until its flush); null when the frame is whole in {@link #frame()}.
     */
    public MemorySegment payload() {
        return payload;
    }

    public long payloadOffset() {
        return payloadOffset;
    }

    public int payloadLength() {
        return payloadLength;
    }

    /** The frame's length on the wire before any cutting: {@link #frameLength()} and the payload. */
    public int length() {
        return frameLength + payloadLength;
    }

    public Segmentation segmentation() {
        return segmentation;
    }

    /** The payload bytes of each piece the link cuts (the last may be shorter); 0 when not cut. */
    public int segmentSize() {
        return segmentSize;
    }

    /** The bytes of headers (Ethernet, IP, transport) each cut piece repeats; 0 when not cut. */
    public int headersLength() {
        return headersLength;
    }

    /** Whether the transport checksum field holds only the pseudo-header sum, for the link to complete. */
    public boolean partialChecksum() {
        return checksumStart != 0;
    }

    /** Where in the frame the checksummed bytes start (the transport header); 0 when the checksum is filled. */
    public int checksumStart() {
        return checksumStart;
    }

    /** Where the checksum field is, from {@link #checksumStart()}; 0 when the checksum is filled. */
    public int checksumOffset() {
        return checksumOffset;
    }

    /** A hash of the frame's flow, the same for all its frames; 0 for none (or a link that keeps one queue). */
    public int flowKey() {
        return flowKey;
    }

    /**
     * Said by a link that cannot send frames cut this way at all (a kernel without USO): the stack
     * stops offering them, and sends what this frame held as it would have without the offload.
     */
    public void refuse() {
        refused = true;
    }

    boolean refused() {
        return refused;
    }

    /** Describes a whole frame of length bytes at the start of frame, its checksums filled, nothing to cut. */
    TxFrame whole(MemorySegment frame, int length, int flowKey) {
        this.frame = frame;
        this.frameLength = length;
        this.payload = null;
        this.payloadOffset = 0;
        this.payloadLength = 0;
        this.segmentation = Segmentation.NONE;
        this.segmentSize = headersLength = checksumStart = checksumOffset = 0;
        this.flowKey = flowKey;
        this.refused = false;
        return this;
    }

    /** The frame's last length bytes come from payload at offset instead of the frame buffer. */
    TxFrame payloadFrom(MemorySegment payload, long offset, int length) {
        this.payload = payload;
        this.payloadOffset = offset;
        this.payloadLength = length;
        this.frameLength -= length;
        return this;
    }

    /** The transport checksum at offset from start is left to the link. */
    TxFrame partialChecksum(int start, int offset) {
        this.checksumStart = start;
        this.checksumOffset = offset;
        return this;
    }

    /** The link cuts the frame as segmentation says, into pieces of size bytes of payload after headers bytes of headers. */
    TxFrame cut(Segmentation segmentation, int headers, int size) {
        this.segmentation = segmentation;
        this.headersLength = headers;
        this.segmentSize = size;
        return this;
    }

    /**
     * The hash of the flow of the datagram h describes, whose transport header is at l4 in frame:
     * its addresses and protocol, and the ports of TCP and UDP (not of a fragment), mixed so that
     * both directions of a flow hash alike; IPv6 fragments hash as their Fragment header's
     * protocol. Never 0.
     */
    static int flowKey(IpVersion v, IpHeader h, MemorySegment frame, long l4) {
        long a = h.sourceHi() ^ h.sourceLo() ^ h.destinationHi() ^ h.destinationLo(); // IPv4-mapped: the halves' ffff cancel
        boolean fragment = h.isFragment();
        int protocol = fragment && v == IpVersion.V6 ? Ipv6.FRAGMENT : h.protocol();
        int key = ((int) a ^ (int) (a >>> 32)) * 0x9E3779B1 + protocol;
        if (!fragment && (protocol == Ipv4.PROTO_TCP || protocol == Ipv4.PROTO_UDP)) {
            int ports = Bytes.u32(frame, l4); // TCP's and UDP's both start with the two ports
            key = (key ^ ((ports >>> 16) ^ (ports & 0xffff))) * 0x85EBCA6B;
        }
        key ^= key >>> 15;
        return key == 0 ? 1 : key;
    }
}
