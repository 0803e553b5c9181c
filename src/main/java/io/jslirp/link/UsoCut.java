package io.jslirp.link;

import io.jslirp.wire.Bytes;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A guest's UDP frame left to the device to cut (HOST_USO: the virtio-net header's gso_type
 * UDP_L4 and gso_size), cut here into the datagrams it stands for, one per call, as the guest's
 * kernel would have sent them: the same headers, each with its own IP length (and IPv4
 * identification and header checksum), UDP length and checksum, and the next gso_size bytes of
 * the payload (the last piece what is left). The stack then takes each as any datagram.
 *
 * <p>The frame is checked before it is taken: Ethernet, then IPv4 or IPv6 at once (no VLAN tag),
 * csum_start pointing at a UDP header inside the frame and past the IP header, a gso_size of at
 * least one byte. A frame that fails is refused whole (the link counts it).
 */
final class UsoCut {
    private final MemorySegment frame;
    private int length, l4, size, pieces, next;
    private boolean v6;

    UsoCut(int maxFrame) {
        this.frame = Arena.ofAuto().allocate(maxFrame, 64);
    }

    /** Whether pieces of the last frame taken are still to come. */
    boolean pending() {
        return next < pieces;
    }

    /**
     * Takes the first length bytes of from (a frame behind a header saying UDP_L4, its L4 header at
     * csumStart, gsoSize bytes a datagram) and puts its first piece into to: that piece's length,
     * or 0 when the frame is refused.
     */
    int take(MemorySegment from, int length, int csumStart, int gsoSize, MemorySegment to) {
        next = pieces = 0;
        int type = length < Ethernet.HEADER_LENGTH ? 0 : Bytes.u16(from, 12);
        int ip = Ethernet.HEADER_LENGTH;
        int ipHeader = type == Ethernet.TYPE_IPV4 && length >= ip + Ipv4.MIN_HEADER_LENGTH ? Ipv4.headerLength(from, ip)
                : type == Ethernet.TYPE_IPV6 ? Ipv6.HEADER_LENGTH : -1;
        if (ipHeader < 0 || gsoSize <= 0 || csumStart < ip + ipHeader || csumStart + Udp.HEADER_LENGTH > length
                || length > frame.byteSize()) {
            return 0;
        }
        MemorySegment.copy(from, 0, frame, 0, length);
        this.length = length;
        this.l4 = csumStart;
        this.size = gsoSize;
        this.v6 = type == Ethernet.TYPE_IPV6;
        int payload = length - csumStart - Udp.HEADER_LENGTH;
        pieces = Math.max(1, (payload + gsoSize - 1) / gsoSize);
        return next(to);
    }

    /** Puts the next piece into to: its length (0 when none is left). */
    int next(MemorySegment to) {
        if (!pending()) return 0;
        int i = next++;
        int headers = l4 + Udp.HEADER_LENGTH, from = headers + i * size;
        int payload = Math.max(0, Math.min(size, length - from));
        MemorySegment.copy(frame, 0, to, 0, headers);
        if (payload > 0) MemorySegment.copy(frame, from, to, headers, payload);
        int pieceLength = headers + payload;
        int pseudo = SoftOffload.pieceIpHeader(to, v6, pieceLength, i, Ipv4.PROTO_UDP, Udp.HEADER_LENGTH + payload);
        Udp.write(to, l4, Udp.sourcePort(to, l4), Udp.destinationPort(to, l4), payload, pseudo);
        return pieceLength;
    }

    /** Forgets what is left (the front-end went away). */
    void clear() {
        next = pieces = 0;
    }
}
