package io.jslirp.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.build.FrameBuilder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any sequence of guest frames into the stack (IPv4 and IPv6, ARP, extension
 * headers, fragments and their reassembly, the link services), on a virtual clock. An input is
 * records ({@link Seeds#records}): each a flags byte (bit 0: the link vouched for the checksums;
 * bits 1-7: seconds the clock moves on first, past the reassembly timeout at most) and one frame,
 * handed over in a segment of exactly its length, so a read past the frame throws.
 *
 * <p>Whatever arrives: nothing throws, every frame is counted in and each is dropped for a counted
 * reason or handed to the transport at most once (a datagram completed by reassembly is handed on
 * once for all its fragments), what reaches the transport lies inside its frame, no address is
 * held past its call, and every frame the stack sends is well formed ({@link StackFuzzTest.Harness}).
 */
class StackReceiveJazzerTest {
    @FuzzTest(maxDuration = "12s")
    void anyFramesAreCountedAndAnsweredWellFormed(byte[] input) {
        StackFuzzTest.Harness h = new StackFuzzTest.Harness();
        long[] now = {0};
        h.stack.setClock(() -> now[0]);
        List<byte[]> records = Seeds.records(input);
        try (Arena arena = Arena.ofConfined()) {
            for (byte[] r : records) {
                int flags = r.length > 0 ? r[0] & 0xff : 0;
                now[0] += (flags >>> 1) * 1_000_000_000L;
                int length = Math.max(0, r.length - 1);
                MemorySegment frame = arena.allocate(Math.max(1, length));
                if (length > 0) MemorySegment.copy(r, 1, frame, ValueLayout.JAVA_BYTE, 0, length);
                long before = h.accounted();
                h.stack.receive(frame.asSlice(0, length), length, (flags & 1) != 0);
                assertThat(h.accounted() - before).as("a frame dropped or handed on at most once").isLessThanOrEqualTo(1);
            }
        }
        h.checkAccounting(records.size());
    }

    /** Frames the other tests build: StackFuzzTest's templates of each kind, and fragmented datagrams over both versions. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        StackFuzzTest templates = new StackFuzzTest();
        for (int seed = 0; seed < 24; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            List<byte[]> frames = new ArrayList<>();
            for (int i = 0; i < 1 + seed % 4; i++) {
                int length = seed % 3 == 0 ? templates.template6(rnd) : templates.template(rnd);
                frames.add(record(rnd.nextInt(4) == 0 ? 1 : 0, templates.frame.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE)));
            }
            seeds.put("template-" + seed, Seeds.records(frames));
        }
        FrameBuilder udp4 = FrameBuilder.v4("10.0.2.100", "10.0.2.2").udp(40000, 7).payload(3000);
        FrameBuilder echo4 = FrameBuilder.v4("10.0.2.100", "10.0.2.2").echo(7, 1).payload(2000);
        FrameBuilder echo6 = FrameBuilder.v6("fd00::1:2:3:4", "fd00::2").echo(7, 1).payload(3000);
        FrameBuilder udp6 = FrameBuilder.v6("fd00::1:2:3:4", "fd00::3").destinationOptions(new byte[6]).udp(40000, 53).payload(2000);
        seeds.put("fragments-udp4", fragments(udp4, 1480, 1));
        seeds.put("fragments-echo4-reversed", Seeds.records(List.of(piece(echo4, 1480, 1480, false, 2), piece(echo4, 0, 1480, true, 2))));
        seeds.put("fragments-echo6", fragments(echo6, 1232, 3));
        seeds.put("fragments-udp6-options", fragments(udp6, 1232, 4));
        seeds.put("fragments-overlapping4", Seeds.records(List.of(piece(udp4, 0, 1480, true, 5), piece(udp4, 8, 1480, true, 5),
                piece(udp4, 1480, 3000, false, 5))));
        seeds.put("fragments-timed-out6", Seeds.records(List.of(piece(echo6, 0, 1232, true, 6), record(2 * 31,
                piece(echo6, 1232, 3000, false, 6)))));
        seeds.put("syn-hop-by-hop6", Seeds.records(List.of(record(0, FrameBuilder.v6("fd00::1:2:3:4", "fd00::2")
                .hopByHop(FrameBuilder.option(1, 4)).tcp(40000, 80, Tcp.SYN, 1, 0).mss(1460).bytes()))));
        seeds.put("unknown-next-header6", Seeds.records(List.of(record(0, FrameBuilder.v6("fd00::1:2:3:4", "fd00::2")
                .extension(253, new byte[8]).echo(1, 1).bytes()))));
        seeds.put("routing6", Seeds.records(List.of(record(0, FrameBuilder.v6("fd00::1:2:3:4", "fd00::2").routing(0, 1).echo(1, 1).bytes()))));
        seeds.put("port-unreachable4", Seeds.records(List.of(record(0, FrameBuilder.v4("10.0.2.100", "10.0.2.2")
                .icmp(Icmpv4.DEST_UNREACHABLE, 3, 0).payload(28).bytes()))));
        seeds.put("router-solicitation6", Seeds.records(List.of(record(0, FrameBuilder.v6("fe80::1:2:3:4", "ff02::2").ttl(255)
                .icmp(Ndp.ROUTER_SOLICITATION, 0, 0).bytes()))));
        seeds.put("arp", Seeds.records(List.of(record(0, FrameBuilder.arp(1, io.jslirp.wire.Ipv4.parse("10.0.2.100"), 0,
                io.jslirp.wire.Ipv4.parse("10.0.2.2")).bytes()))));
        Seeds.write(getClass(), "anyFramesAreCountedAndAnsweredWellFormed", seeds);
    }

    private static byte[] fragments(FrameBuilder b, int size, int id) {
        List<byte[]> out = new ArrayList<>();
        int total = b.transportLength();
        for (int at = 0; at < total; at += size) out.add(piece(b, at, size, at + size < total, id));
        return Seeds.records(out);
    }

    private static byte[] piece(FrameBuilder b, int offset, int length, boolean more, int id) {
        return record(0, b.piece(offset, length, more, id).toArray(ValueLayout.JAVA_BYTE));
    }

    private static byte[] record(int flags, byte[] frame) {
        byte[] r = new byte[1 + frame.length];
        r[0] = (byte) flags;
        System.arraycopy(frame, 0, r, 1, frame.length);
        return r;
    }
}
