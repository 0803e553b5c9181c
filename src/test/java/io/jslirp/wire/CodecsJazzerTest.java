package io.jslirp.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any bytes into every check and parse method of the wire codecs (IPv4, IPv6
 * and its extension headers, TCP and its options, UDP, ICMP, ARP, NDP, DHCP, DHCPv6), in a
 * segment cut to exactly the bytes given, so a read past them throws: none throws
 * ({@link MalformedInputTest#neverThrows}); and what the IPv4, UDP, TCP and ARP checks accept
 * agrees with a reference reading of the bytes ({@link MalformedInputTest#checkConsistent}).
 * The first byte picks where the message starts, the second the DHCP option looked for.
 */
class CodecsJazzerTest {
    @FuzzTest(maxDuration = "4s")
    void codecsNeverThrowAndAgreeWithTheReference(byte[] input) {
        if (input.length < 2) return;
        byte[] data = Arrays.copyOfRange(input, 2, input.length);
        int off = (input[0] & 0xff) % (data.length + 1);
        try (Arena arena = Arena.ofConfined()) {
            for (Kind kind : Kind.values()) {
                MalformedInputTest.neverThrows(Segs.of(kind, arena, data), off, data.length - off, input[1] & 0xff);
                MalformedInputTest.checkConsistent(kind, data.clone(), input[0] & 3);
            }
        }
    }

    /** IP packets as FrameBuilder builds them, read from their IP header and from their transport header; a DHCP request. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        Map<String, io.jslirp.wire.build.FrameBuilder> frames = new TreeMap<>();
        frames.put("syn4", io.jslirp.wire.build.FrameBuilder.v4("10.0.2.100", "10.0.2.2").tcp(40000, 80, Tcp.SYN, 1, 0).mss(1460)
                .windowScale(7).sackPermitted().timestamps(1, 0));
        frames.put("ack-sack4", io.jslirp.wire.build.FrameBuilder.v4("10.0.2.100", "10.0.2.2").tcp(40000, 80, Tcp.ACK, 1, 1)
                .sack(100, 200, 300, 400).payload(20));
        frames.put("udp4", io.jslirp.wire.build.FrameBuilder.v4("10.0.2.100", "10.0.2.3").udp(40000, 53).payload(40));
        frames.put("echo4", io.jslirp.wire.build.FrameBuilder.v4("10.0.2.100", "10.0.2.2").echo(1, 1).payload(16));
        frames.put("syn6-hop-by-hop", io.jslirp.wire.build.FrameBuilder.v6("fd00::1:2:3:4", "fd00::2")
                .hopByHop(io.jslirp.wire.build.FrameBuilder.option(1, 4)).tcp(40000, 80, Tcp.SYN, 1, 0).mss(1440));
        frames.put("udp6", io.jslirp.wire.build.FrameBuilder.v6("fd00::1:2:3:4", "fd00::3").udp(40000, 53).payload(40));
        frames.put("echo6-fragment", io.jslirp.wire.build.FrameBuilder.v6("fd00::1:2:3:4", "fd00::2").echo(1, 1).payload(16)
                .fragment(0, true, 9));
        frames.forEach((name, f) -> {
            byte[] ip = Arrays.copyOfRange(f.bytes(), Ethernet.HEADER_LENGTH, f.length());
            seeds.put(name + "-ip", prefixed(0, 0, ip));
            seeds.put(name + "-transport", prefixed(f.transportOffset() - Ethernet.HEADER_LENGTH, 0, ip));
        });
        seeds.put("arp", prefixed(0, 0, Arrays.copyOfRange(io.jslirp.wire.build.FrameBuilder.arp(1, Ipv4.parse("10.0.2.100"), 0,
                Ipv4.parse("10.0.2.2")).bytes(), Ethernet.HEADER_LENGTH, Ethernet.HEADER_LENGTH + Arp.LENGTH)));
        byte[] dhcp = new byte[Dhcp.FIXED_LENGTH + 10];
        dhcp[0] = (byte) Dhcp.OP_REQUEST;
        dhcp[1] = 1;
        dhcp[2] = 6;
        MemorySegment d = MemorySegment.ofArray(dhcp);
        Bytes.u32(d, 236, Dhcp.MAGIC_COOKIE);
        byte[] options = {(byte) Dhcp.OPT_MESSAGE_TYPE, 1, (byte) Dhcp.DISCOVER, (byte) Dhcp.OPT_REQUESTED_IP, 4, 10, 0, 2, 15, (byte) 255};
        System.arraycopy(options, 0, dhcp, 240, options.length);
        seeds.put("dhcp-discover", prefixed(0, Dhcp.OPT_REQUESTED_IP, dhcp));
        seeds.put("random", prefixed(0, 0, new SplittableRandom(1).ints(64, 0, 256).collect(java.io.ByteArrayOutputStream::new,
                java.io.ByteArrayOutputStream::write, (a, b) -> { }).toByteArray()));
        Seeds.write(getClass(), "codecsNeverThrowAndAgreeWithTheReference", seeds);
    }

    private static byte[] prefixed(int offset, int code, byte[] data) {
        byte[] out = new byte[2 + data.length];
        out[0] = (byte) offset;
        out[1] = (byte) code;
        System.arraycopy(data, 0, out, 2, data.length);
        return out;
    }
}
