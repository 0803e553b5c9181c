package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jslirp.wire.Segs.Kind;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class TcpTest {

    // ---- header ----

    @Property(tries = 200)
    void aPayloadSummedWhereItWaitsGivesTheChecksumOfTheWholeSegment(@ForAll @IntRange(min = 5, max = 15) int words,
                                                                     @ForAll @Size(max = 300) byte[] payload, @ForAll int pseudo16,
                                                                     @ForAll @IntRange(max = 7) int payloadAt) {
        int hl = words * 4;
        int pseudo = pseudo16 & 0xffff;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment whole = arena.allocate(hl + payload.length);
            Tcp.write(whole, 0, new TcpHeader().ports(80, 40000).seq(1).ack(2).flags(Tcp.ACK).window(512).length(hl));
            whole.asSlice(20, hl - 20).fill((byte) 1);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, whole, hl, payload.length);
            MemorySegment header = arena.allocate(hl);
            MemorySegment.copy(whole, 0, header, 0, hl);
            MemorySegment elsewhere = arena.allocate(payloadAt + payload.length + 1);
            MemorySegment.copy(MemorySegment.ofArray(payload), 0, elsewhere, payloadAt, payload.length);

            Tcp.fillChecksum(whole, 0, hl + payload.length, pseudo);
            Tcp.setChecksum(header, 0, Checksum.sum(elsewhere, payloadAt, payload.length, Tcp.headerSum(header, 0, hl, pseudo)));
            assertThat(Bytes.u16(header, Tcp.CHECKSUM_OFFSET)).isEqualTo(Bytes.u16(whole, Tcp.CHECKSUM_OFFSET));
        }
    }

    @Property(tries = 300)
    void writeThenReadEveryField(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                 @ForAll @IntRange(max = 0xffff) int sp, @ForAll @IntRange(max = 0xffff) int dp,
                                 @ForAll int seq, @ForAll int ack, @ForAll @IntRange(max = 0x3f) int flags,
                                 @ForAll @IntRange(max = 0xffff) int window, @ForAll @IntRange(min = 5, max = 15) int words) {
        int hl = words * 4;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + hl);
            s.fill((byte) 0xa5);
            Tcp.write(s, off, new TcpHeader().ports(sp, dp).seq(seq).ack(ack).flags(flags).window(window).length(hl));
            s.asSlice(off + 20, hl - 20).fill((byte) 1); // options: no-ops

            assertThat(Tcp.sourcePort(s, off)).isEqualTo(sp);
            assertThat(Tcp.destinationPort(s, off)).isEqualTo(dp);
            assertThat(Tcp.seq(s, off)).isEqualTo(seq);
            assertThat(Tcp.ack(s, off)).isEqualTo(ack);
            assertThat(Tcp.flags(s, off)).isEqualTo(flags);
            assertThat(Tcp.window(s, off)).isEqualTo(window);
            assertThat(Tcp.headerLength(s, off)).isEqualTo(hl);
            assertThat(Tcp.check(s, off, hl)).isNull();

            byte[] h = Segs.bytes(s, off, 20);
            assertThat(Ref.u16(h, 0)).isEqualTo(sp);
            assertThat(Ref.u16(h, 2)).isEqualTo(dp);
            assertThat(Ref.u32(h, 4)).isEqualTo(seq);
            assertThat(Ref.u32(h, 8)).isEqualTo(ack);
            assertThat(Ref.u8(h, 12)).as("data offset, reserved bits clear").isEqualTo(words << 4);
            assertThat(Ref.u8(h, 13)).isEqualTo(flags);
            assertThat(Ref.u16(h, 14)).isEqualTo(window);
            assertThat(Ref.u16(h, 16)).as("checksum cleared").isZero();
            assertThat(Ref.u16(h, 18)).as("urgent pointer cleared").isZero();
        }
    }

    @Test
    void flagsIgnoreEcnBits() {
        MemorySegment s = MemorySegment.ofArray(new byte[20]);
        Bytes.u8(s, 13, 0xc0 | Tcp.SYN | Tcp.ACK);
        assertThat(Tcp.flags(s, 0)).isEqualTo(Tcp.SYN | Tcp.ACK);
    }

    @Property(tries = 300)
    void fillChecksum4MatchesPseudoHeaderReference(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                                   @ForAll @Size(min = 20, max = 220) byte[] segment,
                                                   @ForAll int srcIp, @ForAll int dstIp) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + segment.length);
            MemorySegment.copy(MemorySegment.ofArray(segment), 0, s, off, segment.length);
            Tcp.fillChecksum(s, off, segment.length, Checksum.pseudoHeader4(srcIp, dstIp, 6, segment.length));

            byte[] pseudo = Ref.pseudoHeader4(srcIp, dstIp, 6, segment.length);
            byte[] zeroed = segment.clone();
            zeroed[16] = 0;
            zeroed[17] = 0;
            byte[] out = Segs.bytes(s, off, segment.length);
            assertThat(Ref.u16(out, 16)).isEqualTo(Ref.checksum(Ref.concat(pseudo, zeroed)));
            assertThat(Ref.checksum(Ref.concat(pseudo, out))).as("verifies").isZero();
            out[16] = segment[16];
            out[17] = segment[17];
            assertThat(out).as("only the checksum field changes").containsExactly(segment);
        }
    }

    @Test
    void synSegmentKnownAnswer() {
        // SYN 10.0.2.15:49152 -> 93.184.216.34:80, seq 1, MSS 1460 and window scale 7; checksum by hand:
        // pseudo-header 0a00+020f+5db8+d822+0006+001c = 0x1420b, header words with checksum 0:
        // c000+0050+0000+0001+0000+0000+7002+faf0+0000+0000+0204+05b4+0103+0307 = 0x23705;
        // 0x1420b + 0x23705 = 0x37910 -> 7910 + 3 = 7913 -> checksum ~7913 = 0x86ec.
        byte[] expected = Segs.hex("c000 0050 00000001 00000000 7002 faf0 86ec 0000 0204 05b4 0103 0307");
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.allocate(kind, arena, 28);
                int hl = Tcp.writeSynOptions(s, 0, 1460, 7);
                assertThat(hl).isEqualTo(28);
                Tcp.write(s, 0, new TcpHeader().ports(49152, 80).seq(1).ack(0).flags(Tcp.SYN).window(0xfaf0).length(hl));
                Tcp.fillChecksum(s, 0, 28, Checksum.pseudoHeader4(0x0a00020f, 0x5db8d822, 6, 28));
                assertThat(Segs.bytes(s)).containsExactly(expected);
            }
        }
    }

    // ---- check ----

    @Test
    void checkRejectsTruncatedAndBadHeaderLengths() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.allocate(kind, arena, 60);
                Tcp.write(s, 0, new TcpHeader().ports(1, 2).seq(3).ack(4).flags(Tcp.ACK).window(5).length(20));
                assertThat(Tcp.check(s.asSlice(0, 20), 0, 20)).isNull();
                assertThat(Tcp.check(s, 0, 60)).as("payload after the header").isNull();
                for (int len = 0; len < 20; len++) {
                    assertThat(Tcp.check(s.asSlice(0, len), 0, len)).isEqualTo(Drop.TRUNCATED);
                }
                for (int words = 0; words < 5; words++) {
                    Bytes.u8(s, 12, words << 4);
                    assertThat(Tcp.check(s, 0, 60)).as("offset %d", words).isEqualTo(Drop.BAD_HEADER_LENGTH);
                }
                Bytes.u8(s, 12, 15 << 4);
                assertThat(Tcp.check(s, 0, 60)).isNull();
                assertThat(Tcp.check(s.asSlice(0, 59), 0, 59)).as("header longer than the buffer")
                        .isEqualTo(Drop.BAD_HEADER_LENGTH);
                Bytes.u8(s, 12, 6 << 4);
                assertThat(Tcp.check(s.asSlice(0, 23), 0, 23)).isEqualTo(Drop.BAD_HEADER_LENGTH);
                assertThat(Tcp.check(s.asSlice(0, 24), 0, 24)).isNull();
            }
        }
    }

    // ---- options ----

    /** A 20-byte header followed by options, whose length must be a multiple of 4. */
    private static byte[] withOptions(String optionsHex) {
        byte[] opts = Segs.hex(optionsHex);
        if (opts.length % 4 != 0 || opts.length > 40) throw new IllegalArgumentException(optionsHex);
        byte[] h = new byte[20 + opts.length];
        h[12] = (byte) ((h.length / 4) << 4);
        System.arraycopy(opts, 0, h, 20, opts.length);
        return h;
    }

    private static boolean parse(Kind kind, byte[] header, TcpOptions opts) {
        try (Arena arena = Arena.ofConfined()) {
            return Tcp.parseOptions(Segs.of(kind, arena, header), 0, opts);
        }
    }

    @Test
    void parsesMssWindowScaleSackPermittedAndTimestamps() {
        // A typical Linux SYN: MSS 1460, SACK permitted, timestamps, NOP, window scale 7.
        byte[] h = withOptions("0204 05b4 0402 080a 00bc614e 00000000 01 030307");
        for (Kind kind : Kind.values()) {
            TcpOptions o = new TcpOptions();
            assertThat(parse(kind, h, o)).isTrue();
            assertThat(o.mss).isEqualTo(1460);
            assertThat(o.sackPermitted).isTrue();
            assertThat(o.hasTimestamp).isTrue();
            assertThat(o.tsVal).isEqualTo(12345678);
            assertThat(o.tsEcr).isZero();
            assertThat(o.windowScale).isEqualTo(7);
        }
    }

    @Test
    void noOptionsLeavesDefaults() {
        TcpOptions o = new TcpOptions();
        o.mss = 5;
        o.sackPermitted = true;
        assertThat(parse(Kind.HEAP, withOptions(""), o)).isTrue();
        assertThat(o.mss).isEqualTo(-1);
        assertThat(o.windowScale).isEqualTo(-1);
        assertThat(o.sackPermitted).isFalse();
        assertThat(o.hasTimestamp).isFalse();
    }

    @Test
    void endOfListStopsParsing() {
        TcpOptions o = new TcpOptions();
        // END, then bytes that would be a malformed option if read.
        assertThat(parse(Kind.NATIVE, withOptions("0204 05b4 00 02 00 ff"), o)).isTrue();
        assertThat(o.mss).isEqualTo(1460);
    }

    @Test
    void windowScaleIsCappedAt14AndWrongLengthsAreIgnored() {
        TcpOptions o = new TcpOptions();
        assertThat(parse(Kind.HEAP, withOptions("030315 00"), o)).isTrue();
        assertThat(o.windowScale).isEqualTo(14);
        // MSS of length 3, window scale of length 4, timestamps of length 6, SACK-permitted of length 3:
        // well-formed but unusable, so ignored.
        assertThat(parse(Kind.HEAP, withOptions("020305 03040700 080600000001 040300 000000 00"), o)).isTrue();
        assertThat(o.mss).isEqualTo(-1);
        assertThat(o.windowScale).isEqualTo(-1);
        assertThat(o.hasTimestamp).isFalse();
        assertThat(o.sackPermitted).isFalse();
        // Unknown kinds with a valid length are skipped.
        assertThat(parse(Kind.NATIVE, withOptions("1e06aabbccdd 0204 0218 0000"), o)).isTrue();
        assertThat(o.mss).isEqualTo(0x218);
    }

    @Test
    void malformedOptionListsAreRejectedWithoutLooping() {
        String[] malformed = {
                "0200 0000", // length 0 would never advance
                "0201 0000", // length 1 would never advance
                "1e00 0000", // unknown kind, length 0
                "0204 05b4 0101 0103", // window scale kind in the last byte: no room for its length
                "0101 0204", // MSS length byte in the last byte, value past the header
                "080a 0000 0001 0000", // timestamps claiming 10 bytes in an 8-byte option area
                "1e28 0000", // unknown kind claiming 40 bytes
                "0101 01ff", // kind 255, no length byte
        };
        for (Kind kind : Kind.values()) {
            for (String m : malformed) {
                byte[] h = withOptions(m);
                TcpOptions o = new TcpOptions();
                boolean result = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> parse(kind, h, o), m);
                assertThat(result).as(m).isFalse();
            }
        }
    }

    @Property(tries = 200)
    void writeSynOptionsThenParse(@ForAll Kind kind, @ForAll @IntRange(max = 0xffff) int mss,
                                  @ForAll @IntRange(min = -1, max = 255) int windowScale) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, 28);
            int hl = Tcp.writeSynOptions(s, 0, mss, windowScale);
            assertThat(hl).isEqualTo(windowScale < 0 ? 24 : 28);
            Tcp.write(s, 0, new TcpHeader().ports(1, 2).seq(3).ack(0).flags(Tcp.SYN).window(100).length(hl));
            MemorySegment exact = s.asSlice(0, hl);
            assertThat(Tcp.check(exact, 0, hl)).isNull();
            TcpOptions o = new TcpOptions();
            assertThat(Tcp.parseOptions(exact, 0, o)).isTrue();
            assertThat(o.mss).isEqualTo(mss);
            assertThat(o.windowScale).isEqualTo(windowScale < 0 ? -1 : Math.min(14, windowScale));
            assertThat(o.sackPermitted).isFalse();
            assertThat(o.hasTimestamp).isFalse();
            byte[] b = Segs.bytes(exact);
            assertThat(Ref.u8(b, 20)).isEqualTo(2);
            assertThat(Ref.u8(b, 21)).isEqualTo(4);
            assertThat(Ref.u16(b, 22)).isEqualTo(mss);
        }
    }

    /** One option as it appears on the wire: kind 1 is a lone NOP byte, others kind, length, value. */
    record Opt(int kind, byte[] value) {
        int size() {
            return kind == 1 ? 1 : 2 + value.length;
        }
    }

    @Provide
    Arbitrary<List<Opt>> optionLists() {
        Arbitrary<Integer> kinds = Arbitraries.of(1, 2, 3, 4, 5, 8, 30, 254);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(10);
        Arbitrary<Opt> opt = Combinators.combine(kinds, values, Arbitraries.integers().between(0, 2))
                .as((k, v, shape) -> {
                    // Mostly the right value length for known kinds, sometimes a wrong one.
                    int right = switch (k) { case 2 -> 2; case 3 -> 1; case 4 -> 0; case 8 -> 8; default -> -1; };
                    byte[] value = shape > 0 && right >= 0 ? java.util.Arrays.copyOf(v, right) : v;
                    return new Opt(k, value);
                });
        return opt.list().ofMaxSize(8).filter(l -> l.stream().mapToInt(Opt::size).sum() <= 40);
    }

    @Property(tries = 300)
    void parsesArbitraryWellFormedOptionLists(@ForAll Kind kind, @ForAll("optionLists") List<Opt> list,
                                              @ForAll @Size(max = 40) byte[] afterEnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Opt o : list) {
            out.write(o.kind());
            if (o.kind() != 1) {
                out.write(2 + o.value().length);
                out.writeBytes(o.value());
            }
        }
        byte[] opts = out.toByteArray();
        int area = (opts.length + 3) / 4 * 4;
        byte[] h = new byte[20 + area];
        h[12] = (byte) ((h.length / 4) << 4);
        System.arraycopy(opts, 0, h, 20, opts.length);
        if (opts.length < area) { // END, then arbitrary bytes that must be ignored
            h[20 + opts.length] = 0;
            for (int i = opts.length + 1, j = 0; i < area && j < afterEnd.length; i++, j++) h[20 + i] = afterEnd[j];
        }

        // Model: for each option, the last usable occurrence wins.
        int mss = -1, ws = -1;
        boolean sack = false, ts = false;
        int tsVal = 0, tsEcr = 0;
        for (Opt o : list) {
            byte[] v = o.value();
            switch (o.kind()) {
                case 2 -> { if (v.length == 2) mss = Ref.u16(v, 0); }
                case 3 -> { if (v.length == 1) ws = Math.min(14, v[0] & 0xff); }
                case 4 -> sack = v.length == 0;
                case 8 -> {
                    if (v.length == 8) {
                        ts = true;
                        tsVal = Ref.u32(v, 0);
                        tsEcr = Ref.u32(v, 4);
                    }
                }
                default -> { }
            }
        }

        TcpOptions o = new TcpOptions();
        assertThat(parse(kind, h, o)).isTrue();
        assertThat(o.mss).isEqualTo(mss);
        assertThat(o.windowScale).isEqualTo(ws);
        assertThat(o.sackPermitted).isEqualTo(sack);
        assertThat(o.hasTimestamp).isEqualTo(ts);
        assertThat(o.tsVal).isEqualTo(tsVal);
        assertThat(o.tsEcr).isEqualTo(tsEcr);
    }
}
