package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The IPv6 router's own services through an in-memory link: frames in, frames out. */
class Stack6Test {
    private static final long GUEST_MAC = 0x0200_0000_0001L, ROUTER_MAC = 0x5255_0a00_0202L, ALL_NODES_MAC = 0x3333_0000_0001L;
    private static final long[] GUEST = Ipv6.parse("fd00::1:2:3:4"), GUEST_LL = Ipv6.parse("fe80::1:2:3:4");
    private static final long[] GATEWAY = Ipv6.parse("fd00::2"), DNS = Ipv6.parse("fd00::3"), ROUTER_LL = Ipv6.parse("fe80::2");
    private static final long[] UNSPECIFIED = {0, 0}, ALL_ROUTERS = Ipv6.parse("ff02::2");

    private final Arena arena = Arena.ofAuto();
    private final List<MemorySegment> sent = new ArrayList<>();
    private final List<String> transport = new ArrayList<>();
    private final Counters counters = new Counters();
    private final FrameSink sink = (frame, length) -> {
        MemorySegment copy = arena.allocate(length);
        MemorySegment.copy(frame, 0, copy, 0, length);
        sent.add(copy);
        return true;
    };
    private final Stack stack = new Stack(NetworkConfig.defaults(), sink, counters);
    private final Stack6 stack6 = new Stack6(Ipv6Network.defaults(NetworkConfig.defaults()), sink, counters);

    Stack6Test() {
        stack6.setTransport(new Transport() {
            @Override
            public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
                transport.add("tcp " + name(source) + " -> " + name(destination) + " " + length);
            }

            @Override
            public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
                transport.add("udp " + name(source) + ":" + sourcePort + " -> " + name(destination) + ":" + destinationPort + " " + length);
            }

            @Override
            public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
                transport.add("echo " + name(source) + " -> " + name(destination) + " " + length);
            }
        });
        stack.setIpv6(stack6);
    }

    private String name(int handle) {
        return Ipv6.format(stack6.addresses().hi(handle), stack6.addresses().lo(handle));
    }

    /** A frame from the guest with an IPv6 header; the l4Length bytes after it are the caller's to fill. */
    private MemorySegment frame(int nextHeader, int hopLimit, long[] src, long[] dst, int l4Length) {
        MemorySegment f = arena.allocate(54 + l4Length);
        Ethernet.write(f, 0, ROUTER_MAC, GUEST_MAC, Ethernet.TYPE_IPV6);
        Ipv6.write(f, 14, l4Length, nextHeader, hopLimit, src[0], src[1], dst[0], dst[1]);
        return f;
    }

    private void receiveIcmp(MemorySegment f, long[] src, long[] dst) {
        int len = (int) f.byteSize() - 54;
        Icmpv6.fillChecksum(f, 54, len, src[0], src[1], dst[0], dst[1]);
        stack.receive(f, (int) f.byteSize());
    }

    private static long[] source(MemorySegment f) {
        return new long[] {Ipv6.sourceHi(f, 14), Ipv6.sourceLo(f, 14)};
    }

    private static long[] destination(MemorySegment f) {
        return new long[] {Ipv6.destinationHi(f, 14), Ipv6.destinationLo(f, 14)};
    }

    private static void assertIcmpValid(MemorySegment f) {
        assertThat(Ethernet.type(f, 0)).isEqualTo(Ethernet.TYPE_IPV6);
        assertThat(Ipv6.check(f, 14, (int) f.byteSize() - 14)).isNull();
        assertThat(Ipv6.nextHeader(f, 14)).isEqualTo(Ipv6.PROTO_ICMPV6);
        long[] s = source(f), d = destination(f);
        assertThat(Icmpv6.checksumValid(f, 54, Ipv6.payloadLength(f, 14), s[0], s[1], d[0], d[1])).isTrue();
    }

    private MemorySegment neighborSolicitation(long[] src, long[] target, int hopLimit) {
        MemorySegment f = frame(Ipv6.PROTO_ICMPV6, hopLimit, src, new long[] {0xff02_0000_0000_0000L, 0x1_ff00_0002L}, 32);
        Ndp.writeNeighborSolicitation(f, 54, target[0], target[1], GUEST_MAC);
        return f;
    }

    @Test
    void withoutIpv6FramesAreUnsupported() {
        Stack v4only = new Stack(NetworkConfig.defaults(), sink, counters);
        MemorySegment f = neighborSolicitation(GUEST, GATEWAY, 255);
        v4only.receive(f, (int) f.byteSize());
        assertThat(sent).isEmpty();
        assertThat(counters.unsupported).isEqualTo(1);
    }

    @Test
    void answersNeighborSolicitationsForTheRoutersAddressesOnly() {
        for (long[] target : new long[][] {GATEWAY, DNS, ROUTER_LL, Ipv6.parse("fd00::5"), GUEST}) {
            receiveIcmp(neighborSolicitation(GUEST, target, 255), GUEST, new long[] {0xff02_0000_0000_0000L, 0x1_ff00_0002L});
        }
        assertThat(sent).hasSize(3);
        MemorySegment na = sent.getFirst();
        assertIcmpValid(na);
        assertThat(Ethernet.destination(na, 0)).isEqualTo(GUEST_MAC);
        assertThat(Ethernet.source(na, 0)).isEqualTo(ROUTER_MAC);
        assertThat(Ipv6.hopLimit(na, 14)).isEqualTo(255);
        assertThat(source(na)).containsExactly(GATEWAY);
        assertThat(destination(na)).containsExactly(GUEST);
        assertThat(Icmpv6.type(na, 54)).isEqualTo(Ndp.NEIGHBOR_ADVERTISEMENT);
        assertThat(Bytes.u8(na, 58)).isEqualTo(Ndp.NA_ROUTER | Ndp.NA_SOLICITED | Ndp.NA_OVERRIDE);
        assertThat(new long[] {Ndp.targetHi(na, 54), Ndp.targetLo(na, 54)}).containsExactly(GATEWAY);
        long tlla = Ndp.findOption(na, 54 + Ndp.NEIGHBOR_LENGTH, Ndp.NEIGHBOR_ADVERTISEMENT_LENGTH - Ndp.NEIGHBOR_LENGTH, Ndp.OPT_TARGET_LINK_ADDRESS);
        assertThat(Ndp.linkAddress(na, tlla)).isEqualTo(ROUTER_MAC);
        assertThat(source(sent.get(1))).containsExactly(DNS);
        assertThat(source(sent.get(2))).containsExactly(ROUTER_LL);
    }

    @Test
    void neighborDiscoveryFromBeyondTheLinkOrWithABadChecksumIsDropped() {
        MemorySegment forwarded = neighborSolicitation(GUEST, GATEWAY, 64); // RFC 4861: hop limit must be 255
        receiveIcmp(forwarded, GUEST, new long[] {0xff02_0000_0000_0000L, 0x1_ff00_0002L});
        MemorySegment corrupt = neighborSolicitation(GUEST, GATEWAY, 255);
        receiveIcmp(corrupt, GUEST, new long[] {0xff02_0000_0000_0000L, 0x1_ff00_0002L});
        Bytes.u8(corrupt, 54 + 23, 9); // the target changes after the checksum
        stack.receive(corrupt, (int) corrupt.byteSize());
        assertThat(sent).hasSize(1); // only the intact solicitation in between
        assertThat(counters.malformed).as("the hop limit").isEqualTo(1);
        assertThat(counters.badChecksum).as("as ICMPv4's").isEqualTo(1);
    }

    private MemorySegment tcpSyn(long[] dst) {
        MemorySegment tcp = frame(Ipv6.PROTO_TCP, 64, GUEST, dst, 20);
        Tcp.write(tcp, 54, 40000, 80, 1, 0, Tcp.SYN, 65535, 20);
        Tcp.fillChecksum6(tcp, 54, 20, GUEST[0], GUEST[1], dst[0], dst[1]);
        return tcp;
    }

    private MemorySegment udp(long[] dst, int dstPort) {
        MemorySegment udp = frame(Ipv6.PROTO_UDP, 64, GUEST, dst, 8 + 3);
        Udp.write6(udp, 54, 5353, dstPort, 3, GUEST[0], GUEST[1], dst[0], dst[1]);
        return udp;
    }

    /** Flips bits of the 16-bit checksum field at off (the transport header's), so it no longer sums right. */
    private static MemorySegment corrupted(MemorySegment f, long off) {
        Bytes.u16(f, off, Bytes.u16(f, off) ^ 0x5a5a);
        return f;
    }

    @Test
    void wrongTcpAndUdpChecksumsAreCountedAndGoNoFurther() {
        MemorySegment tcp = corrupted(tcpSyn(GATEWAY), 54 + 16);
        MemorySegment udp = corrupted(udp(DNS, 53), 54 + 6);
        MemorySegment zero = udp(Ipv6.parse("2001:db8::1"), 9);
        Bytes.u16(zero, 54 + 6, 0); // "no checksum", which IPv4 allows and IPv6 does not
        long[] servers = {Dhcpv6.SERVERS_HI, Dhcpv6.SERVERS_LO};
        MemorySegment dhcp = frame(Ipv6.PROTO_UDP, 1, GUEST_LL, servers, 8 + 4);
        Bytes.u32(dhcp, 62, (Dhcpv6.INFORMATION_REQUEST << 24) | 1);
        Udp.write6(dhcp, 54, Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT, 4, GUEST_LL[0], GUEST_LL[1], servers[0], servers[1]);
        corrupted(dhcp, 54 + 6);
        for (MemorySegment f : List.of(tcp, udp, zero, dhcp)) stack.receive(f, (int) f.byteSize());
        assertThat(counters.badChecksum).isEqualTo(4);
        assertThat(counters.malformed).isZero();
        assertThat(transport).isEmpty();
        assertThat(sent).as("no DHCPv6 reply").isEmpty();
    }

    /** A tap's vnet header says the guest's kernel left the checksum to the device: then it holds only the pseudo-header sum. */
    @Test
    void checksumsTheLinkVouchesForAreNotChecked() {
        MemorySegment tcp = corrupted(tcpSyn(GATEWAY), 54 + 16);
        MemorySegment zero = udp(DNS, 53);
        Bytes.u16(zero, 54 + 6, 0);
        stack.receive(tcp, (int) tcp.byteSize(), true);
        stack.receive(zero, (int) zero.byteSize(), true);
        assertThat(transport).containsExactly("tcp fd00::1:2:3:4 -> fd00::2 20", "udp fd00::1:2:3:4:5353 -> fd00::3:53 3");
        assertThat(counters.badChecksum).isZero();

        MemorySegment echo = frame(Ipv6.PROTO_ICMPV6, 64, GUEST, GATEWAY, 8);
        Bytes.u8(echo, 54, Icmpv6.ECHO_REQUEST);
        Icmpv6.fillChecksum(echo, 54, 8, GUEST[0], GUEST[1], GATEWAY[0], GATEWAY[1]);
        stack.receive(corrupted(echo, 54 + 2), (int) echo.byteSize(), true);
        assertThat(counters.badChecksum).as("ICMPv6 is always checked, as ICMPv4 is").isOne();
        assertThat(sent).isEmpty();
    }

    @Test
    void aTcpChecksumCoversThePseudoHeader() {
        MemorySegment tcp = tcpSyn(GATEWAY);
        Ipv6.address(tcp, 14 + 24, DNS[0], DNS[1]); // sent to another address than it was summed for
        stack.receive(tcp, (int) tcp.byteSize());
        assertThat(counters.badChecksum).isOne();
        assertThat(transport).isEmpty();
    }

    @Test
    void answersARouterSolicitationWithPrefixMtuAndDns() {
        MemorySegment rs = frame(Ipv6.PROTO_ICMPV6, 255, GUEST_LL, ALL_ROUTERS, 16);
        Bytes.u8(rs, 54, Ndp.ROUTER_SOLICITATION);
        Bytes.u8(rs, 62, Ndp.OPT_SOURCE_LINK_ADDRESS);
        Bytes.u8(rs, 63, 1);
        Bytes.mac(rs, 64, GUEST_MAC);
        receiveIcmp(rs, GUEST_LL, ALL_ROUTERS);

        assertThat(sent).hasSize(1);
        MemorySegment ra = sent.getFirst();
        assertIcmpValid(ra);
        assertThat(Ethernet.destination(ra, 0)).isEqualTo(GUEST_MAC);
        assertThat(source(ra)).containsExactly(ROUTER_LL);
        assertThat(destination(ra)).containsExactly(GUEST_LL);
        assertThat(Ipv6.hopLimit(ra, 14)).isEqualTo(255);
        assertThat(Icmpv6.type(ra, 54)).isEqualTo(Ndp.ROUTER_ADVERTISEMENT);
        assertThat(Ndp.raFlags(ra, 54)).isEqualTo(Ndp.RA_OTHER); // no M: addresses by SLAAC; O: DNS also by DHCPv6
        assertThat(Ndp.routerLifetime(ra, 54)).isPositive();
        int opts = 54 + Ndp.routerAdvertisementOptions(), optsLen = Ipv6.payloadLength(ra, 14) - Ndp.routerAdvertisementOptions();
        long prefix = Ndp.findOption(ra, opts, optsLen, Ndp.OPT_PREFIX_INFORMATION);
        assertThat(Ndp.prefixHi(ra, prefix)).isEqualTo(GATEWAY[0]);
        assertThat(Ndp.prefixLength(ra, prefix)).isEqualTo(64);
        assertThat(Ndp.prefixAutonomous(ra, prefix)).isTrue();
        long rdnss = Ndp.findOption(ra, opts, optsLen, Ndp.OPT_RDNSS);
        assertThat(new long[] {Ndp.rdnssHi(ra, rdnss), Ndp.rdnssLo(ra, rdnss)}).containsExactly(DNS);
        assertThat(Ndp.mtu(ra, Ndp.findOption(ra, opts, optsLen, Ndp.OPT_MTU))).isEqualTo(1500);
    }

    @Test
    void unsolicitedAdvertisementsGoToAllNodes() {
        stack6.sendRouterAdvertisement();
        MemorySegment ra = sent.getFirst();
        assertIcmpValid(ra);
        assertThat(Ethernet.destination(ra, 0)).isEqualTo(ALL_NODES_MAC);
        assertThat(destination(ra)).containsExactly(Ipv6.ALL_NODES_HI, Ipv6.ALL_NODES_LO);
    }

    @Test
    void answersEchoForTheRouterAndHandsOtherEchoToTheTransport() {
        for (long[] dst : new long[][] {GATEWAY, Ipv6.parse("2001:db8::1")}) {
            MemorySegment echo = frame(Ipv6.PROTO_ICMPV6, 64, GUEST, dst, 8 + 4);
            Bytes.u8(echo, 54, Icmpv6.ECHO_REQUEST);
            Bytes.u32(echo, 58, 0x12340007);
            Bytes.u32(echo, 62, 0x61626364);
            receiveIcmp(echo, GUEST, dst);
        }
        assertThat(sent).hasSize(1);
        assertThat(transport).containsExactly("echo fd00::1:2:3:4 -> 2001:db8::1 12"); // the transport's to relay or drop
        MemorySegment reply = sent.getFirst();
        assertIcmpValid(reply);
        assertThat(Icmpv6.type(reply, 54)).isEqualTo(Icmpv6.ECHO_REPLY);
        assertThat(Bytes.u32(reply, 58)).isEqualTo(0x12340007);
        assertThat(Bytes.u32(reply, 62)).isEqualTo(0x61626364);
        assertThat(source(reply)).containsExactly(GATEWAY);
        assertThat(destination(reply)).containsExactly(GUEST);
    }

    @Test
    void answersADhcpv6InformationRequestWithTheDnsServer() {
        byte[] request = {0x0b, 0x12, (byte) 0xa4, (byte) 0xf0, 0, 1, 0, 4, 0, 3, 0, 1};
        long[] servers = {Dhcpv6.SERVERS_HI, Dhcpv6.SERVERS_LO};
        MemorySegment f = frame(Ipv6.PROTO_UDP, 1, GUEST_LL, servers, 8 + request.length);
        MemorySegment.copy(MemorySegment.ofArray(request), 0, f, 62, request.length);
        Udp.write6(f, 54, Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT, request.length, GUEST_LL[0], GUEST_LL[1], servers[0], servers[1]);
        stack.receive(f, (int) f.byteSize());

        assertThat(sent).hasSize(1);
        MemorySegment reply = sent.getFirst();
        assertThat(source(reply)).containsExactly(ROUTER_LL);
        assertThat(destination(reply)).containsExactly(GUEST_LL);
        assertThat(Udp.sourcePort(reply, 54)).isEqualTo(Dhcpv6.SERVER_PORT);
        assertThat(Udp.destinationPort(reply, 54)).isEqualTo(Dhcpv6.CLIENT_PORT);
        int udpLen = Udp.length(reply, 54);
        int pseudo = Checksum.pseudoHeader6(ROUTER_LL[0], ROUTER_LL[1], GUEST_LL[0], GUEST_LL[1], Ipv6.PROTO_UDP, udpLen);
        assertThat(Checksum.finish(Checksum.sum(reply, 54, udpLen, pseudo))).isZero();
        int len = udpLen - 8;
        assertThat(Dhcpv6.messageType(reply, 62)).isEqualTo(Dhcpv6.REPLY);
        assertThat(Dhcpv6.transactionId(reply, 62)).isEqualTo(0x12a4f0);
        assertThat(Dhcpv6.findOption(reply, 62, len, Dhcpv6.OPT_CLIENT_ID)).isEqualTo(62 + 4);
        long dns = Dhcpv6.findOption(reply, 62, len, Dhcpv6.OPT_DNS_SERVERS);
        assertThat(new long[] {Ipv6.hi(reply, dns + 4), Ipv6.lo(reply, dns + 4)}).containsExactly(DNS);

        Bytes.u8(f, 62, Dhcpv6.SOLICIT); // no stateful service: ignored
        stack.receive(f, (int) f.byteSize());
        assertThat(sent).hasSize(1);
    }

    @Test
    void tcpAndUdpReachTheTransportAsHandlesHeldOnlyForTheCall() {
        MemorySegment tcp = frame(Ipv6.PROTO_TCP, 64, GUEST, GATEWAY, 20);
        Tcp.write(tcp, 54, 40000, 80, 1, 0, Tcp.SYN, 65535, 20);
        Tcp.fillChecksum6(tcp, 54, 20, GUEST[0], GUEST[1], GATEWAY[0], GATEWAY[1]);
        stack.receive(tcp, (int) tcp.byteSize());
        MemorySegment udp = frame(Ipv6.PROTO_UDP, 64, GUEST, DNS, 8 + 3);
        Udp.write6(udp, 54, 5353, 53, 3, GUEST[0], GUEST[1], DNS[0], DNS[1]);
        stack.receive(udp, (int) udp.byteSize());
        assertThat(transport).containsExactly("tcp fd00::1:2:3:4 -> fd00::2 20", "udp fd00::1:2:3:4:5353 -> fd00::3:53 3");
        assertThat(stack6.addresses().size()).as("only the guest's address, which the stack learnt").isEqualTo(3); // and the gateway and DNS addresses, which it holds for good
        assertThat(address(stack6.guestAddress())).containsExactly(GUEST);
    }

    @Test
    void theGuestsAddressIsLearntFromDuplicateAddressDetectionAndItsTraffic() {
        assertThat(stack6.guestAddress()).isEqualTo(AddressBook.NONE);
        long[] unspecified = {0, 0}, linkLocalTarget = {0xfe80_0000_0000_0000L, 0x5055_55ff_fe11_2233L};
        long[] solicitedNodes = {0xff02_0000_0000_0000L, 0x1_ff00_0002L}; // where neighborSolicitation() sends
        receiveIcmp(neighborSolicitation(unspecified, linkLocalTarget, 255), unspecified, solicitedNodes);
        assertThat(stack6.guestAddress()).as("a link-local address is not where forwards go").isEqualTo(AddressBook.NONE);
        receiveIcmp(neighborSolicitation(unspecified, GUEST, 255), unspecified, solicitedNodes);
        assertThat(address(stack6.guestAddress())).containsExactly(GUEST);

        long[] other = {GUEST[0], 0x77};
        MemorySegment udp = frame(Ipv6.PROTO_UDP, 64, other, DNS, 8 + 3);
        Udp.write6(udp, 54, 5353, 53, 3, other[0], other[1], DNS[0], DNS[1]);
        stack.receive(udp, (int) udp.byteSize());
        assertThat(address(stack6.guestAddress())).as("the latest it sent from").containsExactly(other);
        assertThat(stack6.addresses().size()).as("the old address released").isEqualTo(3);
    }

    private long[] address(int handle) {
        return new long[] {stack6.addresses().hi(handle), stack6.addresses().lo(handle)};
    }

    @Test
    void tcpSegmentsToTheGuestCarryTheIpv6PseudoHeaderChecksum() {
        AddressBook book = stack6.addresses();
        int remote = book.acquire(GATEWAY[0], GATEWAY[1]), guest = book.acquire(GUEST[0], GUEST[1]);
        Tcp.write(stack6.frame(), stack6.tcpOffset(), 80, 40000, 5, 2, Tcp.SYN | Tcp.ACK, 65535, 20);
        stack6.sendTcp(remote, guest, 20);
        MemorySegment f = sent.getFirst();
        assertThat(Ipv6.nextHeader(f, 14)).isEqualTo(Ipv6.PROTO_TCP);
        assertThat(Ipv6.payloadLength(f, 14)).isEqualTo(20);
        assertThat(source(f)).containsExactly(GATEWAY);
        assertThat(destination(f)).containsExactly(GUEST);
        int pseudo = Checksum.pseudoHeader6(GATEWAY[0], GATEWAY[1], GUEST[0], GUEST[1], Ipv6.PROTO_TCP, 20);
        assertThat(Checksum.finish(Checksum.sum(f, 54, 20, pseudo))).isZero();
    }

    @Test
    void oversizedEchoAndClientIdAreDroppedNotThrown() {
        MemorySegment echo = frame(Ipv6.PROTO_ICMPV6, 64, GUEST, GATEWAY, 65000);
        Bytes.u8(echo, 54, Icmpv6.ECHO_REQUEST);
        receiveIcmp(echo, GUEST, GATEWAY);
        assertThat(counters.sendDropped).isEqualTo(1);

        int idLength = 4000;
        long[] servers = {Dhcpv6.SERVERS_HI, Dhcpv6.SERVERS_LO};
        MemorySegment f = frame(Ipv6.PROTO_UDP, 1, GUEST_LL, servers, 8 + 4 + 4 + idLength);
        Bytes.u32(f, 62, (Dhcpv6.INFORMATION_REQUEST << 24) | 1);
        Bytes.u16(f, 66, Dhcpv6.OPT_CLIENT_ID);
        Bytes.u16(f, 68, idLength);
        Udp.write6(f, 54, Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT, 8 + idLength, GUEST_LL[0], GUEST_LL[1], servers[0], servers[1]);
        stack.receive(f, (int) f.byteSize());
        assertThat(counters.malformed).isEqualTo(1);
        assertThat(sent).isEmpty();
    }

    /** Random bytes behind an IPv6 header of each protocol: counted and dropped or answered, never an exception. */
    @net.jqwik.api.Property(tries = 500)
    void garbageNeverThrows(@net.jqwik.api.ForAll("protocols") int protocol, @net.jqwik.api.ForAll byte[] body,
                            @net.jqwik.api.ForAll @net.jqwik.api.constraints.IntRange(max = 300) int claimed,
                            @net.jqwik.api.ForAll boolean toRouter) {
        int len = Math.min(body.length, 2000);
        long[] dst = toRouter ? GATEWAY : Ipv6.parse("ff02::1:2");
        MemorySegment f = frame(protocol, 255, GUEST, dst, len);
        MemorySegment.copy(MemorySegment.ofArray(body), 0, f, 54, len);
        int payload = Math.min(claimed, len + 1); // sometimes one byte more than the frame holds
        Bytes.u16(f, 18, payload);
        if (protocol == Ipv6.PROTO_ICMPV6 && payload <= len && payload >= 4) {
            // a valid checksum on one of the messages the router answers, so the garbage reaches their parsers
            Bytes.u8(f, 54, new int[] {Icmpv6.ECHO_REQUEST, Ndp.ROUTER_SOLICITATION, Ndp.NEIGHBOR_SOLICITATION}[Math.floorMod(claimed, 3)]);
            Bytes.u8(f, 55, 0);
            Icmpv6.fillChecksum(f, 54, payload, GUEST[0], GUEST[1], dst[0], dst[1]);
        }
        stack.receive(f, (int) f.byteSize());
        stack.receive(f, 14 + 39);
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<Integer> protocols() {
        return net.jqwik.api.Arbitraries.of(Ipv6.PROTO_ICMPV6, Ipv6.PROTO_UDP, Ipv6.PROTO_TCP, 0, 44);
    }
}
