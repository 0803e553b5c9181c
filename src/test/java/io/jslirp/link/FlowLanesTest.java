package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Bytes;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class FlowLanesTest {
    private static final int GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final long SECOND = 1_000_000_000L;

    private final Arena arena = Arena.ofAuto();

    /** A frame toward the guest of a TCP (or UDP) flow from the gateway's port to the guest's. */
    private MemorySegment frame(int protocol, int gatewayPort, int guestPort) {
        MemorySegment f = arena.allocate(14 + 20 + 20);
        Ethernet.write(f, 0, 0x0200_0000_0001L, 0x5255_0a00_0202L, Ethernet.TYPE_IPV4);
        Ipv4.write(f, 14, new IpHeader().source4(GATEWAY).destination4(GUEST).protocol(protocol).ttl(64).payloadLength(20));
        Bytes.u16(f, 34, gatewayPort);
        Bytes.u16(f, 36, guestPort);
        return f;
    }

    @Test
    void newFlowsAreDealtOutInTurnAndKeepTheirQueue() {
        FlowLanes lanes = new FlowLanes(4);
        MemorySegment a = frame(Ipv4.PROTO_TCP, 5201, 40001), b = frame(Ipv4.PROTO_TCP, 7777, 40002),
                c = frame(Ipv4.PROTO_UDP, 53, 40003);
        int la = lanes.laneOf(a, 54, 0), lb = lanes.laneOf(b, 54, 0), lc = lanes.laneOf(c, 54, 0);
        assertThat(new int[] {la, lb, lc}).containsExactly(0, 1, 2);
        for (int i = 0; i < 100; i++) {
            assertThat(lanes.laneOf(b, 54, i * SECOND)).isEqualTo(lb);
            assertThat(lanes.laneOf(a, 54, i * SECOND)).isEqualTo(la);
        }
    }

    @Test
    void framesThatAreNotIpv4UseTheFirstQueue() {
        FlowLanes lanes = new FlowLanes(4);
        lanes.laneOf(frame(Ipv4.PROTO_TCP, 1, 2), 54, 0); // moves the turn on
        MemorySegment arp = arena.allocate(42);
        Ethernet.write(arp, 0, Ethernet.BROADCAST, 0x5255_0a00_0202L, Ethernet.TYPE_ARP);
        assertThat(lanes.laneOf(arp, 42, 0)).isZero();
        assertThat(lanes.laneOf(arp, 10, 0)).isZero();
    }

    @Test
    void oneQueueTakesEverything() {
        FlowLanes lanes = new FlowLanes(1);
        for (int port = 1; port < 50; port++) assertThat(lanes.laneOf(frame(Ipv4.PROTO_TCP, port, 40000), 54, 0)).isZero();
    }

    @Test
    void theKeyIsTheSameForBothDirectionsAndDiffersBetweenFlows() {
        MemorySegment out = frame(Ipv4.PROTO_TCP, 80, 40000);
        MemorySegment back = arena.allocate(54);
        Ethernet.write(back, 0, 0x5255_0a00_0202L, 0x0200_0000_0001L, Ethernet.TYPE_IPV4);
        Ipv4.write(back, 14, new IpHeader().source4(GUEST).destination4(GATEWAY).protocol(Ipv4.PROTO_TCP).ttl(64).payloadLength(20));
        Bytes.u16(back, 34, 40000);
        Bytes.u16(back, 36, 80);
        assertThat(FlowLanes.flowKey(out, 54)).isNotZero().isEqualTo(FlowLanes.flowKey(back, 54));
        assertThat(FlowLanes.flowKey(frame(Ipv4.PROTO_TCP, 80, 40001), 54)).isNotEqualTo(FlowLanes.flowKey(out, 54));
        assertThat(FlowLanes.flowKey(frame(Ipv4.PROTO_UDP, 80, 40000), 54)).isNotEqualTo(FlowLanes.flowKey(out, 54));
    }

    @Test
    void ipv6FlowKeyIsTheSameBothWaysAndTellsFlowsApart() {
        long[] guest = Ipv6.parse("fd00::1:2:3:4"), gateway = Ipv6.parse("fd00::2");
        MemorySegment out = frame6(guest, gateway, 40000, 80), back = frame6(gateway, guest, 80, 40000);
        assertThat(FlowLanes.flowKey(out, 74)).isNotZero().isEqualTo(FlowLanes.flowKey(back, 74));
        assertThat(FlowLanes.flowKey(frame6(guest, gateway, 40001, 80), 74)).isNotEqualTo(FlowLanes.flowKey(out, 74));
        assertThat(FlowLanes.flowKey(out, 14 + 39)).isZero(); // no whole IPv6 header
    }

    private static MemorySegment frame6(long[] src, long[] dst, int srcPort, int dstPort) {
        MemorySegment f = Arena.ofAuto().allocate(74);
        Ethernet.write(f, 0, 1, 2, Ethernet.TYPE_IPV6);
        Ipv6.write(f, 14, new IpHeader().source(src[0], src[1]).destination(dst[0], dst[1]).protocol(Ipv6.PROTO_TCP).ttl(64).payloadLength(20));
        Bytes.u16(f, 54, srcPort);
        Bytes.u16(f, 56, dstPort);
        return f;
    }
}
