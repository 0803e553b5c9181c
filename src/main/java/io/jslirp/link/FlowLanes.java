package io.jslirp.link;

import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;

/**
 * Picks the queue of a multi-queue tap that a frame toward the guest is written to, and with it
 * the queue the guest's own packets of that flow arrive on: the tun driver sends a flow's packets
 * out through the queue its last received packet came in by (its flow table, keyed by a symmetric
 * hash). New flows are dealt out in turn, so a handful of flows (a bulk upload and an interactive
 * session) never share a queue, and a bulk flow's backlog does not hold up the others.
 *
 * <p>Flows are IPv4 and IPv6 TCP and UDP by their addresses and ports, fragments and other IP by addresses;
 * everything else (ARP) uses queue 0. A slot remembers one flow; a second live flow that lands on a taken slot
 * gets a queue from its hash instead, so it still stays on one queue.
 */
final class FlowLanes {
    private static final int SLOTS = 4096;
    /** A slot not used for this long belongs to a flow that has ended. */
    private static final long STALE_NANOS = 10_000_000_000L;

    private final int queues;
    private final int[] keys = new int[SLOTS];
    private final byte[] lanes = new byte[SLOTS];
    private final long[] lastUsed = new long[SLOTS];
    private int nextLane;

    FlowLanes(int queues) {
        if (queues < 1 || queues > 256) throw new IllegalArgumentException("queues must be 1..256: " + queues);
        this.queues = queues;
    }

    /** The queue for the frame of length bytes at offset 0, at time now (nanoTime). */
    int laneOf(MemorySegment frame, int length, long now) {
        if (queues == 1) return 0;
        int key = flowKey(frame, length);
        if (key == 0) return 0;
        int slot = key & (SLOTS - 1);
        if (keys[slot] == key) {
            lastUsed[slot] = now;
            return lanes[slot] & 0xff;
        }
        if (keys[slot] != 0 && now - lastUsed[slot] < STALE_NANOS) {
            return Integer.remainderUnsigned(key, queues);
        }
        int lane = nextLane;
        nextLane = (nextLane + 1) % queues;
        keys[slot] = key;
        lanes[slot] = (byte) lane;
        lastUsed[slot] = now;
        return lane;
    }

    /** A hash of the frame's IPv4 or IPv6 flow (the ports of TCP and UDP, where TCP's are too), the same for both directions; 0 for frames that are not IP. */
    static int flowKey(MemorySegment f, int length) {
        int ip = Ethernet.HEADER_LENGTH;
        int type = Ethernet.type(f, 0);
        if (type == Ethernet.TYPE_IPV6) return flowKey6(f, length);
        if (length < ip + Ipv4.MIN_HEADER_LENGTH || type != Ethernet.TYPE_IPV4) return 0;
        int ihl = Ipv4.headerLength(f, ip);
        int protocol = Ipv4.protocol(f, ip);
        int h = (Ipv4.source(f, ip) ^ Ipv4.destination(f, ip)) * 0x9E3779B1 + protocol;
        boolean hasPorts = (protocol == Ipv4.PROTO_TCP || protocol == Ipv4.PROTO_UDP)
                && !Ipv4.isFragment(f, ip) && length >= ip + ihl + 4;
        if (hasPorts) h = (h ^ (Udp.sourcePort(f, ip + ihl) ^ Udp.destinationPort(f, ip + ihl))) * 0x85EBCA6B;
        h ^= h >>> 15;
        return h == 0 ? 1 : h;
    }

    /** As {@link #flowKey} for IPv6: addresses, next header and, for TCP and UDP right after the header, ports. */
    private static int flowKey6(MemorySegment f, int length) {
        int ip = Ethernet.HEADER_LENGTH;
        if (length < ip + Ipv6.HEADER_LENGTH) return 0;
        long a = Ipv6.sourceHi(f, ip) ^ Ipv6.sourceLo(f, ip) ^ Ipv6.destinationHi(f, ip) ^ Ipv6.destinationLo(f, ip);
        int protocol = Ipv6.nextHeader(f, ip);
        int h = ((int) a ^ (int) (a >>> 32)) * 0x9E3779B1 + protocol;
        int l4 = ip + Ipv6.HEADER_LENGTH;
        boolean hasPorts = (protocol == Ipv6.PROTO_TCP || protocol == Ipv6.PROTO_UDP) && length >= l4 + 4;
        if (hasPorts) h = (h ^ (Udp.sourcePort(f, l4) ^ Udp.destinationPort(f, l4))) * 0x85EBCA6B;
        h ^= h >>> 15;
        return h == 0 ? 1 : h;
    }
}
