package io.jslirp.link;

import io.jslirp.stack.TxFrame;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a link that offloads does itself for a guest whose driver did not take the offload: a link
 * states its capabilities once, when the stack is built, while a vhost-user front-end (the next
 * VM, a firmware's driver before the kernel's) negotiates them on each connection. A partial
 * checksum is completed in place; a TCP frame to be cut is cut here into whole segments, each
 * with its own IP length, identification and checksum, sequence number and TCP checksum, and the
 * flags a cut may not repeat (FIN and PSH on the last piece only, CWR on the first only).
 */
final class SoftOffload {
    private static final int CWR = 0x80, FLAGS = 13;

    /** One piece at a time, reused. */
    private final MemorySegment piece;

    SoftOffload(int maxFrame) {
        this.piece = Arena.ofAuto().allocate(maxFrame, 64);
    }

    MemorySegment piece() {
        return piece;
    }

    /** Completes the checksum at offset from start of the length-byte frame, whose field holds the pseudo-header sum. */
    static void completeChecksum(MemorySegment frame, int length, int start, int offset) {
        int sum = Checksum.sum(frame, start, length - start, 0);
        Bytes.u16(frame, start + offset, Checksum.finish(sum));
    }

    /** The pieces f's frame (length bytes, whole in frame) is cut into: 1 when it is not cut. */
    static int pieces(TxFrame f, int length) {
        if (f.segmentation() == TxFrame.Segmentation.NONE) return 1;
        int size = f.segmentSize();
        return (length - f.headersLength() + size - 1) / size;
    }

    /**
     * Puts piece i of the TCP frame f describes (length bytes, whole in frame) into {@link #piece()},
     * a whole segment with every checksum filled: its length.
     */
    int cut(MemorySegment frame, int length, TxFrame f, int i) {
        int headers = f.headersLength(), size = f.segmentSize(), l4 = f.checksumStart();
        int from = headers + i * size;
        int payload = Math.min(size, length - from);
        int last = pieces(f, length) - 1;
        MemorySegment.copy(frame, 0, piece, 0, headers);
        MemorySegment.copy(frame, from, piece, headers, payload);
        int pieceLength = headers + payload;
        int l4Length = pieceLength - l4;
        int pseudo = pieceIpHeader(piece, f.segmentation() != TxFrame.Segmentation.TCP4, pieceLength, i, Ipv4.PROTO_TCP, l4Length);
        Bytes.u32(piece, l4 + 4, Tcp.seq(frame, l4) + i * size);
        int flags = Bytes.u8(frame, l4 + FLAGS); // (all eight bits: CWR and ECE too)
        if (i != last) flags &= ~(Tcp.FIN | Tcp.PSH);
        if (i != 0) flags &= ~CWR;
        Bytes.u8(piece, l4 + FLAGS, flags);
        Tcp.fillChecksum(piece, l4, l4Length, pseudo);
        return pieceLength;
    }

    /**
     * The IP header of piece i of a cut frame, its headers copied from the frame's into piece
     * (pieceLength bytes from the Ethernet header on): its own IP length, and for IPv4 its
     * identification (the frame's plus i) and header checksum. Returns the pseudo-header sum for
     * its L4 header of l4Length bytes of protocol (IPPROTO_TCP or IPPROTO_UDP; IPv6 the same numbers).
     */
    static int pieceIpHeader(MemorySegment piece, boolean v6, int pieceLength, int i, int protocol, int l4Length) {
        int ip = Ethernet.HEADER_LENGTH;
        if (v6) {
            Bytes.u16(piece, ip + 4, pieceLength - ip - Ipv6.HEADER_LENGTH);    // payload length
            return Checksum.pseudoHeader6(Ipv6.sourceHi(piece, ip), Ipv6.sourceLo(piece, ip),
                    Ipv6.destinationHi(piece, ip), Ipv6.destinationLo(piece, ip), protocol, l4Length);
        }
        Bytes.u16(piece, ip + 2, pieceLength - ip);                             // total length
        Bytes.u16(piece, ip + 4, Ipv4.identification(piece, ip) + i);          // identification: the frame's, copied, plus i
        Bytes.u16(piece, ip + 10, 0);
        Bytes.u16(piece, ip + 10, Checksum.of(piece, ip, Ipv4.headerLength(piece, ip)));
        return Checksum.pseudoHeader4(Ipv4.source(piece, ip), Ipv4.destination(piece, ip), protocol, l4Length);
    }
}
