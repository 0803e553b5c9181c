package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class DhcpTest {

    private static final long CLIENT_MAC = 0x5254_0012_3456L;

    /** A DISCOVER from 52:54:00:12:34:56, xid 0x3903f326, broadcast flag, followed by the given options. */
    private static byte[] request(String optionsHex) {
        byte[] opts = Segs.hex(optionsHex);
        byte[] b = new byte[240 + opts.length];
        b[0] = 1; // BOOTREQUEST
        b[1] = 1; // Ethernet
        b[2] = 6;
        Ref.put32(b, 4, 0x3903f326);
        Ref.put16(b, 10, 0x8000);
        Ref.put32(b, 12, 0x0a00020f);
        Ref.putMac(b, 28, CLIENT_MAC);
        Ref.put32(b, 236, 0x63825363);
        System.arraycopy(opts, 0, b, 240, opts.length);
        return b;
    }

    // DISCOVER, requested 10.0.2.15, server id 10.0.2.2, parameter list, END.
    private static final String OPTIONS = "350101 32040a00020f 36040a000202 370401030f06 ff";

    @Test
    void checkRequestAcceptsARealRequestAndReadsItsFields() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                byte[] b = request(OPTIONS);
                MemorySegment s = Segs.of(kind, arena, b);
                assertThat(Dhcp.checkRequest(s, 0, b.length)).isNull();
                assertThat(Dhcp.checkRequest(s.asSlice(0, 240), 0, 240)).as("no options at all").isNull();
                assertThat(Dhcp.xid(s, 0)).isEqualTo(0x3903f326);
                assertThat(Dhcp.flags(s, 0)).isEqualTo(Dhcp.FLAG_BROADCAST);
                assertThat(Dhcp.clientAddress(s, 0)).isEqualTo(0x0a00020f);
                assertThat(Dhcp.clientMac(s, 0)).isEqualTo(CLIENT_MAC);
                assertThat(Dhcp.messageType(s, 0, b.length)).isEqualTo(Dhcp.DISCOVER);
                assertThat(Dhcp.requestedAddress(s, 0, b.length)).isEqualTo(0x0a00020f);
                assertThat(Dhcp.serverId(s, 0, b.length)).isEqualTo(0x0a000202);
                assertThat(Dhcp.findOption(s, 0, b.length, 55)).isEqualTo(240 + 3 + 6 + 6 + 2);
                assertThat(Dhcp.findOption(s, 0, b.length, Dhcp.OPT_HOSTNAME)).isEqualTo(-1);
            }
        }
    }

    @Test
    void checkRequestRejectsTruncatedAndForeignMessages() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                byte[] ok = request("ff");
                for (int len : new int[] {0, 1, 8, 236, 239}) {
                    MemorySegment s = Segs.of(kind, arena, ok).asSlice(0, len);
                    assertThat(Dhcp.checkRequest(s, 0, len)).as("len %d", len).isEqualTo(Drop.TRUNCATED);
                }
                int[][] corruptions = {{0, 2}, {1, 6}, {2, 16}, {2, 0}};
                for (int[] c : corruptions) {
                    byte[] bad = ok.clone();
                    bad[c[0]] = (byte) c[1];
                    assertThat(Dhcp.checkRequest(Segs.of(kind, arena, bad), 0, bad.length))
                            .as("byte %d = %d", c[0], c[1]).isEqualTo(Drop.BAD_FIELD);
                }
                for (int i = 236; i < 240; i++) {
                    byte[] bad = ok.clone();
                    bad[i] ^= 0x20;
                    assertThat(Dhcp.checkRequest(Segs.of(kind, arena, bad), 0, bad.length)).isEqualTo(Drop.BAD_FIELD);
                }
            }
        }
    }

    @Property(tries = 200)
    void writeReplyThenReadEveryField(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off, @ForAll int xid,
                                      @ForAll @IntRange(max = 0xffff) int flags, @ForAll int yiaddr, @ForAll int siaddr,
                                      @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + Dhcp.FIXED_LENGTH);
            s.fill((byte) 0x77);
            Dhcp.writeReply(s, off, xid, flags, mac);
            assertThat(Segs.bytes(s, off + 16, 8)).as("no addresses yet").containsOnly((byte) 0);
            Dhcp.writeAddresses(s, off, yiaddr, siaddr);
            assertThat(Dhcp.xid(s, off)).isEqualTo(xid);
            assertThat(Dhcp.flags(s, off)).isEqualTo(flags);
            assertThat(Dhcp.clientMac(s, off)).isEqualTo(mac);
            assertThat(Dhcp.clientAddress(s, off)).isZero();

            byte[] expected = new byte[240];
            expected[0] = 2;
            expected[1] = 1;
            expected[2] = 6;
            Ref.put32(expected, 4, xid);
            Ref.put16(expected, 10, flags);
            Ref.put32(expected, 16, yiaddr);
            Ref.put32(expected, 20, siaddr);
            Ref.putMac(expected, 28, mac);
            Ref.put32(expected, 236, 0x63825363);
            assertThat(Segs.bytes(s, off, 240)).containsExactly(expected);
            if (off > 0) assertThat(Bytes.u8(s, off - 1)).as("nothing written before off").isEqualTo(0x77);
        }
    }

    @Property(tries = 200)
    void aWrittenRequestIsOneTheServerTakes(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off, @ForAll int xid,
                                            @ForAll @IntRange(max = 0xffff) int flags, @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + Dhcp.FIXED_LENGTH + 4);
            s.fill((byte) 0x77);
            Dhcp.writeRequest(s, off, xid, flags, mac);
            long end = Dhcp.putEnd(s, Dhcp.putOption(s, off + Dhcp.FIXED_LENGTH, Dhcp.OPT_MESSAGE_TYPE, 1, Dhcp.DISCOVER));
            int len = (int) (end - off);
            assertThat(Dhcp.checkRequest(s, off, len)).isNull();
            assertThat(Dhcp.messageType(s, off, len)).isEqualTo(Dhcp.DISCOVER);
            assertThat(Dhcp.xid(s, off)).isEqualTo(xid);
            assertThat(Dhcp.flags(s, off)).isEqualTo(flags);
            assertThat(Dhcp.clientMac(s, off)).isEqualTo(mac);
            assertThat(Dhcp.clientAddress(s, off)).isZero();
            assertThat(Dhcp.yourAddress(s, off)).isZero();
            assertThat(Bytes.u8(s, off)).as("op: BOOTREQUEST").isEqualTo(Dhcp.OP_REQUEST);
            if (off > 0) assertThat(Bytes.u8(s, off - 1)).as("nothing written before off").isEqualTo(0x77);
        }
    }

    // ---- options ----

    private static long find(Kind kind, byte[] msg, int len, int code) {
        try (Arena arena = Arena.ofConfined()) {
            return Dhcp.findOption(Segs.of(kind, arena, msg).asSlice(0, len), 0, len, code);
        }
    }

    @Test
    void findOptionSkipsPadAndStopsAtEnd() {
        for (Kind kind : Kind.values()) {
            byte[] m = request("00 00 350103 00 3304 00000e10 ff 3604 0a000202");
            assertThat(find(kind, m, m.length, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(244);
            assertThat(find(kind, m, m.length, Dhcp.OPT_LEASE_TIME)).isEqualTo(248);
            assertThat(find(kind, m, m.length, Dhcp.OPT_SERVER_ID)).as("after END").isEqualTo(-1);
            assertThat(find(kind, m, m.length, Dhcp.OPT_PAD)).isEqualTo(-1);
            assertThat(find(kind, m, m.length, Dhcp.OPT_END)).isEqualTo(-1);
            byte[] pads = request("00 00 00 00");
            assertThat(find(kind, pads, pads.length, Dhcp.OPT_MESSAGE_TYPE)).as("only padding").isEqualTo(-1);
        }
    }

    @Test
    void findOptionRejectsTruncatedOptions() {
        for (Kind kind : Kind.values()) {
            byte[] m = request("350103 3604 0a000202");
            int full = m.length; // 240 + 9
            assertThat(find(kind, m, full, Dhcp.OPT_SERVER_ID)).as("value ends exactly at len").isEqualTo(245);
            assertThat(find(kind, m, full - 1, Dhcp.OPT_SERVER_ID)).as("value runs past len").isEqualTo(-1);
            assertThat(find(kind, m, 244, Dhcp.OPT_SERVER_ID)).as("length byte missing").isEqualTo(-1);
            assertThat(find(kind, m, 241, Dhcp.OPT_MESSAGE_TYPE)).as("length byte missing").isEqualTo(-1);
            assertThat(find(kind, m, 242, Dhcp.OPT_MESSAGE_TYPE)).as("value missing").isEqualTo(-1);
            assertThat(find(kind, m, 243, Dhcp.OPT_MESSAGE_TYPE)).isEqualTo(242);
            assertThat(find(kind, m, 240, Dhcp.OPT_MESSAGE_TYPE)).as("no options").isEqualTo(-1);
            assertThat(find(kind, m, 100, Dhcp.OPT_MESSAGE_TYPE)).as("shorter than the fixed part").isEqualTo(-1);
            // A later option is not found when an earlier one runs past the end.
            byte[] bad = request("0cff 6162 3604 0a000202");
            assertThat(find(kind, bad, bad.length, Dhcp.OPT_SERVER_ID)).isEqualTo(-1);
        }
    }

    @Test
    void typedOptionAccessorsCheckTheOptionLength() {
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                byte[] m = request("35020301 3203 0a0002 3605 0a00020200 ff");
                MemorySegment s = Segs.of(kind, arena, m);
                assertThat(Dhcp.messageType(s, 0, m.length)).isEqualTo(-1);
                assertThat(Dhcp.requestedAddress(s, 0, m.length)).isZero();
                assertThat(Dhcp.serverId(s, 0, m.length)).isZero();
                byte[] none = request("ff");
                MemorySegment n = Segs.of(kind, arena, none);
                assertThat(Dhcp.messageType(n, 0, none.length)).isEqualTo(-1);
                assertThat(Dhcp.requestedAddress(n, 0, none.length)).isZero();
                assertThat(Dhcp.serverId(n, 0, none.length)).isZero();
                byte[] zeroLength = request("3500 3200 3600 ff");
                MemorySegment z = Segs.of(kind, arena, zeroLength);
                assertThat(Dhcp.messageType(z, 0, zeroLength.length)).isEqualTo(-1);
                assertThat(Dhcp.requestedAddress(z, 0, zeroLength.length)).isZero();
                assertThat(Dhcp.serverId(z, 0, zeroLength.length)).isZero();
            }
        }
    }

    /** One option: code 0 is a lone PAD byte, others code, length, value. */
    record Opt(int code, byte[] value) {}

    @Provide
    Arbitrary<List<Opt>> optionLists() {
        Arbitrary<Opt> pad = Arbitraries.just(new Opt(0, new byte[0]));
        Arbitrary<Opt> option = Combinators.combine(Arbitraries.integers().between(1, 254),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(12)).as(Opt::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, pad), net.jqwik.api.Tuple.of(4, option)).list().ofMaxSize(15);
    }

    @Property(tries = 300)
    void findOptionFindsTheFirstOccurrenceOfEveryCode(@ForAll Kind kind, @ForAll("optionLists") List<Opt> list,
                                                      @ForAll boolean withEnd, @ForAll @Size(max = 20) byte[] trailer,
                                                      @ForAll @IntRange(min = 1, max = 254) int code) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(request(""));
        long expected = -1;
        for (Opt o : list) {
            out.write(o.code());
            if (o.code() == 0) continue;
            out.write(o.value().length);
            if (o.code() == code && expected < 0) expected = out.size();
            out.writeBytes(o.value());
        }
        if (withEnd) {
            out.write(255);
            out.writeBytes(trailer); // never looked at
        }
        byte[] m = out.toByteArray();
        assertThat(find(kind, m, m.length, code)).isEqualTo(expected);
        // Truncating the message anywhere never finds an option whose value is cut off.
        int cut = 240 + (m.length - 240) / 2;
        long truncated = find(kind, m, cut, code);
        if (truncated >= 0) {
            assertThat(truncated).isEqualTo(expected);
            assertThat(truncated + (m[(int) truncated - 1] & 0xff)).isLessThanOrEqualTo(cut);
        }
    }
}
