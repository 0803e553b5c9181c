package io.jslirp.stack;

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
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's own services through an in-memory link: frames in, frames out. */
class StackTest {
    private static final long GUEST_MAC = 0x0200_0000_0001L;
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final int GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int DNS = Ipv4.parse("10.0.2.3");

    private final Arena arena = Arena.ofAuto();
    private final List<MemorySegment> sent = new ArrayList<>();
    private final List<String> transport = new ArrayList<>();
    private final AddressBook addresses = new AddressBook();
    private Stack stack = stackWithBootFile(null);

    private Stack stackWithBootFile(String bootFile) {
        Stack s = new Stack(NetworkConfig.defaults(), bootFile, (frame, length) -> {
            MemorySegment copy = arena.allocate(length);
            MemorySegment.copy(frame, 0, copy, 0, length);
            sent.add(copy);
            return true;
        }, new Counters(), addresses);
        s.setTransport(new Transport() {
            @Override
            public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
                transport.add("tcp " + length);
            }

            @Override
            public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
                transport.add("udp " + addresses.format(destination) + ":" + destinationPort + " " + length);
            }

            @Override
            public void icmpEcho(MemorySegment frame, long offset, int length, int source, int destination) {
                transport.add("ping " + addresses.format(destination) + " " + length);
            }
        });
        return s;
    }

    private MemorySegment frame(int size) {
        return arena.allocate(size);
    }

    @Test
    void answersArpForGatewayAndDnsOnly() {
        for (int target : new int[] {GATEWAY, DNS, Ipv4.parse("10.0.2.50")}) {
            MemorySegment f = frame(42);
            Ethernet.write(f, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_ARP);
            Arp.write(f, 14, Arp.REQUEST, GUEST_MAC, GUEST, 0, target);
            stack.receive(f, 42);
        }
        assertThat(sent).hasSize(2);
        MemorySegment reply = sent.getFirst();
        assertThat(Ethernet.destination(reply, 0)).isEqualTo(GUEST_MAC);
        assertThat(Arp.operation(reply, 14)).isEqualTo(Arp.REPLY);
        assertThat(Arp.senderIp(reply, 14)).isEqualTo(GATEWAY);
        assertThat(Arp.senderMac(reply, 14)).isEqualTo(0x5255_0a00_0202L);
        assertThat(Arp.targetIp(reply, 14)).isEqualTo(GUEST);
        assertThat(Arp.senderIp(sent.get(1), 14)).isEqualTo(DNS);
    }

    @Test
    void handsPingToOtherHostsToTheTransport() {
        int icmpLen = 8 + 16;
        MemorySegment f = ipv4Frame(Ipv4.PROTO_ICMP, GUEST, Ipv4.parse("192.0.2.1"), icmpLen);
        Bytes.u8(f, 34, Icmpv4.ECHO_REQUEST);
        Bytes.u16(f, 38, 0x1234);
        Icmpv4.fillChecksum(f, 34, icmpLen);
        stack.receive(f, 14 + 20 + icmpLen);

        assertThat(sent).isEmpty();
        assertThat(transport).containsExactly("ping 192.0.2.1 " + icmpLen);
    }

    @Test
    void answersPingToTheGateway() {
        int icmpLen = 8 + 56;
        MemorySegment f = ipv4Frame(Ipv4.PROTO_ICMP, GUEST, GATEWAY, icmpLen);
        Bytes.u8(f, 34, Icmpv4.ECHO_REQUEST);
        Bytes.u16(f, 38, 0x1234);
        Bytes.u16(f, 40, 7);
        for (int i = 0; i < 56; i++) Bytes.u8(f, 42 + i, i);
        Icmpv4.fillChecksum(f, 34, icmpLen);
        stack.receive(f, 14 + 20 + icmpLen);

        assertThat(sent).hasSize(1);
        MemorySegment reply = sent.getFirst();
        assertThat(Ipv4.check(reply, 14, 20 + icmpLen)).isNull();
        assertThat(Ipv4.source(reply, 14)).isEqualTo(GATEWAY);
        assertThat(Ipv4.destination(reply, 14)).isEqualTo(GUEST);
        assertThat(Icmpv4.type(reply, 34)).isEqualTo(Icmpv4.ECHO_REPLY);
        assertThat(Bytes.u16(reply, 38)).isEqualTo(0x1234);
        assertThat(Bytes.u16(reply, 40)).isEqualTo(7);
        assertThat(Checksum.of(reply, 34, icmpLen)).isZero();
        assertThat(reply.asSlice(42, 56).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(f.asSlice(42, 56).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void unreachableQuotesTheGuestsDatagramHeader() {
        int remote = Ipv4.parse("192.0.2.1");
        long tcpHead = (40000L << 48) | (80L << 32) | 0xdeadbeefL;
        stack.sendUnreachable(Icmpv4.CODE_HOST_UNREACHABLE, Ipv4.PROTO_TCP, addresses.acquire4(GUEST), addresses.acquire4(remote), tcpHead);

        assertThat(sent).hasSize(1);
        MemorySegment m = sent.getFirst();
        int icmpLen = 8 + 20 + 8;
        assertThat(Ipv4.check(m, 14, 20 + icmpLen)).isNull();
        assertThat(Ipv4.source(m, 14)).isEqualTo(GATEWAY);
        assertThat(Ipv4.destination(m, 14)).isEqualTo(GUEST);
        assertThat(Ipv4.protocol(m, 14)).isEqualTo(Ipv4.PROTO_ICMP);
        assertThat(Icmpv4.type(m, 34)).isEqualTo(Icmpv4.DEST_UNREACHABLE);
        assertThat(Icmpv4.code(m, 34)).isEqualTo(Icmpv4.CODE_HOST_UNREACHABLE);
        assertThat(Checksum.of(m, 34, icmpLen)).isZero();
        long quoted = 34 + 8;
        assertThat(Ipv4.check(m, quoted, 28)).isNull();
        assertThat(Ipv4.source(m, quoted)).isEqualTo(GUEST);
        assertThat(Ipv4.destination(m, quoted)).isEqualTo(remote);
        assertThat(Ipv4.protocol(m, quoted)).isEqualTo(Ipv4.PROTO_TCP);
        assertThat(Bytes.u16(m, quoted + 20)).isEqualTo(40000);
        assertThat(Bytes.u16(m, quoted + 22)).isEqualTo(80);
        assertThat(Bytes.u32(m, quoted + 24)).isEqualTo(0xdeadbeef);
        assertThat(stack.counters().unreachableSent).isEqualTo(1);
    }

    @Test
    void dhcpOffersThePoolAndAcksTheRequest() {
        MemorySegment offer = dhcpExchange(Dhcp.DISCOVER, 0);
        int offered = Bytes.u32(offer, 42 + 16);
        assertThat(Ipv4.format(offered)).isEqualTo("10.0.2.15");
        assertThat(option(offer, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.OFFER);
        assertThat(option(offer, Dhcp.OPT_ROUTER)).isEqualTo(GATEWAY);
        assertThat(option(offer, Dhcp.OPT_DNS)).isEqualTo(DNS);
        assertThat(option(offer, Dhcp.OPT_SUBNET_MASK)).isEqualTo(0xffffff00);
        assertThat(option(offer, Dhcp.OPT_MTU)).isEqualTo(1500);
        assertThat(option(offer, Dhcp.OPT_LEASE_TIME)).isEqualTo(86400);

        MemorySegment ack = dhcpExchange(Dhcp.REQUEST, offered);
        assertThat(option(ack, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.ACK);
        assertThat(Bytes.u32(ack, 42 + 16)).isEqualTo(offered);

        MemorySegment nak = dhcpExchange(Dhcp.REQUEST, Ipv4.parse("10.0.2.99"));
        assertThat(option(nak, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.NAK);
    }

    @Test
    void dhcpNamesTheBootFileAndTheGatewayAsTftpServer() {
        MemorySegment plain = dhcpExchange(Dhcp.DISCOVER, 0);
        assertThat(Dhcp.findOption(plain, 42, Udp.length(plain, 34) - 8, Dhcp.OPT_BOOTFILE)).isNegative();
        assertThat(Bytes.u8(plain, 42 + Dhcp.FILE_OFFSET)).isZero();

        stack = stackWithBootFile("pxelinux.0");
        MemorySegment offer = dhcpExchange(Dhcp.DISCOVER, 0);
        assertThat(Bytes.u32(offer, 42 + 20)).as("siaddr").isEqualTo(GATEWAY);
        assertThat(cString(offer, 42 + Dhcp.FILE_OFFSET)).isEqualTo("pxelinux.0");
        assertThat(stringOption(offer, Dhcp.OPT_BOOTFILE)).isEqualTo("pxelinux.0");
        assertThat(stringOption(offer, Dhcp.OPT_TFTP_SERVER)).isEqualTo("10.0.2.2");
    }

    @Test
    void dhcpStarvationWithMadeUpMacsDoesNotLockOutTheNextClient() {
        long[] now = {0};
        stack.setClock(() -> now[0]);
        for (int i = 0; i < 40; i++) { // 16 leases bound, then 24 more clients that get nothing
            long fake = 0x0266_0000_0000L + i;
            MemorySegment offer = dhcp(fake, Dhcp.DISCOVER, 0);
            if (i < 16) dhcpRequestAcked(fake, Bytes.u32(offer, 42 + 16));
            else assertThat(offer).as("pool full of fresh leases").isNull();
        }
        now[0] += 9_000_000_000L;
        assertThat(dhcp(GUEST_MAC, Dhcp.DISCOVER, 0)).as("leases bound 9 s ago are not taken back").isNull();
        now[0] += 1_000_000_000L;
        // Nothing ever came from those addresses: the oldest lease goes to the next real client.
        MemorySegment offer = dhcp(GUEST_MAC, Dhcp.DISCOVER, 0);
        assertThat(offer).isNotNull();
        assertThat(Ipv4.format(Bytes.u32(offer, 42 + 16))).isEqualTo("10.0.2.15");
        assertThat(option(dhcpExchange(Dhcp.REQUEST, Ipv4.parse("10.0.2.15")), Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(Dhcp.ACK);
        MemorySegment nak = dhcp(0x0266_0000_0000L, Dhcp.REQUEST, Ipv4.parse("10.0.2.15"));
        assertThat(option(nak, Dhcp.OPT_MESSAGE_TYPE)).as("the former holder renews").isEqualTo(Dhcp.NAK);
    }

    @Test
    void dhcpNeverTakesBackALeaseInUse() {
        long[] now = {0};
        stack.setClock(() -> now[0]);
        for (int i = 0; i < 16; i++) {
            long client = 0x0266_0000_0000L + i;
            int address = Bytes.u32(dhcp(client, Dhcp.DISCOVER, 0), 42 + 16);
            if (i == 5) continue; // offered, never requested
            dhcpRequestAcked(client, address);
            MemorySegment ping = ipv4Frame(Ipv4.PROTO_ICMP, address, GATEWAY, 8); // the address is used
            Ethernet.write(ping, 0, 0x5255_0a00_0202L, client, Ethernet.TYPE_IPV4);
            stack.receive(ping, 42);
        }
        now[0] += 60_000_000_000L;
        MemorySegment offer = dhcp(GUEST_MAC, Dhcp.DISCOVER, 0);
        assertThat(Ipv4.format(Bytes.u32(offer, 42 + 16))).as("the unrequested offer").isEqualTo("10.0.2.20");
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
        sent.clear();
        stack.sendUdp(addresses.acquire4(GATEWAY), 9, addresses.acquire4(GUEST), 40000, 0);
        assertThat(Ethernet.destination(sent.getFirst(), 0)).isEqualTo(GUEST_MAC);
    }

    @Test
    void ignoresArpClaimsForTheGatewaysAddresses() {
        long spoofer = 0x0266_0000_0009L;
        for (int op : new int[] {Arp.REQUEST, Arp.REPLY}) {
            for (int claimed : new int[] {GATEWAY, DNS}) {
                MemorySegment f = frame(42);
                Ethernet.write(f, 0, Ethernet.BROADCAST, spoofer, Ethernet.TYPE_ARP);
                Arp.write(f, 14, op, spoofer, claimed, 0, claimed); // gratuitous: "claimed is at spoofer"
                stack.receive(f, 42);
            }
        }
        assertThat(sent).isEmpty();
        assertThat(stack.counters().arpClaims).isEqualTo(4);
        answersArpForGatewayAndDnsOnly(); // still answers as itself, to the real guest
    }

    private static String cString(MemorySegment s, long off) {
        StringBuilder b = new StringBuilder();
        for (long p = off; Bytes.u8(s, p) != 0; p++) b.append((char) Bytes.u8(s, p));
        return b.toString();
    }

    private static String stringOption(MemorySegment reply, int code) {
        long v = Dhcp.findOption(reply, 42, Udp.length(reply, 34) - 8, code);
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
        sent.clear();
        int len = Dhcp.FIXED_LENGTH + 12;
        MemorySegment f = ipv4Frame(Ipv4.PROTO_UDP, 0, 0xffffffff, 8 + len);
        long d = 42;
        Bytes.u8(f, d, Dhcp.OP_REQUEST);
        Bytes.u8(f, d + 1, 1);
        Bytes.u8(f, d + 2, 6);
        Bytes.u32(f, d + 4, 0xCAFE);
        Bytes.mac(f, d + 28, mac);
        Ethernet.write(f, 0, Ethernet.BROADCAST, mac, Ethernet.TYPE_IPV4);
        Bytes.u32(f, d + 236, Dhcp.MAGIC_COOKIE);
        long o = d + Dhcp.FIXED_LENGTH;
        Bytes.u8(f, o, Dhcp.OPT_MESSAGE_TYPE);
        Bytes.u8(f, o + 1, 1);
        Bytes.u8(f, o + 2, type);
        Bytes.u8(f, o + 3, Dhcp.OPT_REQUESTED_IP);
        Bytes.u8(f, o + 4, 4);
        Bytes.u32(f, o + 5, requested);
        Bytes.u8(f, o + 9, Dhcp.OPT_END);
        Udp.write4(f, 34, Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT, len, 0, 0xffffffff);
        stack.receive(f, 42 + len);
        if (sent.isEmpty()) return null;
        assertThat(sent).hasSize(1);
        MemorySegment reply = sent.getFirst();
        assertThat(Udp.destinationPort(reply, 34)).isEqualTo(Dhcp.CLIENT_PORT);
        assertThat(Dhcp.xid(reply, 42)).isEqualTo(0xCAFE);
        return reply;
    }

    private static int option(MemorySegment reply, int code) {
        int len = Udp.length(reply, 34) - 8;
        long v = Dhcp.findOption(reply, 42, len, code);
        assertThat(v).as("option %d", code).isPositive();
        return switch (Bytes.u8(reply, v - 1)) {
            case 1 -> Bytes.u8(reply, v);
            case 2 -> Bytes.u16(reply, v);
            default -> Bytes.u32(reply, v);
        };
    }

    @Test
    void handsOtherUdpToTheTransport() {
        MemorySegment f = ipv4Frame(Ipv4.PROTO_UDP, GUEST, DNS, 8 + 5);
        Udp.write4(f, 34, 40000, 53, 5, GUEST, DNS);
        stack.receive(f, 42 + 5);
        assertThat(transport).containsExactly("udp 10.0.2.3:53 5");
    }

    @Test
    void countsAndDropsMalformedFrames() {
        MemorySegment f = ipv4Frame(Ipv4.PROTO_UDP, GUEST, GATEWAY, 8 + 5);
        Udp.write4(f, 34, 40000, 9, 5, GUEST, GATEWAY);
        stack.receive(f, 5);                       // shorter than an Ethernet header
        stack.receive(f, 30);                      // IPv4 header cut short
        Bytes.u16(f, 14 + 2, 200);                 // total length beyond the frame
        Bytes.u16(f, 14 + 10, 0);
        Bytes.u16(f, 14 + 10, Checksum.of(f, 14, 20));
        stack.receive(f, 47);
        MemorySegment tcp = ipv4Frame(Ipv4.PROTO_TCP, GUEST, GATEWAY, 10); // TCP header truncated
        stack.receive(tcp, 44);
        MemorySegment arp = frame(30);
        Ethernet.write(arp, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_ARP);
        stack.receive(arp, 30);                    // ARP truncated
        assertThat(stack.counters().malformed).isEqualTo(5);
        assertThat(stack.counters().framesIn).isEqualTo(5);
        assertThat(sent).isEmpty();
        assertThat(transport).isEmpty();
    }

    private MemorySegment ipv4Frame(int protocol, int src, int dst, int l4Len) {
        MemorySegment f = frame(14 + 20 + l4Len);
        Ethernet.write(f, 0, 0x5255_0a00_0202L, GUEST_MAC, Ethernet.TYPE_IPV4);
        Ipv4.write(f, 14, 20 + l4Len, 1, 64, protocol, src, dst);
        return f;
    }
}
