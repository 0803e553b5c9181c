package io.jslirp.stack;

import static io.jslirp.check.Checker.arp;
import static io.jslirp.check.Checker.arpOperation;
import static io.jslirp.check.Checker.arpSender;
import static io.jslirp.check.Checker.arpTarget;
import static io.jslirp.check.Checker.code;
import static io.jslirp.check.Checker.dst;
import static io.jslirp.check.Checker.dstPort;
import static io.jslirp.check.Checker.ethDst;
import static io.jslirp.check.Checker.icmp;
import static io.jslirp.check.Checker.ipv4;
import static io.jslirp.check.Checker.payload;
import static io.jslirp.check.Checker.protocol;
import static io.jslirp.check.Checker.quoted;
import static io.jslirp.check.Checker.quotedTransport;
import static io.jslirp.check.Checker.rest;
import static io.jslirp.check.Checker.src;
import static io.jslirp.check.Checker.type;
import static io.jslirp.check.Checker.udp;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.build.FrameBuilder;
import io.jslirp.check.Recorder;
import io.jslirp.check.TestNetwork;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The gateway's own services through an in-memory link: frames in, frames out. */
class StackTest {
    private static final long GUEST_MAC = FrameBuilder.GUEST_MAC;
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final int GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int DNS = Ipv4.parse("10.0.2.3");
    /** Where a DHCP message starts in a frame: Ethernet, IPv4, UDP headers. */
    private static final int DHCP = 42;

    private final Arena arena = Arena.ofAuto();
    private TestNetwork net = new TestNetwork(false);
    private Recorder sent = net.link;
    private AddressBook addresses = net.addresses;
    private Stack stack = net.stack;

    private void withBootFile(String bootFile) {
        net = new TestNetwork(false, bootFile);
        sent = net.link;
        addresses = net.addresses;
        stack = net.stack;
    }

    private MemorySegment arpFrame(long mac, int op, int sender, int target) {
        MemorySegment f = arena.allocate(42);
        Ethernet.write(f, 0, Ethernet.BROADCAST, mac, Ethernet.TYPE_ARP);
        Arp.write(f, 14, op, mac, sender);
        Arp.writeTarget(f, 14, 0, target);
        return f;
    }

    @Test
    void answersArpForGatewayAndDnsOnly() {
        for (int target : new int[] {GATEWAY, DNS, Ipv4.parse("10.0.2.50")}) net.receive(arpFrame(GUEST_MAC, Arp.REQUEST, GUEST, target));
        sent.expect(ethDst(GUEST_MAC), arp(arpOperation(Arp.REPLY), arpSender(0x5255_0a00_0202L, "10.0.2.2"), arpTarget("10.0.2.100")));
        sent.expect(arp(arpOperation(Arp.REPLY), arpSender(0x5255_0a00_0203L, "10.0.2.3")));
        sent.expectNone();
    }

    @Test
    void handsPingToOtherHostsToTheTransport() {
        net.receive(FrameBuilder.v4("10.0.2.100", "192.0.2.1").icmp(Icmpv4.ECHO_REQUEST, 0, 0x1234_0000).payload(16).build());
        sent.expectNone();
        assertThat(net.transport).containsExactly("echo 10.0.2.100 -> 192.0.2.1 24");
    }

    @Test
    void answersPingToTheGateway() {
        byte[] data = new byte[56];
        for (int i = 0; i < 56; i++) data[i] = (byte) i;
        net.receive(FrameBuilder.v4("10.0.2.100", "10.0.2.2").icmp(Icmpv4.ECHO_REQUEST, 0, 0x1234_0007).payload(data).build());
        sent.expect(ipv4(src("10.0.2.2"), dst("10.0.2.100"), icmp(type(Icmpv4.ECHO_REPLY), rest(0x1234_0007), payload(data))));
        sent.expectNone();
    }

    @Test
    void unreachableQuotesTheGuestsDatagramHeader() {
        int remote = Ipv4.parse("192.0.2.1");
        long tcpHead = (40000L << 48) | (80L << 32) | 0xdeadbeefL;
        stack.ipv4().sendUnreachable(Icmpv4.CODE_HOST_UNREACHABLE, Ipv4.PROTO_TCP, addresses.acquire4(GUEST), addresses.acquire4(remote), tcpHead);

        sent.expect(ipv4(src("10.0.2.2"), dst("10.0.2.100"), protocol(Ipv4.PROTO_ICMP),
                icmp(type(Icmpv4.DEST_UNREACHABLE), code(Icmpv4.CODE_HOST_UNREACHABLE),
                        quoted(src("10.0.2.100"), dst("192.0.2.1"), protocol(Ipv4.PROTO_TCP), quotedTransport(tcpHead)))));
        assertThat(stack.counters().unreachableSent).isEqualTo(1);
    }

    @Test
    void dhcpOffersThePoolAndAcksTheRequest() {
        MemorySegment offer = dhcpExchange(Dhcp.DISCOVER, 0);
        int offered = Dhcp.yourAddress(offer, DHCP);
        assertThat(Ipv4.format(offered)).isEqualTo("10.0.2.15");
        assertThat(option(offer, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.OFFER);
        assertThat(option(offer, Dhcp.OPT_ROUTER)).isEqualTo(GATEWAY);
        assertThat(option(offer, Dhcp.OPT_DNS)).isEqualTo(DNS);
        assertThat(option(offer, Dhcp.OPT_SUBNET_MASK)).isEqualTo(0xffffff00);
        assertThat(option(offer, Dhcp.OPT_MTU)).isEqualTo(1500);
        assertThat(option(offer, Dhcp.OPT_LEASE_TIME)).isEqualTo(86400);

        MemorySegment ack = dhcpExchange(Dhcp.REQUEST, offered);
        assertThat(option(ack, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.ACK);
        assertThat(Dhcp.yourAddress(ack, DHCP)).isEqualTo(offered);

        MemorySegment nak = dhcpExchange(Dhcp.REQUEST, Ipv4.parse("10.0.2.99"));
        assertThat(option(nak, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.NAK);
    }

    @Test
    void dhcpNamesTheBootFileAndTheGatewayAsTftpServer() {
        MemorySegment plain = dhcpExchange(Dhcp.DISCOVER, 0);
        assertThat(Dhcp.findOption(plain, DHCP, Udp.length(plain, 34) - 8, Dhcp.OPT_BOOTFILE)).isNegative();
        assertThat(Bytes.u8(plain, DHCP + Dhcp.FILE_OFFSET)).isZero();

        withBootFile("pxelinux.0");
        MemorySegment offer = dhcpExchange(Dhcp.DISCOVER, 0);
        assertThat(Dhcp.serverAddress(offer, DHCP)).as("siaddr").isEqualTo(GATEWAY);
        assertThat(cString(offer, DHCP + Dhcp.FILE_OFFSET)).isEqualTo("pxelinux.0");
        assertThat(stringOption(offer, Dhcp.OPT_BOOTFILE)).isEqualTo("pxelinux.0");
        assertThat(stringOption(offer, Dhcp.OPT_TFTP_SERVER)).isEqualTo("10.0.2.2");
    }

    @Test
    void dhcpStarvationWithMadeUpMacsDoesNotLockOutTheNextClient() {
        for (int i = 0; i < 40; i++) { // 16 leases bound, then 24 more clients that get nothing
            long fake = 0x0266_0000_0000L + i;
            MemorySegment offer = dhcp(fake, Dhcp.DISCOVER, 0);
            if (i < 16) dhcpRequestAcked(fake, Dhcp.yourAddress(offer, DHCP));
            else assertThat(offer).as("pool full of fresh leases").isNull();
        }
        net.now += 9_000_000_000L;
        assertThat(dhcp(GUEST_MAC, Dhcp.DISCOVER, 0)).as("leases bound 9 s ago are not taken back").isNull();
        net.now += 1_000_000_000L;
        // Nothing ever came from those addresses: the oldest lease goes to the next real client.
        MemorySegment offer = dhcp(GUEST_MAC, Dhcp.DISCOVER, 0);
        assertThat(offer).isNotNull();
        assertThat(Ipv4.format(Dhcp.yourAddress(offer, DHCP))).isEqualTo("10.0.2.15");
        assertThat(option(dhcpExchange(Dhcp.REQUEST, Ipv4.parse("10.0.2.15")), Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.ACK);
        MemorySegment nak = dhcp(0x0266_0000_0000L, Dhcp.REQUEST, Ipv4.parse("10.0.2.15"));
        assertThat(option(nak, Dhcp.OPT_MESSAGE_TYPE)).as("the former holder renews").isEqualTo(Dhcp.NAK);
    }

    @Test
    void dhcpNeverTakesBackALeaseInUse() {
        for (int i = 0; i < 16; i++) {
            long client = 0x0266_0000_0000L + i;
            int address = Dhcp.yourAddress(dhcp(client, Dhcp.DISCOVER, 0), DHCP);
            if (i == 5) continue; // offered, never requested
            dhcpRequestAcked(client, address);
            // the address is used: a frame comes from it
            net.receive(FrameBuilder.v4(address, GATEWAY).macs(client, FrameBuilder.GATEWAY_MAC).icmp(Icmpv4.ECHO_REPLY, 0, 0).build());
        }
        sent.drain();
        net.now += 60_000_000_000L;
        MemorySegment offer = dhcp(GUEST_MAC, Dhcp.DISCOVER, 0);
        assertThat(Ipv4.format(Dhcp.yourAddress(offer, DHCP))).as("the unrequested offer").isEqualTo("10.0.2.20");
        assertThat(dhcp(0x0277_0000_0000L, Dhcp.DISCOVER, 0)).as("every other lease is in use").isNull();
    }

    private void dhcpRequestAcked(long mac, int address) {
        MemorySegment ack = dhcp(mac, Dhcp.REQUEST, address);
        assertThat(option(ack, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.ACK);
    }

    @Test
    void dhcpFromAMadeUpMacDoesNotRedirectTheGuestsFrames() {
        answersPingToTheGateway(); // teaches the stack GUEST_MAC
        dhcp(0x0266_0000_0001L, Dhcp.DISCOVER, 0);
        sent.drain();
        stack.ipv4().sendUdp(addresses.acquire4(GATEWAY), 9, addresses.acquire4(GUEST), 40000, 0);
        sent.expect(ethDst(GUEST_MAC), ipv4(udp(dstPort(40000))));
    }

    @Test
    void ignoresArpClaimsForTheGatewaysAddresses() {
        long spoofer = 0x0266_0000_0009L;
        for (int op : new int[] {Arp.REQUEST, Arp.REPLY}) {
            for (int claimed : new int[] {GATEWAY, DNS}) {
                MemorySegment f = arena.allocate(42);
                Ethernet.write(f, 0, Ethernet.BROADCAST, spoofer, Ethernet.TYPE_ARP);
                Arp.write(f, 14, op, spoofer, claimed);
                Arp.writeTarget(f, 14, 0, claimed); // gratuitous: "claimed is at spoofer"
                net.receive(f);
            }
        }
        sent.expectNone();
        assertThat(stack.counters().arpClaims).isEqualTo(4);
        answersArpForGatewayAndDnsOnly(); // still answers as itself, to the real guest
    }

    private static String cString(MemorySegment s, long off) {
        StringBuilder b = new StringBuilder();
        for (long p = off; Bytes.u8(s, p) != 0; p++) b.append((char) Bytes.u8(s, p));
        return b.toString();
    }

    private static String stringOption(MemorySegment reply, int code) {
        long v = Dhcp.findOption(reply, DHCP, Udp.length(reply, 34) - 8, code);
        assertThat(v).as("option %d", code).isPositive();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Bytes.u8(reply, v - 1); i++) b.append((char) Bytes.u8(reply, v + i));
        return b.toString();
    }

    private MemorySegment dhcpExchange(int type, int requested) {
        MemorySegment reply = dhcp(GUEST_MAC, type, requested);
        assertThat(reply).as("a reply").isNotNull();
        return reply;
    }

    /** One DHCP message from mac (also the frame's source MAC); the reply, or null when none. */
    private MemorySegment dhcp(long mac, int type, int requested) {
        sent.drain();
        byte[] m = new byte[Dhcp.FIXED_LENGTH + 12];
        MemorySegment d = MemorySegment.ofArray(m);
        Bytes.u8(d, 0, Dhcp.OP_REQUEST);
        Bytes.u8(d, 1, 1);
        Bytes.u8(d, 2, 6);
        Bytes.u32(d, 4, 0xCAFE);
        Bytes.mac(d, 28, mac);
        Bytes.u32(d, 236, Dhcp.MAGIC_COOKIE);
        long o = Dhcp.FIXED_LENGTH;
        Bytes.u8(d, o, Dhcp.OPT_MESSAGE_TYPE);
        Bytes.u8(d, o + 1, 1);
        Bytes.u8(d, o + 2, type);
        Bytes.u8(d, o + 3, Dhcp.OPT_REQUESTED_IP);
        Bytes.u8(d, o + 4, 4);
        Bytes.u32(d, o + 5, requested);
        Bytes.u8(d, o + 9, Dhcp.OPT_END);
        net.receive(FrameBuilder.v4(0, 0xffffffff).macs(mac, Ethernet.BROADCAST).udp(Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT).payload(m).build());
        if (sent.waiting() == 0) return null;
        assertThat(sent.waiting()).isEqualTo(1);
        MemorySegment reply = sent.expect(ethDst(mac), ipv4(src("10.0.2.2"), dst("255.255.255.255"), udp(dstPort(Dhcp.CLIENT_PORT))));
        assertThat(Dhcp.xid(reply, DHCP)).isEqualTo(0xCAFE);
        return reply;
    }

    private static int option(MemorySegment reply, int code) {
        int len = Udp.length(reply, 34) - 8;
        long v = Dhcp.findOption(reply, DHCP, len, code);
        assertThat(v).as("option %d", code).isPositive();
        return switch (Bytes.u8(reply, v - 1)) {
            case 1 -> Bytes.u8(reply, v);
            case 2 -> Bytes.u16(reply, v);
            default -> Bytes.u32(reply, v);
        };
    }

    @Test
    void handsOtherUdpToTheTransport() {
        net.receive(FrameBuilder.v4(GUEST, DNS).udp(40000, 53).payload(5).build());
        assertThat(net.transport).containsExactly("udp 10.0.2.100:40000 -> 10.0.2.3:53 5");
    }

    @Test
    void countsAndDropsMalformedFrames() {
        MemorySegment f = FrameBuilder.v4(GUEST, GATEWAY).udp(40000, 9).payload(5).build();
        stack.receive(f, 5);                       // shorter than an Ethernet header
        stack.receive(f, 30);                      // IPv4 header cut short
        net.receive(FrameBuilder.v4(GUEST, GATEWAY).udp(40000, 9).payload(5).claimPayloadLength(180).build()); // total length beyond the frame
        MemorySegment tcp = FrameBuilder.v4(GUEST, GATEWAY).raw(Ipv4.PROTO_TCP).payload(10).build(); // TCP header truncated
        net.receive(tcp);
        MemorySegment arp = arena.allocate(30);
        Ethernet.write(arp, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_ARP);
        net.receive(arp);                          // ARP truncated
        assertThat(stack.counters().malformed).isEqualTo(5);
        assertThat(stack.counters().framesIn).isEqualTo(5);
        sent.expectNone();
        assertThat(net.transport).isEmpty();
    }

    @Test
    void aDatagramLargerThanTheMtuGoesInFragments() {
        int guest = addresses.acquire4(GUEST), gateway = addresses.acquire4(GATEWAY);
        MemorySegment tx = stack.ipv4().frame();
        int payload = 4000;
        for (int i = 0; i < payload; i++) tx.set(java.lang.foreign.ValueLayout.JAVA_BYTE, stack.ipv4().udpPayloadOffset() + i, (byte) i);
        stack.ipv4().sendUdp(gateway, 9, guest, 40000, payload);
        int offset = 0;
        byte[] whole = new byte[8 + payload];
        for (MemorySegment f : sent.drain()) {
            io.jslirp.check.Checker.expect(f, ipv4(src("10.0.2.2"), dst("10.0.2.100")));
            assertThat(f.byteSize()).isLessThanOrEqualTo(14 + 1500);
            assertThat(Ipv4.fragmentOffset(f, 14)).isEqualTo(offset);
            int n = Ipv4.totalLength(f, 14) - 20;
            MemorySegment.copy(f, java.lang.foreign.ValueLayout.JAVA_BYTE, 34, whole, offset, n);
            offset += n;
            assertThat(Ipv4.moreFragments(f, 14)).isEqualTo(offset < whole.length);
        }
        assertThat(offset).isEqualTo(whole.length);
        int pseudo = Checksum.pseudoHeader4(GATEWAY, GUEST, Ipv4.PROTO_UDP, whole.length);
        assertThat(Checksum.verify(MemorySegment.ofArray(whole), 0, whole.length, pseudo)).as("the whole datagram's UDP checksum").isTrue();
    }
}
