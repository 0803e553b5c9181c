package io.jslirp.stack;

import static io.jslirp.check.Checker.at;
import static io.jslirp.check.Checker.code;
import static io.jslirp.check.Checker.dst;
import static io.jslirp.check.Checker.dstPort;
import static io.jslirp.check.Checker.ethDst;
import static io.jslirp.check.Checker.ethSrc;
import static io.jslirp.check.Checker.fragment;
import static io.jslirp.check.Checker.icmp;
import static io.jslirp.check.Checker.ipv6;
import static io.jslirp.check.Checker.payload;
import static io.jslirp.check.Checker.quoted;
import static io.jslirp.check.Checker.rest;
import static io.jslirp.check.Checker.src;
import static io.jslirp.check.Checker.srcPort;
import static io.jslirp.check.Checker.tcp;
import static io.jslirp.check.Checker.ttl;
import static io.jslirp.check.Checker.type;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.check.Checker;
import io.jslirp.wire.build.FrameBuilder;
import io.jslirp.check.Recorder;
import io.jslirp.check.TestNetwork;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.Udp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** The IPv6 router's own services and the IPv6 input through an in-memory link: frames in, frames out. */
class StackIpv6Test {
    private static final long GUEST_MAC = FrameBuilder.GUEST_MAC, ROUTER_MAC = FrameBuilder.GATEWAY_MAC, ALL_NODES_MAC = 0x3333_0000_0001L;
    private static final String GUEST = "fd00::1:2:3:4", GUEST_LL = "fe80::1:2:3:4";
    private static final String GATEWAY = "fd00::2", DNS = "fd00::3", ROUTER_LL = "fe80::2";
    private static final String UNSPECIFIED = "::", ALL_ROUTERS = "ff02::2", SOLICITED = "ff02::1:ff00:2";

    private final TestNetwork lan = new TestNetwork(true);
    private final Recorder sent = lan.link;
    private final Counters counters = lan.counters;

    static FrameBuilder neighborSolicitation(String src, String target, int hopLimit) {
        byte[] body = new byte[Ndp.NEIGHBOR_SOLICITATION_LENGTH - 8];
        MemorySegment b = MemorySegment.ofArray(body);
        long[] t = Ipv6.parse(target);
        Ipv6.address(b, 0, t[0], t[1]);
        Bytes.u8(b, 16, Ndp.OPT_SOURCE_LINK_ADDRESS);
        Bytes.u8(b, 17, 1);
        Bytes.mac(b, 18, GUEST_MAC);
        return FrameBuilder.v6(src, SOLICITED).ttl(hopLimit).icmp(Ndp.NEIGHBOR_SOLICITATION, 0, 0).payload(body);
    }

    private static FrameBuilder neighborAdvertisement(String src, String target) {
        byte[] body = new byte[16];
        long[] t = Ipv6.parse(target);
        Ipv6.address(MemorySegment.ofArray(body), 0, t[0], t[1]);
        return FrameBuilder.v6(src, "ff02::1").ttl(255).icmp(Ndp.NEIGHBOR_ADVERTISEMENT, 0, Ndp.NA_OVERRIDE << 24).payload(body);
    }

    @Test
    void withoutIpv6FramesAreUnsupported() {
        TestNetwork v4only = new TestNetwork(false);
        v4only.receive(neighborSolicitation(GUEST, GATEWAY, 255).build());
        v4only.link.expectNone();
        assertThat(v4only.counters.unsupported).isEqualTo(1);
    }

    @Test
    void answersNeighborSolicitationsForTheRoutersAddressesOnly() {
        for (String target : new String[] {GATEWAY, DNS, ROUTER_LL, "fd00::5", GUEST}) {
            lan.receive(neighborSolicitation(GUEST, target, 255).build());
        }
        sent.expect(ethDst(GUEST_MAC), ethSrc(ROUTER_MAC), ipv6(ttl(255), src(GATEWAY), dst(GUEST),
                icmp(type(Ndp.NEIGHBOR_ADVERTISEMENT), at((f, l4) -> {
                    assertThat(Bytes.u8(f, l4 + 4)).isEqualTo(Ndp.NA_ROUTER | Ndp.NA_SOLICITED | Ndp.NA_OVERRIDE);
                    assertThat(Ipv6.format(Ndp.targetHi(f, l4), Ndp.targetLo(f, l4))).isEqualTo(GATEWAY);
                    long tlla = Ndp.findOption(f, l4 + Ndp.NEIGHBOR_LENGTH, Ndp.NEIGHBOR_ADVERTISEMENT_LENGTH - Ndp.NEIGHBOR_LENGTH,
                            Ndp.OPT_TARGET_LINK_ADDRESS);
                    assertThat(Ndp.linkAddress(f, tlla)).isEqualTo(ROUTER_MAC);
                }))));
        sent.expect(ipv6(src(DNS), icmp()));
        sent.expect(ipv6(src(ROUTER_LL), icmp()));
        sent.expectNone();
    }

    @Test
    void neighborDiscoveryFromBeyondTheLinkOrWithABadChecksumIsDropped() {
        lan.receive(neighborSolicitation(GUEST, GATEWAY, 64).build()); // RFC 4861: hop limit must be 255
        lan.receive(neighborSolicitation(GUEST, GATEWAY, 255).build());
        MemorySegment corrupt = neighborSolicitation(GUEST, GATEWAY, 255).build();
        Bytes.u8(corrupt, 54 + 23, 9); // the target changes after the checksum
        lan.receive(corrupt);
        assertThat(sent.drain()).hasSize(1); // only the intact solicitation in between
        assertThat(counters.malformed).as("the hop limit").isEqualTo(1);
        assertThat(counters.badChecksum).as("as ICMPv4's").isEqualTo(1);
    }

    @Test
    void advertisementsClaimingTheRoutersAddressesAreIgnoredAndCounted() {
        for (String target : new String[] {GATEWAY, DNS, ROUTER_LL}) lan.receive(neighborAdvertisement(GUEST_LL, target).build());
        lan.receive(neighborAdvertisement(GUEST_LL, GUEST).build()); // the guest's own
        sent.expectNone();
        assertThat(counters.arpClaims).as("claims of the router's addresses, as ARP's").isEqualTo(3);
        answersNeighborSolicitationsForTheRoutersAddressesOnly(); // still answers as itself
    }

    private static FrameBuilder tcpSyn(String dst) {
        return FrameBuilder.v6(GUEST, dst).tcp(40000, 80, Tcp.SYN, 1, 0);
    }

    private static FrameBuilder udp(String dst, int dstPort) {
        return FrameBuilder.v6(GUEST, dst).udp(5353, dstPort).payload(3);
    }

    @Test
    void wrongTcpAndUdpChecksumsAreCountedAndGoNoFurther() {
        MemorySegment dhcp = FrameBuilder.v6(GUEST_LL, "ff02::1:2").ttl(1).udp(Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT)
                .payload(new byte[] {Dhcpv6.INFORMATION_REQUEST, 0, 0, 1}).badChecksum().build();
        for (MemorySegment f : List.of(tcpSyn(GATEWAY).badChecksum().build(), udp(DNS, 53).badChecksum().build(),
                udp("2001:db8::1", 9).zeroChecksum().build(), dhcp)) { // zero: "no checksum", which IPv4 allows and IPv6 does not
            lan.receive(f);
        }
        assertThat(counters.badChecksum).isEqualTo(4);
        assertThat(counters.malformed).isZero();
        assertThat(lan.transport).isEmpty();
        sent.expectNone(); // no DHCPv6 reply
    }

    /**
     * Addresses that never cross a link: an IPv4-mapped one would reach IPv4's flows and policy
     * under IPv6's guise, and an answer to ::1 (a guest's source before SLAAC) could not come back.
     */
    @Test
    void ipv4MappedAddressesAndALoopbackSourceAreDropped() {
        lan.receive(tcpSyn("::ffff:10.0.2.2").build());
        lan.receive(FrameBuilder.v6("::ffff:10.0.2.100", GATEWAY).tcp(40000, 80, Tcp.SYN, 1, 0).build());
        lan.receive(FrameBuilder.v6("::1", GATEWAY).tcp(40000, 80, Tcp.SYN, 1, 0).build());
        assertThat(lan.transport).isEmpty();
        assertThat(counters.unsupported).isEqualTo(3);
        lan.receive(tcpSyn("::1").build());
        assertThat(lan.transport).as("a crafted packet to ::1 is the outbound policy's to judge, as 127.0.0.1 is")
                .containsExactly("tcp fd00::1:2:3:4 -> ::1 20");
        sent.expectNone();
    }

    /** A tap's vnet header says the guest's kernel left the checksum to the device: then it holds only the pseudo-header sum. */
    @Test
    void checksumsTheLinkVouchesForAreNotChecked() {
        lan.receive(tcpSyn(GATEWAY).badChecksum().build(), true);
        lan.receive(udp(DNS, 53).zeroChecksum().build(), true);
        assertThat(lan.transport).containsExactly("tcp fd00::1:2:3:4 -> fd00::2 20", "udp fd00::1:2:3:4:5353 -> fd00::3:53 3");
        assertThat(counters.badChecksum).isZero();

        lan.receive(FrameBuilder.v6(GUEST, GATEWAY).icmp(Icmpv6.ECHO_REQUEST, 0, 0).badChecksum().build(), true);
        assertThat(counters.badChecksum).as("ICMPv6 is always checked, as ICMPv4 is").isOne();
        sent.expectNone();
    }

    @Test
    void aTcpChecksumCoversThePseudoHeader() {
        MemorySegment tcp = tcpSyn(GATEWAY).build();
        long[] dns = Ipv6.parse(DNS);
        Ipv6.address(tcp, 14 + 24, dns[0], dns[1]); // sent to another address than it was summed for
        lan.receive(tcp);
        assertThat(counters.badChecksum).isOne();
        assertThat(lan.transport).isEmpty();
    }

    private static Checker.Check routerAdvertisement() {
        return icmp(type(Ndp.ROUTER_ADVERTISEMENT), at((ra, l4) -> {
            assertThat(Ndp.raFlags(ra, l4)).isEqualTo(Ndp.RA_OTHER); // no M: addresses by SLAAC; O: DNS also by DHCPv6
            assertThat(Ndp.routerLifetime(ra, l4)).isPositive();
            long opts = l4 + Ndp.routerAdvertisementOptions();
            int optsLen = Ndp.ROUTER_ADVERTISEMENT_LENGTH - Ndp.routerAdvertisementOptions();
            long prefix = Ndp.findOption(ra, opts, optsLen, Ndp.OPT_PREFIX_INFORMATION);
            assertThat(Ndp.prefixHi(ra, prefix)).isEqualTo(Ipv6.parse(GATEWAY)[0]);
            assertThat(Ndp.prefixLength(ra, prefix)).isEqualTo(64);
            assertThat(Ndp.prefixAutonomous(ra, prefix)).isTrue();
            long rdnss = Ndp.findOption(ra, opts, optsLen, Ndp.OPT_RDNSS);
            assertThat(Ipv6.format(Ndp.rdnssHi(ra, rdnss), Ndp.rdnssLo(ra, rdnss))).isEqualTo(DNS);
            assertThat(Ndp.mtu(ra, Ndp.findOption(ra, opts, optsLen, Ndp.OPT_MTU))).isEqualTo(1500);
        }));
    }

    @Test
    void answersARouterSolicitationWithPrefixMtuAndDns() {
        byte[] slla = {Ndp.OPT_SOURCE_LINK_ADDRESS, 1, 0, 0, 0, 0, 0, 0};
        Bytes.mac(MemorySegment.ofArray(slla), 2, GUEST_MAC);
        lan.receive(FrameBuilder.v6(GUEST_LL, ALL_ROUTERS).ttl(255).icmp(Ndp.ROUTER_SOLICITATION, 0, 0).payload(slla).build());
        sent.expect(ethDst(GUEST_MAC), ipv6(src(ROUTER_LL), dst(GUEST_LL), ttl(255), routerAdvertisement()));
        sent.expectNone();
    }

    @Test
    void unsolicitedAdvertisementsGoToAllNodes() {
        lan.advertisements.advertise();
        sent.expect(ethDst(ALL_NODES_MAC), ipv6(dst("ff02::1"), ttl(255), routerAdvertisement()));
    }

    @Test
    void answersEchoForTheRouterAndHandsOtherEchoToTheTransport() {
        byte[] data = {0x61, 0x62, 0x63, 0x64};
        for (String dst : new String[] {GATEWAY, "2001:db8::1"}) {
            lan.receive(FrameBuilder.v6(GUEST, dst).icmp(Icmpv6.ECHO_REQUEST, 0, 0x12340007).payload(data).build());
        }
        assertThat(lan.transport).containsExactly("echo fd00::1:2:3:4 -> 2001:db8::1 12"); // the transport's to relay or drop
        sent.expect(ipv6(src(GATEWAY), dst(GUEST), icmp(type(Icmpv6.ECHO_REPLY), rest(0x12340007), payload(data))));
        sent.expectNone();
    }

    @Test
    void answersADhcpv6InformationRequestWithTheDnsServer() {
        byte[] request = {0x0b, 0x12, (byte) 0xa4, (byte) 0xf0, 0, 1, 0, 4, 0, 3, 0, 1};
        FrameBuilder f = FrameBuilder.v6(GUEST_LL, "ff02::1:2").ttl(1).udp(Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT).payload(request);
        lan.receive(f.build());
        sent.expect(ipv6(src(ROUTER_LL), dst(GUEST_LL), Checker.udp(srcPort(Dhcpv6.SERVER_PORT), dstPort(Dhcpv6.CLIENT_PORT), at((reply, l4) -> {
            long m = l4 + Udp.HEADER_LENGTH;
            int len = Udp.length(reply, l4) - 8;
            assertThat(Dhcpv6.messageType(reply, m)).isEqualTo(Dhcpv6.REPLY);
            assertThat(Dhcpv6.transactionId(reply, m)).isEqualTo(0x12a4f0);
            assertThat(Dhcpv6.findOption(reply, m, len, Dhcpv6.OPT_CLIENT_ID)).isEqualTo(m + 4);
            long dns = Dhcpv6.findOption(reply, m, len, Dhcpv6.OPT_DNS_SERVERS);
            assertThat(Ipv6.format(Ipv6.hi(reply, dns + 4), Ipv6.lo(reply, dns + 4))).isEqualTo(DNS);
        }))));
        request[0] = Dhcpv6.SOLICIT; // no stateful service: ignored
        lan.receive(f.payload(request).build());
        sent.expectNone();
    }

    @Test
    void tcpAndUdpReachTheTransportAsHandlesHeldOnlyForTheCall() {
        int held = lan.addresses.size(); // the virtual hosts' addresses, which the stack and the services hold for good
        lan.receive(tcpSyn(GATEWAY).build());
        lan.receive(udp(DNS, 53).build());
        assertThat(lan.transport).containsExactly("tcp fd00::1:2:3:4 -> fd00::2 20", "udp fd00::1:2:3:4:5353 -> fd00::3:53 3");
        assertThat(lan.addresses.size()).as("only the guest's address, which the stack learnt").isEqualTo(held + 1);
        assertThat(lan.name(lan.stack.ipv6().guestAddress())).isEqualTo(GUEST);
    }

    @Test
    void theGuestsAddressIsLearntFromDuplicateAddressDetectionAndItsTraffic() {
        IpOutput v6 = lan.stack.ipv6();
        int held = lan.addresses.size();
        assertThat(v6.guestAddress()).isEqualTo(AddressBook.NONE);
        lan.receive(neighborSolicitation(UNSPECIFIED, "fe80::5055:55ff:fe11:2233", 255).build());
        assertThat(v6.guestAddress()).as("a link-local address is not where forwards go").isEqualTo(AddressBook.NONE);
        lan.receive(neighborSolicitation(UNSPECIFIED, GUEST, 255).build());
        assertThat(lan.name(v6.guestAddress())).isEqualTo(GUEST);

        lan.receive(FrameBuilder.v6("fd00::77", DNS).udp(5353, 53).payload(3).build());
        assertThat(lan.name(v6.guestAddress())).as("the latest it sent from").isEqualTo("fd00::77");
        assertThat(lan.addresses.size()).as("the old address released").isEqualTo(held + 1);
    }

    @Test
    void tcpSegmentsToTheGuestCarryTheIpv6PseudoHeaderChecksum() {
        IpOutput v6 = lan.stack.ipv6();
        long[] gw = Ipv6.parse(GATEWAY), guest = Ipv6.parse(GUEST);
        int remote = lan.addresses.acquire(gw[0], gw[1]), g = lan.addresses.acquire(guest[0], guest[1]);
        Tcp.write(v6.frame(), v6.tcpOffset(), new TcpHeader().ports(80, 40000)
                .seq(5).ack(2).flags(Tcp.SYN | Tcp.ACK).window(65535).length(20));
        v6.sendTcp(remote, g, 20);
        sent.expect(ipv6(src(GATEWAY), dst(GUEST), tcp(io.jslirp.check.Checker.flags(Tcp.SYN | Tcp.ACK), io.jslirp.check.Checker.seq(5))));
    }

    /** Was: dropped, counted in send_dropped. IPv6 now fragments what jslirp originates larger than the MTU, as IPv4 does. */
    @Test
    void oversizedEchoIsAnsweredInFragmentsAndAnOversizedClientIdDropped() {
        MemorySegment echo = FrameBuilder.v6(GUEST, GATEWAY).icmp(Icmpv6.ECHO_REQUEST, 0, 0x4242_0001).payload(65000 - 8).build();
        lan.receive(echo);
        byte[] reply = reassemble(sent.drain(), GATEWAY, GUEST);
        assertThat(reply).hasSize(65000);
        assertThat(reply[0] & 0xff).isEqualTo(Icmpv6.ECHO_REPLY);
        long[] gw = Ipv6.parse(GATEWAY), guest = Ipv6.parse(GUEST);
        int pseudo = Checksum.pseudoHeader6(gw[0], gw[1], guest[0], guest[1], Ipv6.PROTO_ICMPV6, reply.length);
        assertThat(Checksum.verify(MemorySegment.ofArray(reply), 0, reply.length, pseudo)).as("the reply's checksum").isTrue();
        assertThat(counters.sendDropped).isZero();

        int idLength = 4000;
        byte[] m = new byte[4 + 4 + idLength];
        MemorySegment d = MemorySegment.ofArray(m);
        Bytes.u32(d, 0, (Dhcpv6.INFORMATION_REQUEST << 24) | 1);
        Bytes.u16(d, 4, Dhcpv6.OPT_CLIENT_ID);
        Bytes.u16(d, 6, idLength);
        lan.receive(FrameBuilder.v6(GUEST_LL, "ff02::1:2").ttl(1).udp(Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT).payload(m).build());
        assertThat(counters.malformed).isEqualTo(1);
        sent.expectNone();
    }

    /** The payload of the fragments (in order, each checked), from src to dst, put together. */
    static byte[] reassemble(List<MemorySegment> fragments, String src, String dst) {
        assertThat(fragments.size()).as("fragments").isGreaterThan(1);
        java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < fragments.size(); i++) {
            MemorySegment f = fragments.get(i);
            assertThat(f.byteSize()).as("fits the MTU").isLessThanOrEqualTo(14 + 1500);
            boolean last = i == fragments.size() - 1;
            int offset = whole.size();
            Checker.expect(f, ipv6(src(src), dst(dst), fragment(offset, !last)));
            long data = 14 + 40 + 8;
            whole.writeBytes(f.asSlice(data, f.byteSize() - data).toArray(ValueLayout.JAVA_BYTE));
            if (!last) assertThat(whole.size() % 8).isZero();
        }
        return whole.toByteArray();
    }

    // ---- extension headers (RFC 8200 section 4) ----

    @Test
    void aSynAndADatagramBehindHopByHopAndDestinationOptionsReachTheTransport() {
        byte[] routerAlert = {5, 2, 0, 0};
        lan.receive(tcpSyn(GATEWAY).hopByHop(routerAlert).destinationOptions(new byte[0]).build());
        lan.receive(udp(DNS, 53).hopByHop(new byte[0]).destinationOptions(FrameBuilder.option(0x1e, 3)).build()); // 00xxxxxx: skipped
        lan.receive(udp(DNS, 53).routing(4, 0).build()); // an unknown routing type with no segments left: ignored
        lan.receive(tcpSyn(GATEWAY).fragment(0, false, 7).build()); // an atomic fragment (RFC 6946)
        assertThat(lan.transport).containsExactly("tcp fd00::1:2:3:4 -> fd00::2 20", "udp fd00::1:2:3:4:5353 -> fd00::3:53 3",
                "udp fd00::1:2:3:4:5353 -> fd00::3:53 3", "tcp fd00::1:2:3:4 -> fd00::2 20");
        sent.expectNone();
    }

    @Test
    void anUnknownNextHeaderGetsAParameterProblemPointingAtIt() {
        MemorySegment f = FrameBuilder.v6(GUEST, GATEWAY).destinationOptions(new byte[0]).raw(253).payload(8).build();
        lan.receive(f);
        sent.expect(ipv6(src(GATEWAY), dst(GUEST), icmp(type(Icmpv6.PARAMETER_PROBLEM), code(Ipv6.PROBLEM_NEXT_HEADER),
                rest(40), quoted(src(GUEST), dst(GATEWAY)))));
        assertThat(counters.unsupported).isOne();

        lan.receive(FrameBuilder.v6(GUEST, GATEWAY).raw(132).payload(8).build()); // SCTP, named by the fixed header
        sent.expect(ipv6(icmp(type(Icmpv6.PARAMETER_PROBLEM), code(Ipv6.PROBLEM_NEXT_HEADER), rest(6))));
        lan.receive(FrameBuilder.v6(GUEST, GATEWAY).destinationOptions(new byte[0]).hopByHop(new byte[0]).raw(Ipv6.PROTO_UDP).build());
        sent.expect(ipv6(icmp(code(Ipv6.PROBLEM_NEXT_HEADER), rest(40)))); // hop-by-hop only right after the fixed header
        assertThat(lan.transport).isEmpty();
    }

    /** RFC 4443 section 2.4 (f): a guest sending nothing but unknown headers gets a burst of errors, then a few a second. */
    @Test
    void parameterProblemsAreRateLimited() {
        MemorySegment f = FrameBuilder.v6(GUEST, GATEWAY).raw(253).payload(8).build();
        for (int i = 0; i < 3 * IpInput.ERROR_BURST; i++) lan.receive(f);
        assertThat(sent.drain()).hasSize(IpInput.ERROR_BURST);
        lan.now += 100_000_000L; // 0.1 s
        for (int i = 0; i < 100; i++) lan.receive(f);
        assertThat(sent.drain()).hasSize(IpInput.ERRORS_PER_SECOND / 10);
        assertThat(counters.unsupported).as("every one counted").isEqualTo(3 * IpInput.ERROR_BURST + 100);
    }

    @Test
    void unrecognisedOptionsAreTreatedAsTheirTypeSays() {
        lan.receive(udp(DNS, 53).destinationOptions(FrameBuilder.option(0x5e, 2)).build());       // 01: discard silently
        sent.expectNone();
        lan.receive(udp(DNS, 53).destinationOptions(FrameBuilder.option(0x9e, 2)).build());       // 10: discard and tell
        sent.expect(ipv6(icmp(type(Icmpv6.PARAMETER_PROBLEM), code(Ipv6.PROBLEM_OPTION), rest(42))));
        lan.receive(udp("ff02::fb", 5353).destinationOptions(FrameBuilder.option(0x9e, 2)).build()); // even to multicast
        sent.expect(ipv6(src(GATEWAY), icmp(code(Ipv6.PROBLEM_OPTION))));
        lan.receive(udp(DNS, 53).hopByHop(FrameBuilder.option(0xde, 2)).build());                 // 11: tell unless multicast
        sent.expect(ipv6(icmp(code(Ipv6.PROBLEM_OPTION), rest(42))));
        lan.receive(udp("ff02::fb", 5353).hopByHop(FrameBuilder.option(0xde, 2)).build());
        sent.expectNone();
        lan.receive(udp(DNS, 53).routing(4, 1).build()); // segments left of a routing type not processed here
        sent.expect(ipv6(icmp(code(Ipv6.PROBLEM_FIELD), rest(42))));
        assertThat(counters.unsupported).isEqualTo(6);
        assertThat(lan.transport).isEmpty();
    }

    @Test
    void truncatedExtensionHeadersAreMalformed() {
        MemorySegment f = udp(DNS, 53).destinationOptions(new byte[12]).build();
        Bytes.u8(f, 54 + 1, 9); // a length past the packet
        lan.receive(f);
        MemorySegment bad = udp(DNS, 53).destinationOptions(new byte[] {1, 9}).build(); // a PadN running past its header
        lan.receive(bad);
        assertThat(counters.malformed).isEqualTo(2);
        sent.expectNone();
    }

    // ---- fragments ----

    @Test
    void fragmentsAreReassembledInAnyOrderAndHandedOnWhole() {
        FrameBuilder datagram = FrameBuilder.v6(GUEST, DNS).destinationOptions(new byte[0]).udp(5353, 53).payload(3000);
        lan.receive(datagram.piece(1448, 3008 - 1448, false, 99));
        lan.receive(datagram.piece(0, 1448, true, 99));
        lan.receive(datagram.piece(0, 1448, true, 99)); // a duplicate the link made: ignored
        assertThat(lan.transport).containsExactly("udp fd00::1:2:3:4:5353 -> fd00::3:53 3000");
        assertThat(counters.reassemblyDropped).isZero();

        FrameBuilder echo = FrameBuilder.v6(GUEST, GATEWAY).icmp(Icmpv6.ECHO_REQUEST, 0, 0x4242_0002).payload(4992);
        lan.receive(echo.piece(0, 2000, true, 100));
        lan.receive(echo.piece(2000, 3000, false, 100));
        byte[] reply = reassemble(sent.drain(), GATEWAY, GUEST);
        assertThat(reply).hasSize(5000);
        assertThat(reply[0] & 0xff).isEqualTo(Icmpv6.ECHO_REPLY);
    }

    @Test
    void overlappingFragmentsAbandonTheirDatagram() {
        FrameBuilder datagram = FrameBuilder.v6(GUEST, DNS).udp(5353, 53).payload(3000);
        lan.receive(datagram.piece(0, 1448, true, 5));
        lan.receive(datagram.piece(1000, 2008, false, 5)); // overlaps the first (RFC 5722)
        lan.receive(datagram.piece(1448, 1560, false, 5)); // would have completed it
        assertThat(counters.reassemblyDropped).isOne();
        assertThat(lan.transport).isEmpty();
    }

    @Test
    void fragmentsOutOfBoundsGetAParameterProblem() {
        lan.receive(FrameBuilder.v6(GUEST, DNS).udp(5353, 53).payload(100).piece(0, 100, true, 6)); // a middle piece not in 8-byte units
        sent.expect(ipv6(icmp(type(Icmpv6.PARAMETER_PROBLEM), code(Ipv6.PROBLEM_FIELD), rest(4))));
        lan.receive(FrameBuilder.v6(GUEST, DNS).raw(Ipv6.PROTO_UDP).payload(200).fragment(65528, false, 6).build()); // past 64 KiB
        sent.expect(ipv6(icmp(type(Icmpv6.PARAMETER_PROBLEM), code(Ipv6.PROBLEM_FIELD), rest(42))));
        assertThat(counters.malformed).isEqualTo(2);
    }

    @Test
    void aUdpDatagramLargerThanTheMtuGoesToTheGuestInFragments() {
        IpOutput v6 = lan.stack.ipv6();
        long[] gw = Ipv6.parse(GATEWAY), guest = Ipv6.parse(GUEST);
        int gateway = lan.addresses.acquire(gw[0], gw[1]), g = lan.addresses.acquire(guest[0], guest[1]);
        for (int i = 0; i < 5000; i++) v6.frame().set(ValueLayout.JAVA_BYTE, v6.udpPayloadOffset() + i, (byte) i);
        v6.sendUdp(gateway, 9, g, 40000, 5000);
        byte[] whole = reassemble(sent.drain(), GATEWAY, GUEST);
        assertThat(whole).hasSize(5008);
        int pseudo = Checksum.pseudoHeader6(gw[0], gw[1], guest[0], guest[1], Ipv6.PROTO_UDP, whole.length);
        assertThat(Checksum.verify(MemorySegment.ofArray(whole), 0, whole.length, pseudo)).isTrue();
        assertThat(v6.maxUdpPayload()).isEqualTo(65535 - 8);
    }

    @Test
    void unreachableQuotesTheGuestsPacket() {
        IpOutput v6 = lan.stack.ipv6();
        long[] remote = Ipv6.parse("2001:db8::1"), guest = Ipv6.parse(GUEST);
        long head = (40000L << 48) | (53L << 32) | 11;
        v6.sendUnreachable(io.jslirp.wire.Icmpv4.CODE_PORT_UNREACHABLE, Ipv6.PROTO_UDP,
                lan.addresses.acquire(guest[0], guest[1]), lan.addresses.acquire(remote[0], remote[1]), head);
        sent.expect(ipv6(src(GATEWAY), dst(GUEST), icmp(type(Icmpv6.DEST_UNREACHABLE), code(Icmpv6.CODE_PORT_UNREACHABLE),
                quoted(src(GUEST), dst("2001:db8::1"), io.jslirp.check.Checker.protocol(Ipv6.PROTO_UDP),
                        io.jslirp.check.Checker.quotedTransport(head)))));
        assertThat(counters.unreachableSent).isOne();
    }

    /** Random bytes behind an IPv6 header of each protocol: counted and dropped or answered, never an exception. */
    @net.jqwik.api.Property(tries = 500)
    void garbageNeverThrows(@net.jqwik.api.ForAll("protocols") int protocol, @net.jqwik.api.ForAll byte[] body,
                            @net.jqwik.api.ForAll @net.jqwik.api.constraints.IntRange(max = 300) int claimed,
                            @net.jqwik.api.ForAll boolean toRouter) {
        TestNetwork n = new TestNetwork(true);
        int len = Math.min(body.length, 2000);
        String dst = toRouter ? GATEWAY : "ff02::1:2";
        byte[] b = java.util.Arrays.copyOf(body, len);
        MemorySegment f = FrameBuilder.v6(GUEST, dst).ttl(255).raw(protocol).payload(b).build();
        int payload = Math.min(claimed, len + 1); // sometimes one byte more than the frame holds
        Bytes.u16(f, 18, payload);
        if (protocol == Ipv6.PROTO_ICMPV6 && payload <= len && payload >= 4) {
            // a valid checksum on one of the messages the router answers, so the garbage reaches their parsers
            Bytes.u8(f, 54, new int[] {Icmpv6.ECHO_REQUEST, Ndp.ROUTER_SOLICITATION, Ndp.NEIGHBOR_SOLICITATION}[Math.floorMod(claimed, 3)]);
            Bytes.u8(f, 55, 0);
            long[] s = Ipv6.parse(GUEST), d = Ipv6.parse(dst);
            Bytes.u16(f, 56, 0);
            Bytes.u16(f, 56, Checksum.finish(Checksum.sum(f, 54, payload, Checksum.pseudoHeader6(s[0], s[1], d[0], d[1], 58, payload))));
        }
        n.receive(f);
        n.stack.receive(f, 14 + 39);
        for (MemorySegment out : n.link.drain()) Checker.expect(out, ipv6());
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<Integer> protocols() {
        return net.jqwik.api.Arbitraries.of(Ipv6.PROTO_ICMPV6, Ipv6.PROTO_UDP, Ipv6.PROTO_TCP, 0, 44, 43, 60, 59);
    }
}
