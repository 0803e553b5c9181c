package io.jslirp.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutated guest frames into the stack: valid ARP, ping, DHCP, UDP, TCP and fragment frames with
 * bytes flipped, fields overwritten, lengths cut or grown, and plain random bytes. Whatever
 * arrives, nothing throws, every frame is counted, what reaches the transport lies inside the
 * frame it came in, and every frame the stack sends is well formed (IPv4 header and ICMP/UDP
 * checksums valid).
 *
 * <p>The quick run feeds {@code jslirp.fuzz.seeds} × 1,000 frames (default 300 seeds) from seed
 * {@code jslirp.fuzz.base}; {@code scripts/fuzz.sh} runs many more. A failure names its seed.
 */
class StackFuzzTest {
    private static final long GUEST_MAC = 0x0200_0000_0001L;
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final int GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int DNS = Ipv4.parse("10.0.2.3");
    private static final int FRAMES = 1000;

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment frame = arena.allocate(Ethernet.HEADER_LENGTH + 65536 + 64);
    private long sent, transportCalls;

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
        System.out.printf("stack fuzz: %d frames in, %d counted malformed, %d frames out, %d handed to the transport%n",
                (long) seeds * FRAMES, malformed, sent, transportCalls);
        assertThat(sent).as("the stack answered some frames").isPositive();
        assertThat(transportCalls).as("some frames reached the transport").isPositive();
    }

    private long run(SplittableRandom rnd) {
        Counters counters = new Counters();
        Stack stack = new Stack(NetworkConfig.defaults(), (f, length) -> {
            checkSent(f, length);
            sent++;
            return true;
        }, counters);
        stack.setTransport(new Transport() {
            @Override
            public void tcp(MemorySegment f, long offset, int length, int source, int destination) {
                inside(f, offset, length);
            }

            @Override
            public void udp(MemorySegment f, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
                inside(f, offset, length);
            }

            @Override
            public void icmpEcho(MemorySegment f, long offset, int length, int source, int destination) {
                inside(f, offset, length);
            }
        });
        for (int i = 0; i < FRAMES; i++) {
            int length = template(rnd);
            length = mutate(rnd, length);
            stack.receive(frame, length);
        }
        assertThat(counters.framesIn).isEqualTo(FRAMES);
        return counters.malformed;
    }

    private void inside(MemorySegment f, long offset, int length) {
        transportCalls++;
        assertThat(length).isNotNegative();
        assertThat(offset + length).as("payload inside its frame").isLessThanOrEqualTo(f.byteSize());
    }

    /** A valid frame of a random kind in {@link #frame}; returns its length. */
    private int template(SplittableRandom rnd) {
        frame.asSlice(0, 2048).fill((byte) 0);
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
                Arp.write(frame, ip, rnd.nextBoolean() ? Arp.REQUEST : Arp.REPLY, GUEST_MAC, src, 0, dst);
                return (int) ip + Arp.LENGTH;
            }
            case 1 -> {
                int len = Icmpv4.HEADER_LENGTH + rnd.nextInt(1400);
                Bytes.u8(frame, l4, Icmpv4.ECHO_REQUEST);
                Bytes.u16(frame, l4 + 4, rnd.nextInt(0x10000));
                Icmpv4.fillChecksum(frame, l4, len);
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
                Udp.write4(frame, l4, Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT, len, 0, -1);
                return ipv4(Ipv4.PROTO_UDP, 0, -1, Udp.HEADER_LENGTH + len, 0);
            }
            case 3 -> {
                int len = rnd.nextInt(1400);
                Udp.write4(frame, l4, 1024 + rnd.nextInt(60000), rnd.nextBoolean() ? 53 : rnd.nextInt(0x10000), len, src, dst);
                return ipv4(Ipv4.PROTO_UDP, src, dst, Udp.HEADER_LENGTH + len, 0);
            }
            case 4 -> {
                int hdr = Tcp.MIN_HEADER_LENGTH + 4 * rnd.nextInt(11);
                int len = hdr + rnd.nextInt(1400);
                Tcp.write(frame, l4, 1024 + rnd.nextInt(60000), rnd.nextInt(0x10000), rnd.nextInt(), rnd.nextInt(),
                        rnd.nextInt(0x40), rnd.nextInt(0x10000), hdr);
                for (long o = l4 + Tcp.MIN_HEADER_LENGTH; o < l4 + hdr; o++) Bytes.u8(frame, o, rnd.nextInt(6));
                Tcp.fillChecksum4(frame, l4, len, src, dst);
                return ipv4(Ipv4.PROTO_TCP, src, dst, len, 0);
            }
            default -> {
                // A fragment: random offset, more-fragments flag, id from a small set so some complete.
                int len = 8 * (1 + rnd.nextInt(180));
                int field = (rnd.nextBoolean() ? Ipv4.MORE_FRAGMENTS : 0) | rnd.nextInt(rnd.nextBoolean() ? 8 : 8192);
                return ipv4(rnd.nextBoolean() ? Ipv4.PROTO_ICMP : Ipv4.PROTO_UDP, src, dst, len, field);
            }
        }
    }

    private int ipv4(int protocol, int src, int dst, int l4Length, int fragmentField) {
        Ipv4.write(frame, Ethernet.HEADER_LENGTH, Ipv4.MIN_HEADER_LENGTH + l4Length, 7, fragmentField, 64, protocol, src, dst);
        return Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + l4Length;
    }

    /** Flips bytes, overwrites 16-bit fields in the headers, or changes the length; returns the new length. */
    private int mutate(SplittableRandom rnd, int length) {
        switch (rnd.nextInt(8)) {
            case 0 -> {
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

    private static void checkSent(MemorySegment f, int length) {
        assertThat(length).isBetween(Ethernet.HEADER_LENGTH, Ethernet.HEADER_LENGTH + 65535);
        int type = Ethernet.type(f, 0);
        assertThat(type).isIn(Ethernet.TYPE_ARP, Ethernet.TYPE_IPV4);
        if (type == Ethernet.TYPE_ARP) {
            assertThat(Arp.valid(f, Ethernet.HEADER_LENGTH, length - Ethernet.HEADER_LENGTH)).isTrue();
            return;
        }
        long ip = Ethernet.HEADER_LENGTH;
        assertThat(Ipv4.check(f, ip, length - Ethernet.HEADER_LENGTH)).as("IPv4 header sent").isNull();
        int total = Ipv4.totalLength(f, ip);
        assertThat(total).isEqualTo(length - Ethernet.HEADER_LENGTH);
        if (Ipv4.isFragment(f, ip)) return; // a piece of a datagram: its L4 checksum covers the whole
        int ihl = Ipv4.headerLength(f, ip);
        long l4 = ip + ihl;
        int l4Length = total - ihl;
        switch (Ipv4.protocol(f, ip)) {
            case Ipv4.PROTO_ICMP -> assertThat(Checksum.of(f, l4, l4Length)).as("ICMP checksum").isZero();
            case Ipv4.PROTO_UDP -> {
                if (Bytes.u16(f, l4 + 6) != 0) {
                    int pseudo = Checksum.pseudoHeader4(Ipv4.source(f, ip), Ipv4.destination(f, ip), Ipv4.PROTO_UDP, l4Length);
                    assertThat(Checksum.finish(Checksum.sum(f, l4, l4Length, pseudo))).as("UDP checksum").isZero();
                }
            }
            default -> { }
        }
    }
}
