package io.jslirp.stack;

import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;

/**
 * A TCP segment on its way out, as {@link IpOutput} hands it to the {@link Transmit} of the link:
 * its IP header's description, the frame its TCP header is in (at {@link #l4}), the guest's MAC,
 * and its payload, in the frame after the header or where the host's data waits. One per IP
 * version's output, reused for every segment.
 */
final class OutgoingSegment {
    final IpVersion version;
    final MemorySegment frame;
    final IpHeader ip;
    /** Where the TCP header starts in {@link #frame}. */
    final int l4;
    long mac;
    /** The TCP header's length when the payload is elsewhere; 0 when all of the segment is in the frame. */
    int headerLength;
    MemorySegment payload;
    long payloadOffset;
    int payloadLength;
    int segmentSize;

    OutgoingSegment(IpVersion version, MemorySegment frame, IpHeader ip) {
        this.version = version;
        this.frame = frame;
        this.ip = ip;
        this.l4 = Output.payloadOffset(version);
    }

    /** The segment (header and payload) is all in the frame; ip says how long. */
    OutgoingSegment inFrame(long mac, int segmentSize) {
        this.mac = mac;
        this.headerLength = 0;
        this.payload = null;
        this.payloadOffset = 0;
        this.payloadLength = 0;
        this.segmentSize = segmentSize;
        return this;
    }

    /** The header of headerLength bytes is in the frame, the payload from offset in payload. */
    OutgoingSegment payloadFrom(long mac, int headerLength, MemorySegment payload, long offset, int length, int segmentSize) {
        this.mac = mac;
        this.headerLength = headerLength;
        this.payload = payload;
        this.payloadOffset = offset;
        this.payloadLength = length;
        this.segmentSize = segmentSize;
        return this;
    }

    /** Header and payload. */
    int tcpLength() {
        return ip.payloadLength();
    }

    int pseudoHeader() {
        return version.pseudoHeader(ip, Ipv4.PROTO_TCP, tcpLength());
    }

    /** Copies a payload from elsewhere into the frame after the header: the segment is then all in the frame. */
    void copyPayloadIntoFrame() {
        if (payload == null) return;
        MemorySegment.copy(payload, payloadOffset, frame, l4 + headerLength, payloadLength);
        inFrame(mac, segmentSize);
    }
}
