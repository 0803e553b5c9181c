package io.jslirp.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A composable checker for the frames the stack sends, in the style of gVisor's
 * {@code pkg/tcpip/checker}: a layer's check parses and validates its header, always verifying
 * every checksum it covers (IPv4's header checksum, TCP's, UDP's, ICMP's and ICMPv6's with their
 * pseudo-headers), then runs the checks nested in it on what it found.
 * <pre>
 * expect(frame, ipv6(src("fd00::2"), dst(guest)), tcp(flags(Tcp.SYN | Tcp.ACK), ack(1), sack(100, 200)));
 * expect(frame, ipv4(ttl(64), icmp(type(Icmpv4.ECHO_REPLY), echoId(0x1234))));
 * </pre>
 */
public final class Checker {
    private Checker() {}

    /** One frame being checked, and what the layers parsed so far found in it. */
    public static final class Packet {
        final MemorySegment frame;
        final int length;
        IpVersion version;
        final IpHeader ip = new IpHeader();
        long ipOffset = Ethernet.HEADER_LENGTH;
        long l4;
        int l4Length;
        final TcpOptions options = new TcpOptions();

        Packet(MemorySegment frame, int length) {
            this.frame = frame;
            this.length = length;
        }

        public MemorySegment frame() {
            return frame;
        }

        public long l4() {
            return l4;
        }

        public int l4Length() {
            return l4Length;
        }

        public IpHeader ip() {
            return ip;
        }
    }

    /** A property of a packet, or a layer with checks of its own nested in it. */
    @FunctionalInterface
    public interface Check {
        void check(Packet p);
    }

    /** Runs the checks on the whole frame. */
    public static void expect(MemorySegment frame, Check... checks) {
        expect(frame, (int) frame.byteSize(), checks);
    }

    public static void expect(MemorySegment frame, int length, Check... checks) {
        assertThat(length).as("an Ethernet frame").isGreaterThanOrEqualTo(Ethernet.HEADER_LENGTH);
        Packet p = new Packet(frame, length);
        for (Check c : checks) c.check(p);
    }

    private static void all(Packet p, Check[] checks) {
        for (Check c : checks) c.check(p);
    }

    // ---- Ethernet ----

    public static Check ethSrc(long mac) {
        return p -> assertThat(Ethernet.source(p.frame, 0)).as("Ethernet source").isEqualTo(mac);
    }

    public static Check ethDst(long mac) {
        return p -> assertThat(Ethernet.destination(p.frame, 0)).as("Ethernet destination").isEqualTo(mac);
    }

    // ---- ARP ----

    /** An ARP packet, valid. */
    public static Check arp(Check... checks) {
        return p -> {
            assertThat(Ethernet.type(p.frame, 0)).as("EtherType").isEqualTo(Ethernet.TYPE_ARP);
            assertThat(Arp.check(p.frame, Ethernet.HEADER_LENGTH, p.length - Ethernet.HEADER_LENGTH)).as("ARP").isNull();
            all(p, checks);
        };
    }

    public static Check arpOperation(int op) {
        return p -> assertThat(Arp.operation(p.frame, Ethernet.HEADER_LENGTH)).as("ARP operation").isEqualTo(op);
    }

    public static Check arpSender(long mac, String ip) {
        return p -> {
            assertThat(Arp.senderMac(p.frame, Ethernet.HEADER_LENGTH)).as("ARP sender MAC").isEqualTo(mac);
            assertThat(Ipv4.format(Arp.senderIp(p.frame, Ethernet.HEADER_LENGTH))).as("ARP sender IP").isEqualTo(ip);
        };
    }

    public static Check arpTarget(String ip) {
        return p -> assertThat(Ipv4.format(Arp.targetIp(p.frame, Ethernet.HEADER_LENGTH))).as("ARP target IP").isEqualTo(ip);
    }

    // ---- IP ----

    /** An IPv4 packet: header checksum right, total length the frame's. */
    public static Check ipv4(Check... checks) {
        return ip(IpVersion.V4, checks);
    }

    /** An IPv6 packet: its payload length the frame's; extension headers walked to the upper layer (or a fragment). */
    public static Check ipv6(Check... checks) {
        return ip(IpVersion.V6, checks);
    }

    private static Check ip(IpVersion v, Check[] checks) {
        return p -> {
            assertThat(Ethernet.type(p.frame, 0)).as("EtherType").isEqualTo(v.etherType());
            int len = p.length - Ethernet.HEADER_LENGTH;
            assertThat(v.read(p.frame, Ethernet.HEADER_LENGTH, len, p.ip)).as("IPv%d header", v.number()).isNull();
            p.version = v;
            p.l4 = Ethernet.HEADER_LENGTH + p.ip.headerLength();
            p.l4Length = p.ip.payloadLength();
            assertThat(p.ip.headerLength() + p.l4Length).as("the IP packet fills the frame").isEqualTo(len);
            all(p, checks);
        };
    }

    public static Check src(String address) {
        return p -> assertThat(format(p, p.ip.sourceHi(), p.ip.sourceLo())).as("source address").isEqualTo(address);
    }

    public static Check dst(String address) {
        return p -> assertThat(format(p, p.ip.destinationHi(), p.ip.destinationLo())).as("destination address").isEqualTo(address);
    }

    private static String format(Packet p, long hi, long lo) {
        return p.version == IpVersion.V4 ? Ipv4.format((int) lo) : Ipv6.format(hi, lo);
    }

    /** IPv4's TTL or IPv6's hop limit. */
    public static Check ttl(int ttl) {
        return p -> assertThat(p.ip.ttl()).as("TTL / hop limit").isEqualTo(ttl);
    }

    /** A fragment carrying bytes from offset on; more: others follow. Its transport is checked only once reassembled. */
    public static Check fragment(int offset, boolean more) {
        return p -> {
            assertThat(p.ip.isFragment()).as("a fragment").isTrue();
            assertThat(p.ip.fragmentOffset()).as("fragment offset").isEqualTo(offset);
            assertThat(p.ip.moreFragments()).as("more fragments").isEqualTo(more);
        };
    }

    public static Check notFragment() {
        return p -> assertThat(p.ip.isFragment()).as("a fragment").isFalse();
    }

    // ---- transport ----

    /** A TCP segment, checksum verified with the pseudo-header. */
    public static Check tcp(Check... checks) {
        return p -> {
            transport(p, Ipv4.PROTO_TCP);
            assertThat(Tcp.check(p.frame, p.l4, p.l4Length, p.version, p.ip, p.options)).as("TCP header, options and checksum").isNull();
            all(p, checks);
        };
    }

    /** A UDP datagram, its length the IP payload's, its checksum present and right. */
    public static Check udp(Check... checks) {
        return p -> {
            transport(p, Ipv4.PROTO_UDP);
            assertThat(Udp.check(p.frame, p.l4, p.l4Length)).as("UDP header").isNull();
            assertThat(Udp.length(p.frame, p.l4)).as("UDP length").isEqualTo(p.l4Length);
            assertThat(Udp.checksum(p.frame, p.l4)).as("a UDP checksum").isNotZero();
            assertThat(Udp.check(p.frame, p.l4, p.l4Length, p.version, p.ip, false)).as("UDP checksum").isNull();
            all(p, checks);
        };
    }

    /** An ICMP (over IPv6: ICMPv6) message, checksum verified. */
    public static Check icmp(Check... checks) {
        return p -> {
            transport(p, p.version.icmpProtocol());
            assertThat(Icmp.check(p.frame, p.l4, p.l4Length, p.version, p.ip)).as("ICMP checksum").isNull();
            all(p, checks);
        };
    }

    private static void transport(Packet p, int protocol) {
        assertThat(p.version).as("inside an IP check").isNotNull();
        assertThat(p.ip.isFragment()).as("a whole datagram").isFalse();
        assertThat(p.ip.protocol()).as("protocol").isEqualTo(protocol);
    }

    public static Check srcPort(int port) {
        return p -> assertThat(Udp.sourcePort(p.frame, p.l4)).as("source port").isEqualTo(port);
    }

    public static Check dstPort(int port) {
        return p -> assertThat(Udp.destinationPort(p.frame, p.l4)).as("destination port").isEqualTo(port);
    }

    /** TCP flags, exactly. */
    public static Check flags(int flags) {
        return p -> assertThat(Tcp.flags(p.frame, p.l4)).as("TCP flags").isEqualTo(flags);
    }

    public static Check seq(int seq) {
        return p -> assertThat(Tcp.seq(p.frame, p.l4)).as("TCP seq").isEqualTo(seq);
    }

    public static Check ack(int ack) {
        return p -> assertThat(Tcp.ack(p.frame, p.l4)).as("TCP ack").isEqualTo(ack);
    }

    public static Check window(int window) {
        return p -> assertThat(Tcp.window(p.frame, p.l4)).as("TCP window").isEqualTo(window);
    }

    public static Check mss(int mss) {
        return p -> assertThat(p.options.mss).as("TCP MSS option").isEqualTo(mss);
    }

    /** SACK blocks, as left and right edges in turn. */
    public static Check sack(int... edges) {
        return p -> assertThat(Arrays.copyOf(p.options.sackEdges, 2 * p.options.sackBlocks)).as("SACK blocks").containsExactly(edges);
    }

    /** The transport payload (after the TCP or UDP header; for ICMP after its 8-byte header). */
    public static Check payload(byte[] bytes) {
        return p -> assertThat(payloadOf(p)).as("payload").isEqualTo(bytes);
    }

    public static Check payloadLength(int length) {
        return p -> assertThat(payloadOf(p).length).as("payload length").isEqualTo(length);
    }

    private static byte[] payloadOf(Packet p) {
        int header = p.ip.protocol() == Ipv4.PROTO_TCP ? Tcp.headerLength(p.frame, p.l4)
                : p.ip.protocol() == Ipv4.PROTO_UDP ? Udp.HEADER_LENGTH : Icmp.HEADER_LENGTH;
        return p.frame.asSlice(p.l4 + header, p.l4Length - header).toArray(ValueLayout.JAVA_BYTE);
    }

    public static Check type(int type) {
        return p -> assertThat(Icmp.type(p.frame, p.l4)).as("ICMP type").isEqualTo(type);
    }

    public static Check code(int code) {
        return p -> assertThat(Icmp.code(p.frame, p.l4)).as("ICMP code").isEqualTo(code);
    }

    /** The 4 bytes after an ICMP checksum: echo identifier and sequence, a Parameter Problem's pointer. */
    public static Check rest(int rest) {
        return p -> assertThat(Icmp.rest(p.frame, p.l4)).as("ICMP rest of header").isEqualTo(rest);
    }

    /**
     * An ICMP error's quoted packet: its IP header (checked as {@link #ipv4}/{@link #ipv6} check,
     * but for a length that may exceed what was quoted) with checks on it, e.g. its addresses.
     */
    public static Check quoted(Check... checks) {
        return p -> {
            long at = p.l4 + Icmp.HEADER_LENGTH;
            int len = p.l4Length - Icmp.HEADER_LENGTH;
            Packet q = new Packet(p.frame, p.length);
            q.version = p.version;
            if (p.version == IpVersion.V4) {
                assertThat(Ipv4.check(p.frame, at, len)).as("quoted IPv4 header").isNull();
                Ipv4.read(p.frame, at, len, q.ip);
            } else {
                assertThat(len).as("quoted IPv6 header").isGreaterThanOrEqualTo(Ipv6.HEADER_LENGTH);
                q.ip.source(Ipv6.sourceHi(p.frame, at), Ipv6.sourceLo(p.frame, at))
                        .destination(Ipv6.destinationHi(p.frame, at), Ipv6.destinationLo(p.frame, at))
                        .protocol(Ipv6.nextHeader(p.frame, at)).ttl(Ipv6.hopLimit(p.frame, at));
            }
            q.ipOffset = at;
            q.l4 = at + p.version.headerLength();
            q.l4Length = len - p.version.headerLength();
            all(q, checks);
        };
    }

    public static Check protocol(int protocol) {
        return p -> assertThat(p.ip.protocol()).as("protocol").isEqualTo(protocol);
    }

    /** The quoted transport header's first 8 bytes (ports and sequence number of TCP). */
    public static Check quotedTransport(long head) {
        return p -> assertThat(((long) Bytes.u32(p.frame, p.l4) << 32) | (Bytes.u32(p.frame, p.l4 + 4) & 0xffffffffL))
                .as("quoted transport header").isEqualTo(head);
    }

    /** Checks over the raw bytes from the transport header on (for messages the checker has no layer for: NDP, DHCP). */
    public static Check at(java.util.function.BiConsumer<MemorySegment, Long> check) {
        return p -> check.accept(p.frame, p.l4);
    }
}
