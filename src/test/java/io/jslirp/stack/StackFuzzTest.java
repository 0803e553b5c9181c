package io.jslirp.stack;

import io.jslirp.check.Checker;
import io.jslirp.service.DhcpServer;
import io.jslirp.service.Dhcpv6Server;
import io.jslirp.service.LinkServices;
import io.jslirp.service.RouterAdvertisements;
import io.jslirp.util.AddressBook;

import static io.jslirp.check.Checker.icmp;
import static io.jslirp.check.Checker.udp;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.Udp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutated guest frames into the stack, IPv6 on: valid ARP, ping, DHCP, UDP, TCP and fragment
 * frames, and over IPv6 echo, Neighbor and Router Solicitations, DHCPv6, UDP, TCP, extension headers
 * (hop-by-hop, destination options, routing, unknown next headers) and fragments, with bytes
 * flipped, fields overwritten, lengths cut or grown, and plain random bytes; some arrive as if the
 * tap's vnet header vouched for their checksums. Whatever arrives, nothing throws, every frame is
 * counted and dropped at most once, a frame left intact is never taken for a bad checksum, what
 * reaches the transport lies inside the frame it came in, IPv6 addresses are held only for the
 * call, and every frame the stack sends is well formed (IPv4 and IPv6 headers, ICMP, ICMPv6 and
 * UDP checksums valid, as {@link Checker} checks them).
 *
 * <p>The quick run feeds {@code jslirp.fuzz.seeds} × 1,000 frames (default 300 seeds) from seed
 * {@code jslirp.fuzz.base}; {@code scripts/fuzz.sh} runs many more. A failure names its seed.
 */
class StackFuzzTest {
    private static final long GUEST_MAC = 0x0200_0000_0001L;
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final int GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int DNS = Ipv4.parse("10.0.2.3");
    private static final long ROUTER_MAC = 0x5255_0a00_0202L;
    private static final long[] GUEST6 = Ipv6.parse("fd00::1:2:3:4"), GUEST6_LL = Ipv6.parse("fe80::1:2:3:4");
    private static final long[] GATEWAY6 = Ipv6.parse("fd00::2"), DNS6 = Ipv6.parse("fd00::3"), ROUTER_LL = Ipv6.parse("fe80::2");
    private static final long[] UNSPECIFIED = {0, 0}, ALL_ROUTERS = Ipv6.parse("ff02::2"), SOLICITED_NODE = Ipv6.parse("ff02::1:ff00:2");
    private static final int FRAMES = 1000;

    private final Arena arena = Arena.ofAuto();
    final MemorySegment frame = arena.allocate(Ethernet.HEADER_LENGTH + 65536 + 64);
    private long sent, sent6, transportCalls;
    /** Whether the frame {@link #template} just built carries checksums of its own (a fragment's are the whole datagram's). */
    private boolean checksummed;

    @Test
    void mutatedFramesAreCountedAndAnsweredOnlyWithWellFormedFrames() {
        long base = Long.getLong("jslirp.fuzz.base", 1);
        int seeds = Integer.getInteger("jslirp.fuzz.seeds", 300);
        long malformed = 0;
        for (long seed = base; seed < base + seeds; seed++) {
            try {
                malformed += run(new SplittableRandom(seed));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("fuzz seed " + seed + " (replay: -Djslirp.fuzz.base=" + seed
                        + " -Djslirp.fuzz.seeds=1): " + e.getMessage(), e);
            }
        }
        System.out.printf("stack fuzz: %d frames in, %d counted malformed, %d frames out (%d IPv6), %d handed to the transport%n",
                (long) seeds * FRAMES, malformed, sent, sent6, transportCalls);
        assertThat(sent).as("the stack answered some frames").isPositive();
        assertThat(sent6).as("the IPv6 router answered some frames").isPositive();
        assertThat(transportCalls).as("some frames reached the transport").isPositive();
    }

    private long run(SplittableRandom rnd) {
        Harness h = new Harness();
        Counters counters = h.counters;
        for (int i = 0; i < FRAMES; i++) {
            int length = rnd.nextInt(3) == 0 ? template6(rnd) : template(rnd);
            boolean intact = checksummed;
            int mutated = mutate(rnd, length);
            intact &= mutated == length && unchanged;
            long badBefore = counters.badChecksum;
            h.stack.receive(frame, mutated, rnd.nextInt(4) == 0);
            if (intact) assertThat(counters.badChecksum).as("an intact frame's checksums are right").isEqualTo(badBefore);
        }
        h.checkAccounting(FRAMES);
        sent += h.sent;
        sent6 += h.sent6;
        transportCalls += h.transportCalls;
        return counters.malformed;
    }

    /**
     * A stack as the engine has one, IPv6 and the link services (DHCP, DHCPv6, Router
     * Advertisements) on, whose every frame sent is checked ({@link #checkSent}) and whose
     * transport checks that what reaches it lies inside its frame.
     */
    static final class Harness {
        final Counters counters = new Counters();
        final AddressBook addresses = new AddressBook(); // one for both versions, as the engine's
        final Stack stack;
        private final int held;
        long sent, sent6, transportCalls;

        Harness() {
            FrameSink sink = (f, length) -> {
                checkSent(f, length);
                sent++;
                if (Ethernet.type(f, 0) == Ethernet.TYPE_IPV6) sent6++;
                return true;
            };
            NetworkConfig config = NetworkConfig.defaults();
            Ipv6Network network6 = Ipv6Network.defaults(config);
            stack = new Stack(config, network6, sink, counters, addresses);
            stack.setServices(new LinkServices(new DhcpServer(config, null, stack.ipv4()), new Dhcpv6Server(stack.ipv6(), network6),
                    new RouterAdvertisements(stack.ipv6(), network6)));
            held = addresses.size();
            stack.setTransport(new Transport() {
                @Override
                public void tcp(io.jslirp.wire.TcpSegment segment) {
                    inside(segment.frame(), segment.offset(), segment.length());
                }

                @Override
                public void udp(io.jslirp.wire.UdpDatagram d) {
                    inside(d.frame(), d.payloadOffset(), d.payloadLength());
                }

                @Override
                public void icmpEcho(io.jslirp.wire.IcmpEcho e) {
                    inside(e.frame(), e.offset(), e.length());
                }
            });
        }

        private void inside(MemorySegment f, long offset, int length) {
            transportCalls++;
            assertThat(length).isNotNegative();
            assertThat(offset + length).as("payload inside its frame").isLessThanOrEqualTo(f.byteSize());
        }

        /** Frames dropped for a counted reason plus those handed to the transport. */
        long accounted() {
            return counters.malformed + counters.badChecksum + counters.unsupported + transportCalls;
        }

        /** After frames frames: each counted in, dropped or handed on at most once, and no address held past its call. */
        void checkAccounting(long frames) {
            checkAccounting(frames, 0);
        }

        /** The same after frames frames and datagrams handed to a service (TFTP's) directly, each of which it may count dropped. */
        void checkAccounting(long frames, long datagrams) {
            assertThat(counters.framesIn).isEqualTo(frames);
            assertThat(accounted()).as("each frame dropped or handed on at most once").isLessThanOrEqualTo(frames + datagrams);
            assertThat(addresses.size()).as("addresses held past the call: the virtual hosts' and at most the guest's of each version")
                    .isLessThanOrEqualTo(held + 2);
        }
    }

    /** A valid frame of a random kind in {@link #frame}; returns its length. */
    int template(SplittableRandom rnd) {
        frame.asSlice(0, 2048).fill((byte) 0);
        checksummed = true;
        int src = rnd.nextInt(8) == 0 ? rnd.nextInt() : GUEST;
        int dst = switch (rnd.nextInt(3)) {
            case 0 -> GATEWAY;
            case 1 -> DNS;
            default -> rnd.nextInt(4) == 0 ? rnd.nextInt() : GATEWAY;
        };
        Ethernet.write(frame, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_IPV4);
        long ip = Ethernet.HEADER_LENGTH, l4 = ip + Ipv4.MIN_HEADER_LENGTH;
        switch (rnd.nextInt(6)) {
            case 0 -> {
                Ethernet.write(frame, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_ARP);
                Arp.write(frame, ip, rnd.nextBoolean() ? Arp.REQUEST : Arp.REPLY, GUEST_MAC, src);
                Arp.writeTarget(frame, ip, 0, dst);
                return (int) ip + Arp.LENGTH;
            }
            case 1 -> {
                int len = Icmp.HEADER_LENGTH + rnd.nextInt(1400);
                Bytes.u8(frame, l4, Icmpv4.ECHO_REQUEST);
                Bytes.u16(frame, l4 + 4, rnd.nextInt(0x10000));
                Icmp.fillChecksum(frame, l4, len, 0);
                return ipv4(Ipv4.PROTO_ICMP, src, dst, len, 0);
            }
            case 2 -> {
                int len = Dhcp.FIXED_LENGTH + 16;
                long d = l4 + Udp.HEADER_LENGTH;
                Bytes.u8(frame, d, Dhcp.OP_REQUEST);
                Bytes.u8(frame, d + 1, 1);
                Bytes.u8(frame, d + 2, 6);
                Bytes.u32(frame, d + 4, rnd.nextInt());
                Bytes.u32(frame, d + 236, Dhcp.MAGIC_COOKIE);
                Bytes.u8(frame, d + 240, Dhcp.OPT_MESSAGE_TYPE);
                Bytes.u8(frame, d + 241, 1);
                Bytes.u8(frame, d + 242, rnd.nextBoolean() ? Dhcp.DISCOVER : Dhcp.REQUEST);
                Bytes.u8(frame, d + 243, Dhcp.OPT_REQUESTED_IP);
                Bytes.u8(frame, d + 244, 4);
                Bytes.u32(frame, d + 245, Ipv4.parse("10.0.2.15") + rnd.nextInt(20));
                Bytes.u8(frame, d + 249, 255);
                Udp.write(frame, l4, Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT, len, Checksum.pseudoHeader4(0, -1, Ipv4.PROTO_UDP, 8 + len));
                return ipv4(Ipv4.PROTO_UDP, 0, -1, Udp.HEADER_LENGTH + len, 0);
            }
            case 3 -> {
                int len = rnd.nextInt(1400);
                Udp.write(frame, l4, 1024 + rnd.nextInt(60000), rnd.nextBoolean() ? 53 : rnd.nextInt(0x10000), len,
                        Checksum.pseudoHeader4(src, dst, Ipv4.PROTO_UDP, 8 + len));
                return ipv4(Ipv4.PROTO_UDP, src, dst, Udp.HEADER_LENGTH + len, 0);
            }
            case 4 -> {
                int hdr = Tcp.MIN_HEADER_LENGTH + 4 * rnd.nextInt(11);
                int len = hdr + rnd.nextInt(1400);
                Tcp.write(frame, l4, new TcpHeader().ports(1024 + rnd.nextInt(60000), rnd.nextInt(0x10000))
                        .seq(rnd.nextInt()).ack(rnd.nextInt()).flags(rnd.nextInt(0x40)).window(rnd.nextInt(0x10000)).length(hdr));
                for (long o = l4 + Tcp.MIN_HEADER_LENGTH; o < l4 + hdr; o++) Bytes.u8(frame, o, rnd.nextInt(6));
                Tcp.fillChecksum(frame, l4, len, Checksum.pseudoHeader4(src, dst, Ipv4.PROTO_TCP, len));
                return ipv4(Ipv4.PROTO_TCP, src, dst, len, 0);
            }
            default -> {
                // A fragment: random offset, more-fragments flag, id from a small set so some complete.
                int len = 8 * (1 + rnd.nextInt(180));
                int field = (rnd.nextBoolean() ? Ipv4.MORE_FRAGMENTS : 0) | rnd.nextInt(rnd.nextBoolean() ? 8 : 8192);
                checksummed = false;
                return ipv4(rnd.nextBoolean() ? Ipv4.PROTO_ICMP : Ipv4.PROTO_UDP, src, dst, len, field);
            }
        }
    }

    private int ipv4(int protocol, int src, int dst, int l4Length, int fragmentField) {
        IpHeader h = new IpHeader().source4(src).destination4(dst).protocol(protocol).ttl(64).id(7).payloadLength(l4Length);
        if (fragmentField != 0) h.fragment((fragmentField & 0x1fff) * 8, (fragmentField & Ipv4.MORE_FRAGMENTS) != 0);
        Ipv4.write(frame, Ethernet.HEADER_LENGTH, h);
        return Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + l4Length;
    }

    /** A valid IPv6 frame of a random kind in {@link #frame}; returns its length. */
    int template6(SplittableRandom rnd) {
        frame.asSlice(0, 2048).fill((byte) 0);
        checksummed = true;
        long[] src = rnd.nextInt(8) == 0 ? new long[] {rnd.nextLong(), rnd.nextLong()} : rnd.nextInt(4) == 0 ? GUEST6_LL : GUEST6;
        long[] dst = switch (rnd.nextInt(3)) {
            case 0 -> GATEWAY6;
            case 1 -> DNS6;
            default -> rnd.nextInt(4) == 0 ? new long[] {rnd.nextLong(), rnd.nextLong()} : GATEWAY6;
        };
        Ethernet.write(frame, 0, ROUTER_MAC, GUEST_MAC, Ethernet.TYPE_IPV6);
        long l4 = Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH;
        switch (rnd.nextInt(8)) {
            case 6 -> {
                // extension headers before a UDP datagram or an echo request: hop-by-hop, destination options,
                // routing, or an unknown next header; options with random types
                int len = rnd.nextInt(600);
                int[] kinds = {Ipv6.HOP_BY_HOP, Ipv6.DESTINATION_OPTIONS, Ipv6.ROUTING, rnd.nextInt(256)};
                int first = kinds[rnd.nextInt(kinds.length)];
                checksummed = first == Ipv6.HOP_BY_HOP || first == Ipv6.DESTINATION_OPTIONS || first == Ipv6.ROUTING;
                int extLength = 8 * (1 + rnd.nextInt(3));
                long ext = l4;
                Bytes.u8(frame, ext + 1, extLength / 8 - 1);
                for (long o = ext + 2; o < ext + extLength; o++) Bytes.u8(frame, o, rnd.nextInt(4) == 0 ? rnd.nextInt(256) : 0);
                if (first == Ipv6.ROUTING) Bytes.u8(frame, ext + 3, rnd.nextInt(3) == 0 ? 1 : 0);
                long upper = ext + extLength;
                boolean echo = rnd.nextBoolean();
                Bytes.u8(frame, ext, echo ? Ipv6.PROTO_ICMPV6 : Ipv6.PROTO_UDP);
                if (echo) {
                    int n = Icmpv6.HEADER_LENGTH + len;
                    Bytes.u8(frame, upper, Icmpv6.ECHO_REQUEST);
                    Icmp.fillChecksum(frame, upper, n, Checksum.pseudoHeader6(src[0], src[1], dst[0], dst[1], Ipv6.PROTO_ICMPV6, n));
                    return ipv6(first, 64, src, dst, extLength + n);
                }
                Udp.write(frame, upper, 1024 + rnd.nextInt(60000), 53, len,
                        Checksum.pseudoHeader6(src[0], src[1], dst[0], dst[1], Ipv6.PROTO_UDP, 8 + len));
                return ipv6(first, 64, src, dst, extLength + 8 + len);
            }
            case 7 -> {
                // a fragment: random offset and more flag, ids from a small set so some complete
                int len = 8 * (1 + rnd.nextInt(180));
                checksummed = false;
                Bytes.u8(frame, l4, rnd.nextBoolean() ? Ipv6.PROTO_ICMPV6 : Ipv6.PROTO_UDP);
                Bytes.u16(frame, l4 + 2, (8 * rnd.nextInt(rnd.nextBoolean() ? 8 : 8192)) | (rnd.nextBoolean() ? 1 : 0));
                Bytes.u32(frame, l4 + 4, rnd.nextInt(4));
                return ipv6(Ipv6.FRAGMENT, 64, src, dst, 8 + len);
            }
            case 0 -> {
                int len = Icmpv6.HEADER_LENGTH + rnd.nextInt(1400);
                Bytes.u8(frame, l4, Icmpv6.ECHO_REQUEST);
                Bytes.u32(frame, l4 + 4, rnd.nextInt());
                return icmpv6(rnd.nextBoolean() ? 64 : 255, src, dst, len);
            }
            case 1 -> {
                long[][] targets = {GATEWAY6, DNS6, ROUTER_LL, GUEST6};
                long[] target = targets[rnd.nextInt(targets.length)];
                Ndp.writeNeighborSolicitation(frame, l4, target[0], target[1], GUEST_MAC);
                return icmpv6(255, rnd.nextInt(4) == 0 ? UNSPECIFIED : src, SOLICITED_NODE, Ndp.NEIGHBOR_LENGTH + 8);
            }
            case 2 -> {
                Bytes.u8(frame, l4, Ndp.ROUTER_SOLICITATION);
                Bytes.u8(frame, l4 + 8, Ndp.OPT_SOURCE_LINK_ADDRESS);
                Bytes.u8(frame, l4 + 9, 1);
                Bytes.mac(frame, l4 + 10, GUEST_MAC);
                return icmpv6(255, rnd.nextBoolean() ? UNSPECIFIED : GUEST6_LL, ALL_ROUTERS, Ndp.ROUTER_SOLICITATION_LENGTH + 8);
            }
            case 3 -> {
                long d = l4 + Udp.HEADER_LENGTH;
                int idLength = rnd.nextInt(4) == 0 ? 0 : 4 + rnd.nextInt(20);
                Bytes.u32(frame, d, ((rnd.nextInt(4) == 0 ? Dhcpv6.SOLICIT : Dhcpv6.INFORMATION_REQUEST) << 24) | rnd.nextInt(1 << 24));
                if (idLength > 0) {
                    Bytes.u16(frame, d + 4, Dhcpv6.OPT_CLIENT_ID);
                    Bytes.u16(frame, d + 6, idLength);
                }
                int len = Dhcpv6.HEADER_LENGTH + (idLength > 0 ? Dhcpv6.OPTION_HEADER_LENGTH + idLength : 0);
                long[] servers = {Dhcpv6.SERVERS_HI, Dhcpv6.SERVERS_LO};
                Udp.write(frame, l4, Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT, len,
                        Checksum.pseudoHeader6(GUEST6_LL[0], GUEST6_LL[1], servers[0], servers[1], Ipv6.PROTO_UDP, 8 + len));
                return ipv6(Ipv6.PROTO_UDP, 1, GUEST6_LL, servers, Udp.HEADER_LENGTH + len);
            }
            case 4 -> {
                int len = rnd.nextInt(1400);
                Udp.write(frame, l4, 1024 + rnd.nextInt(60000), rnd.nextBoolean() ? 53 : rnd.nextInt(0x10000), len,
                        Checksum.pseudoHeader6(src[0], src[1], dst[0], dst[1], Ipv6.PROTO_UDP, 8 + len));
                return ipv6(Ipv6.PROTO_UDP, 64, src, dst, Udp.HEADER_LENGTH + len);
            }
            default -> {
                int hdr = Tcp.MIN_HEADER_LENGTH + 4 * rnd.nextInt(11);
                int len = hdr + rnd.nextInt(1400);
                Tcp.write(frame, l4, new TcpHeader().ports(1024 + rnd.nextInt(60000), rnd.nextInt(0x10000))
                        .seq(rnd.nextInt()).ack(rnd.nextInt()).flags(rnd.nextInt(0x40)).window(rnd.nextInt(0x10000)).length(hdr));
                for (long o = l4 + Tcp.MIN_HEADER_LENGTH; o < l4 + hdr; o++) Bytes.u8(frame, o, rnd.nextInt(6));
                Tcp.fillChecksum(frame, l4, len, Checksum.pseudoHeader6(src[0], src[1], dst[0], dst[1], Ipv6.PROTO_TCP, len));
                return ipv6(Ipv6.PROTO_TCP, 64, src, dst, len);
            }
        }
    }

    private int icmpv6(int hopLimit, long[] src, long[] dst, int length) {
        Icmp.fillChecksum(frame, Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH, length,
                Checksum.pseudoHeader6(src[0], src[1], dst[0], dst[1], Ipv6.PROTO_ICMPV6, length));
        return ipv6(Ipv6.PROTO_ICMPV6, hopLimit, src, dst, length);
    }

    private int ipv6(int nextHeader, int hopLimit, long[] src, long[] dst, int l4Length) {
        Ipv6.write(frame, Ethernet.HEADER_LENGTH, new IpHeader().source(src[0], src[1]).destination(dst[0], dst[1])
                .protocol(nextHeader).ttl(hopLimit).payloadLength(l4Length));
        return Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH + l4Length;
    }

    /** Whether the latest {@link #mutate} left the bytes as they were (it may still have changed the length). */
    private boolean unchanged;

    /** Flips bytes, overwrites 16-bit fields in the headers, or changes the length; returns the new length. */
    private int mutate(SplittableRandom rnd, int length) {
        unchanged = false;
        switch (rnd.nextInt(8)) {
            case 0 -> {
                unchanged = true;
                return length; // left valid
            }
            case 1 -> {
                int n = rnd.nextInt(0, 70000);
                for (int i = 0; i < Math.min(n, 2048); i++) Bytes.u8(frame, i, rnd.nextInt(256));
                return Math.min(n, (int) frame.byteSize());
            }
            case 2 -> {
                return rnd.nextInt(length + 1); // cut short
            }
            case 3 -> {
                return Math.min(length + rnd.nextInt(64), 2048); // trailing bytes
            }
            default -> {
                for (int flips = 1 + rnd.nextInt(4); flips > 0; flips--) {
                    int at = rnd.nextInt(Math.min(length, 80));
                    if (rnd.nextBoolean()) Bytes.u8(frame, at, rnd.nextInt(256));
                    else if (at + 1 < length) Bytes.u16(frame, at, rnd.nextInt(0x10000));
                }
                return length;
            }
        }
    }

    /** Every frame the stack sends is well formed, its checksums right; fragments' transport is the whole datagram's, not checked here. */
    private static void checkSent(MemorySegment f, int length) {
        assertThat(length).isBetween(Ethernet.HEADER_LENGTH, Ethernet.HEADER_LENGTH + 65535);
        int type = Ethernet.type(f, 0);
        assertThat(type).isIn(Ethernet.TYPE_ARP, Ethernet.TYPE_IPV4, Ethernet.TYPE_IPV6);
        if (type == Ethernet.TYPE_ARP) {
            Checker.expect(f, length, Checker.arp());
            return;
        }
        IpVersion v = type == Ethernet.TYPE_IPV4 ? IpVersion.V4 : IpVersion.V6;
        IpHeader h = new IpHeader();
        assertThat(v.read(f, Ethernet.HEADER_LENGTH, length - Ethernet.HEADER_LENGTH, h)).as("IP header sent").isNull();
        if (h.isFragment()) {
            Checker.expect(f, length, v == IpVersion.V4 ? Checker.ipv4() : Checker.ipv6());
            return;
        }
        Checker.Check transport = switch (h.protocol()) {
            case Ipv4.PROTO_UDP -> udp();
            case Ipv4.PROTO_ICMP, Ipv6.PROTO_ICMPV6 -> icmp();
            default -> throw new AssertionError("the stack sends only ICMP, DHCP and ARP itself: " + h.protocol());
        };
        Checker.expect(f, length, v == IpVersion.V4 ? Checker.ipv4(transport) : Checker.ipv6(transport));
    }
}
