package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Ipv4Test {

    @Property(tries = 300)
    void writeThenReadEveryField(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                 @ForAll @IntRange(min = 20, max = 120) int total, @ForAll @IntRange(max = 0xffff) int id,
                                 @ForAll @IntRange(max = 255) int ttl, @ForAll @IntRange(max = 255) int protocol,
                                 @ForAll int src, @ForAll int dst) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + total);
            s.fill((byte) 0xa5);
            Ipv4.write(s, off, new IpHeader().source4(src).destination4(dst).protocol(protocol).ttl(ttl).id(id).payloadLength(total - 20));

            assertThat(Ipv4.version(s, off)).isEqualTo(4);
            assertThat(Ipv4.headerLength(s, off)).isEqualTo(20);
            assertThat(Ipv4.totalLength(s, off)).isEqualTo(total);
            assertThat(Ipv4.identification(s, off)).isEqualTo(id);
            assertThat(Ipv4.isFragment(s, off)).isFalse();
            assertThat(Ipv4.ttl(s, off)).isEqualTo(ttl);
            assertThat(Ipv4.protocol(s, off)).isEqualTo(protocol);
            assertThat(Ipv4.source(s, off)).isEqualTo(src);
            assertThat(Ipv4.destination(s, off)).isEqualTo(dst);
            assertThat(Ipv4.check(s, off, total)).isNull();

            byte[] h = Segs.bytes(s, off, 20);
            assertThat(Ref.u8(h, 0)).isEqualTo(0x45);
            assertThat(Ref.u8(h, 1)).as("tos").isZero();
            assertThat(Ref.u16(h, 6)).as("flags: don't fragment").isEqualTo(0x4000);
            assertThat(Ref.u32(h, 12)).isEqualTo(src);
            assertThat(Ref.u32(h, 16)).isEqualTo(dst);
            assertThat(Ref.checksum(h)).as("header verifies").isZero();
        }
    }

    @Test
    void writeReproducesCapturedHeader() {
        // 192.168.0.1 -> 192.168.0.199, UDP, total length 115, id 0, DF, TTL 64: checksum b861.
        byte[] expected = Segs.hex("4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7");
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.allocate(kind, arena, 20);
                Ipv4.write(s, 0, new IpHeader().source4(0xc0a80001).destination4(0xc0a800c7).protocol(Ipv4.PROTO_UDP).ttl(64).id(0).payloadLength(0x73 - 20));
                assertThat(Segs.bytes(s)).containsExactly(expected);
            }
        }
    }

    // ---- check ----

    /** A valid header of ihl bytes (options zero) and total bytes, its checksum set by the reference. */
    private static byte[] datagram(int ihl, int total, int bufferLength) {
        byte[] b = new byte[bufferLength];
        b[0] = (byte) (0x40 | ihl / 4);
        Ref.put16(b, 2, total);
        b[8] = 64;
        b[9] = (byte) Ipv4.PROTO_TCP;
        Ref.put32(b, 12, 0x0a000202);
        Ref.put32(b, 16, 0x0a00020f);
        Ref.put16(b, 10, Ref.checksum(b, 0, ihl));
        return b;
    }

    private static Drop check(Kind kind, byte[] b, int len) {
        try (Arena arena = Arena.ofConfined()) {
            return Ipv4.check(Segs.of(kind, arena, b).asSlice(0, len), 0, len);
        }
    }

    @Property(tries = 200)
    void checkAcceptsValidDatagramsWithOptionsAndTrailingPadding(@ForAll Kind kind,
                                                                 @ForAll @IntRange(min = 5, max = 15) int words,
                                                                 @ForAll @IntRange(max = 100) int payload,
                                                                 @ForAll @IntRange(max = 30) int padding) {
        int ihl = words * 4;
        byte[] b = datagram(ihl, ihl + payload, ihl + payload + padding);
        assertThat(check(kind, b, b.length)).isNull();
    }

    @Test
    void checkRejectsMalformedHeaders() {
        for (Kind kind : Kind.values()) {
            byte[] ok = datagram(20, 40, 40);
            assertThat(check(kind, ok, 40)).isNull();
            assertThat(check(kind, ok, 19)).isEqualTo(Drop.TRUNCATED);
            assertThat(check(kind, ok, 0)).isEqualTo(Drop.TRUNCATED);

            byte[] v6 = ok.clone();
            v6[0] = 0x65;
            assertThat(check(kind, v6, 40)).isEqualTo(Drop.BAD_VERSION);

            for (int ihlWords = 0; ihlWords < 5; ihlWords++) {
                byte[] shortIhl = ok.clone();
                shortIhl[0] = (byte) (0x40 | ihlWords);
                assertThat(check(kind, shortIhl, 40)).as("IHL %d", ihlWords).isEqualTo(Drop.BAD_HEADER_LENGTH);
            }
            // IHL 15 (60 bytes) but only 40 bytes present.
            byte[] longIhl = datagram(60, 40, 40 + 20);
            assertThat(check(kind, longIhl, 40)).isEqualTo(Drop.BAD_HEADER_LENGTH);

            assertThat(check(kind, datagram(20, 41, 41), 40)).as("total > buffer").isEqualTo(Drop.BAD_LENGTH);
            assertThat(check(kind, datagram(24, 20, 40), 40)).as("total < ihl").isEqualTo(Drop.BAD_LENGTH);
            assertThat(check(kind, datagram(20, 0, 40), 40)).as("total 0").isEqualTo(Drop.BAD_LENGTH);

            for (int i = 0; i < 20; i++) {
                if (i == 0 || i == 2 || i == 3) continue; // those fail earlier checks
                byte[] corrupt = ok.clone();
                corrupt[i] ^= 0x10;
                assertThat(check(kind, corrupt, 40)).as("flipped byte %d", i).isEqualTo(Drop.BAD_CHECKSUM);
            }
            // A corrupted option byte is covered by the checksum too.
            byte[] opt = datagram(24, 24, 24);
            opt[21] ^= 1;
            assertThat(check(kind, opt, 24)).isEqualTo(Drop.BAD_CHECKSUM);
        }
    }

    @Test
    void fragmentFlags() {
        MemorySegment s = MemorySegment.ofArray(datagram(20, 20, 20));
        for (int[] c : new int[][] {{0x0000, 0}, {0x4000, 0}, {0x2000, 1}, {0x0001, 1}, {0x1fff, 1}, {0x6000, 1},
                {0x8000, 0}}) {
            Bytes.u16(s, 6, c[0]);
            assertThat(Ipv4.isFragment(s, 0)).as("flags/offset %04x", c[0]).isEqualTo(c[1] == 1);
        }
    }

    // ---- text ----

    @Property(tries = 500)
    void formatThenParseRoundTrips(@ForAll int address) {
        String text = Ipv4.format(address);
        String expected = (address >>> 24) + "." + ((address >> 16) & 0xff) + "." + ((address >> 8) & 0xff) + "."
                + (address & 0xff);
        assertThat(text).isEqualTo(expected);
        assertThat(Ipv4.parse(text)).isEqualTo(address);
    }

    @Property(tries = 300)
    void parseThenFormatIsCanonical(@ForAll @IntRange(max = 255) int a, @ForAll @IntRange(max = 255) int b,
                                    @ForAll @IntRange(max = 255) int c, @ForAll @IntRange(max = 255) int d) {
        String text = a + "." + b + "." + c + "." + d;
        assertThat(Ipv4.format(Ipv4.parse(text))).isEqualTo(text);
        assertThat(Ipv4.parse(text)).isEqualTo((a << 24) | (b << 16) | (c << 8) | d);
    }

    @Test
    void parseKnownAddresses() {
        assertThat(Ipv4.parse("10.0.2.2")).isEqualTo(0x0A000202);
        assertThat(Ipv4.parse("255.255.255.255")).isEqualTo(0xffffffff);
        assertThat(Ipv4.parse("0.0.0.0")).isZero();
        assertThat(Ipv4.parse("010.000.002.002")).as("leading zeros are decimal").isEqualTo(0x0A000202);
        assertThat(Ipv4.format(0xc0a800c7)).isEqualTo("192.168.0.199");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.256", "1..2.3", ".1.2.3", "1.2.3.",
            " 1.2.3.4", "1.2.3.4 ", "-1.2.3.4", "+1.2.3.4", "0x1.2.3.4", "1234.1.1.1", "0001.1.1.1", "a.b.c.d",
            "1,2,3,4", "...", "1.2.3.4\n", "\u0661.\u0662.\u0663.\u0664", "1.2.3.\uff14"})
    void parseRejectsMalformedText(String text) {
        assertThatIllegalArgumentException().isThrownBy(() -> Ipv4.parse(text)).withMessageContaining(text);
    }

    private static final Pattern DOTTED = Pattern.compile("([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})\\.([0-9]{1,3})");

    @Provide
    Arbitrary<String> addressLike() {
        return Arbitraries.strings().withChars("0123456789.").withChars("0123456789.-+ x\u0663\uff15")
                .ofMaxLength(18);
    }

    @Property(tries = 500)
    void parseAcceptsExactlyDottedDecimalQuads(@ForAll("addressLike") String text) {
        assertParseAgreesWithReference(text);
    }

    @Property(tries = 300)
    void parseOfArbitraryStringsReturnsOrThrowsIllegalArgument(@ForAll @Size(max = 20) String text) {
        assertParseAgreesWithReference(text);
    }

    private static void assertParseAgreesWithReference(String text) {
        Matcher m = DOTTED.matcher(text);
        boolean valid = m.matches();
        int expected = 0;
        for (int i = 1; valid && i <= 4; i++) {
            int v = Integer.parseInt(m.group(i));
            valid = v <= 255;
            expected = (expected << 8) | v;
        }
        if (valid) {
            assertThat(Ipv4.parse(text)).isEqualTo(expected);
        } else {
            assertThatThrownBy(() -> Ipv4.parse(text)).isExactlyInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void netmaskForEveryPrefixLength() {
        for (int p = 0; p <= 32; p++) {
            long expected = 0;
            for (int bit = 0; bit < p; bit++) expected |= 1L << (31 - bit);
            assertThat(Ipv4.netmask(p)).as("/%d", p).isEqualTo((int) expected);
        }
        assertThat(Ipv4.netmask(24)).isEqualTo(0xffffff00);
    }
}
