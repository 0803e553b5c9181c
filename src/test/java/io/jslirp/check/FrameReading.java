package io.jslirp.check;

import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;

/**
 * What a link that reads back a frame's own headers finds in it, as the tap did before the stack
 * described its frames: the struct virtio_net_hdr for an offloaded TCP or UDP frame, and the hash
 * of its flow. The reference the stack's description of a frame is held to.
 */
public final class FrameReading {
    public static final int NEEDS_CSUM = 1, GSO_NONE = 0, GSO_TCPV4 = 1, GSO_TCPV6 = 4, GSO_UDP_L4 = 5;

    private FrameReading() {
    }

    /** Where the TCP or UDP header of an IPv4 or IPv6 frame starts. */
    public static int transportOffset(MemorySegment f) {
        boolean v6 = Ethernet.type(f, 0) == Ethernet.TYPE_IPV6;
        return Ethernet.HEADER_LENGTH + (v6 ? Ipv6.HEADER_LENGTH : Ipv4.headerLength(f, Ethernet.HEADER_LENGTH));
    }

    /**
     * The vnet header's fields {flags, gso_type, hdr_len, gso_size, csum_start, csum_offset} for
     * the TCP frame of length bytes with a partial checksum, cut into segmentSize pieces when its payload is larger.
     */
    public static int[] tcpVnetHeader(MemorySegment f, int length, int segmentSize) {
        boolean v6 = Ethernet.type(f, 0) == Ethernet.TYPE_IPV6;
        int l4 = transportOffset(f);
        int headers = l4 + Tcp.headerLength(f, l4);
        boolean segmented = length - headers > segmentSize;
        return new int[] {NEEDS_CSUM, segmented ? (v6 ? GSO_TCPV6 : GSO_TCPV4) : GSO_NONE, segmented ? headers : 0,
                segmented ? segmentSize : 0, l4, Tcp.CHECKSUM_OFFSET};
    }

    /** As {@link #tcpVnetHeader} for a UDP frame of datagrams of segmentSize bytes (USO). */
    public static int[] udpVnetHeader(MemorySegment f, int segmentSize) {
        int l4 = transportOffset(f);
        return new int[] {NEEDS_CSUM, GSO_UDP_L4, l4 + Udp.HEADER_LENGTH, segmentSize, l4, Udp.CHECKSUM_OFFSET};
    }

    /** The hash of the frame's IPv4 or IPv6 flow (the ports of TCP and UDP, not of fragments); 0 for frames that are not IP. */
    public static int flowKey(MemorySegment f, int length) {
        int ip = Ethernet.HEADER_LENGTH;
        int type = Ethernet.type(f, 0);
        int h, l4;
        boolean hasPorts;
        if (type == Ethernet.TYPE_IPV6) {
            if (length < ip + Ipv6.HEADER_LENGTH) return 0;
            long a = Ipv6.sourceHi(f, ip) ^ Ipv6.sourceLo(f, ip) ^ Ipv6.destinationHi(f, ip) ^ Ipv6.destinationLo(f, ip);
            int protocol = Ipv6.nextHeader(f, ip);
            h = ((int) a ^ (int) (a >>> 32)) * 0x9E3779B1 + protocol;
            l4 = ip + Ipv6.HEADER_LENGTH;
            hasPorts = (protocol == Ipv6.PROTO_TCP || protocol == Ipv6.PROTO_UDP) && length >= l4 + 4;
        } else {
            if (length < ip + Ipv4.MIN_HEADER_LENGTH || type != Ethernet.TYPE_IPV4) return 0;
            int protocol = Ipv4.protocol(f, ip);
            h = (Ipv4.source(f, ip) ^ Ipv4.destination(f, ip)) * 0x9E3779B1 + protocol;
            l4 = ip + Ipv4.headerLength(f, ip);
            hasPorts = (protocol == Ipv4.PROTO_TCP || protocol == Ipv4.PROTO_UDP) && !Ipv4.isFragment(f, ip) && length >= l4 + 4;
        }
        if (hasPorts) h = (h ^ (Udp.sourcePort(f, l4) ^ Udp.destinationPort(f, l4))) * 0x85EBCA6B;
        h ^= h >>> 15;
        return h == 0 ? 1 : h;
    }
}
