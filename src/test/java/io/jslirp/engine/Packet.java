package io.jslirp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A frame jslirp sent, parsed by hand (independent of the codecs under test) and checked: every
 * checksum (IPv4 header, TCP, UDP, ICMP, ICMPv6) is verified on parsing. What the test guest sends
 * is built by {@code wire.build.FrameBuilder}.
 */
public final class Packet {
    public static final int TCP = 6, UDP = 17, ICMP = 1, ICMPV6 = 58;
    public static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10;

    // ---- parsed fields of a frame jslirp sent ----
    public final int etherType, version, protocol;
    public final String source, destination;
    public final int sourcePort, destinationPort;
    /** TCP: flags, numbers, window; MSS and window scale of a SYN (-1 when absent), timestamps. */
    public final int flags, window, mss, windowScale;
    public final long seq, ack;
    public final boolean timestamps;
    /** ICMP: type, code, and bytes 4-7 (identifier and sequence of an echo). */
    public final int icmpType, icmpCode, icmpRest;
    /** The transport payload: TCP or UDP data, or an ICMP message's data after its 8-byte header (an error's quoted packet). */
    public final byte[] payload;

    private Packet(byte[] f) {
        ByteBuffer b = ByteBuffer.wrap(f);
        etherType = b.getShort(12) & 0xffff;
        int ip = 14;
        int l4, l4Length;
        byte[] src, dst;
        if (etherType == 0x0800) {
            version = 4;
            int ihl = (b.get(ip) & 0x0f) * 4;
            int total = b.getShort(ip + 2) & 0xffff;
            assertThat(checksum(f, ip, ihl, 0)).as("IPv4 header checksum").isZero();
            protocol = b.get(ip + 9) & 0xff;
            src = Arrays.copyOfRange(f, ip + 12, ip + 16);
            dst = Arrays.copyOfRange(f, ip + 16, ip + 20);
            l4 = ip + ihl;
            l4Length = total - ihl;
            assertThat(14 + total).as("frame length").isLessThanOrEqualTo(f.length);
        } else if (etherType == 0x86dd) {
            version = 6;
            protocol = b.get(ip + 6) & 0xff;
            src = Arrays.copyOfRange(f, ip + 8, ip + 24);
            dst = Arrays.copyOfRange(f, ip + 24, ip + 40);
            l4 = ip + 40;
            l4Length = b.getShort(ip + 4) & 0xffff;
        } else {
            version = 0;
            protocol = 0;
            source = destination = null;
            sourcePort = destinationPort = flags = window = mss = windowScale = icmpType = icmpCode = icmpRest = -1;
            seq = ack = -1;
            timestamps = false;
            payload = new byte[0];
            return;
        }
        source = format(src);
        destination = format(dst);
        long pseudo = pseudoHeader(src, dst, protocol, l4Length);
        int sp = -1, dp = -1, fl = -1, win = -1, ms = -1, ws = -1, type = -1, code = -1, rest = -1;
        long sq = -1, ak = -1;
        boolean ts = false;
        byte[] data;
        switch (protocol) {
            case TCP -> {
                assertThat(checksum(f, l4, l4Length, pseudo)).as("TCP checksum").isZero();
                sp = b.getShort(l4) & 0xffff;
                dp = b.getShort(l4 + 2) & 0xffff;
                sq = b.getInt(l4 + 4) & 0xffffffffL;
                ak = b.getInt(l4 + 8) & 0xffffffffL;
                int hdr = ((b.get(l4 + 12) & 0xff) >>> 4) * 4;
                fl = b.get(l4 + 13) & 0xff;
                win = b.getShort(l4 + 14) & 0xffff;
                for (int o = l4 + 20; o < l4 + hdr; ) {
                    int kind = f[o] & 0xff;
                    if (kind == 0) break;
                    if (kind == 1) {
                        o++;
                        continue;
                    }
                    int len = f[o + 1] & 0xff;
                    if (kind == 2) ms = b.getShort(o + 2) & 0xffff;
                    if (kind == 3) ws = f[o + 2] & 0xff;
                    if (kind == 8) ts = true;
                    o += len;
                }
                data = Arrays.copyOfRange(f, l4 + hdr, l4 + l4Length);
            }
            case UDP -> {
                if (version == 6 || b.getShort(l4 + 6) != 0) assertThat(checksum(f, l4, l4Length, pseudo)).as("UDP checksum").isZero();
                sp = b.getShort(l4) & 0xffff;
                dp = b.getShort(l4 + 2) & 0xffff;
                assertThat(b.getShort(l4 + 4) & 0xffff).as("UDP length").isEqualTo(l4Length);
                data = Arrays.copyOfRange(f, l4 + 8, l4 + l4Length);
            }
            case ICMP, ICMPV6 -> {
                assertThat(checksum(f, l4, l4Length, protocol == ICMPV6 ? pseudo : 0)).as("ICMP checksum").isZero();
                type = f[l4] & 0xff;
                code = f[l4 + 1] & 0xff;
                rest = b.getInt(l4 + 4);
                data = Arrays.copyOfRange(f, l4 + 8, l4 + l4Length);
            }
            default -> data = Arrays.copyOfRange(f, l4, l4 + l4Length);
        }
        sourcePort = sp;
        destinationPort = dp;
        flags = fl;
        window = win;
        mss = ms;
        windowScale = ws;
        seq = sq;
        ack = ak;
        timestamps = ts;
        icmpType = type;
        icmpCode = code;
        icmpRest = rest;
        payload = data;
    }

    /** Parses a frame jslirp sent, checking its checksums. */
    public static Packet parse(byte[] frame) {
        return new Packet(frame);
    }

    public boolean isTcp() {
        return protocol == TCP;
    }

    public boolean has(int flag) {
        return (flags & flag) == flag;
    }

    /** Of an ICMP error: the protocol of the packet it quotes. */
    public int quotedProtocol() {
        return version == 4 ? payload[9] & 0xff : payload[6] & 0xff;
    }

    /** Of an ICMP error: the first 8 bytes of the quoted packet's transport header. */
    public byte[] quotedTransport() {
        int at = version == 4 ? (payload[0] & 0x0f) * 4 : 40;
        return Arrays.copyOfRange(payload, at, at + 8);
    }

    @Override
    public String toString() {
        if (version == 0) return "ethertype " + Integer.toHexString(etherType);
        String what = switch (protocol) {
            case TCP -> "tcp " + sourcePort + " > " + destinationPort + " flags 0x" + Integer.toHexString(flags) + " seq " + seq + " ack "
                    + ack + " win " + window + " len " + payload.length;
            case UDP -> "udp " + sourcePort + " > " + destinationPort + " len " + payload.length;
            default -> "icmp type " + icmpType + " code " + icmpCode;
        };
        return "IPv" + version + " " + source + " > " + destination + " " + what;
    }

    // ---- addresses and checksums ----

    /** An address's bytes: 4 for IPv4, 16 for IPv6 (also for an IPv4-mapped one, which the JDK would make IPv4). */
    public static byte[] address(String text) {
        byte[] a = InetAddress.ofLiteral(text).getAddress();
        if (a.length == 4 && text.contains(":")) {
            byte[] mapped = new byte[16];
            mapped[10] = mapped[11] = (byte) 0xff;
            System.arraycopy(a, 0, mapped, 12, 4);
            return mapped;
        }
        return a;
    }

    /** The address's two halves as AddressBook and HostSockets hold them (IPv4 mapped). */
    public static long[] halves(String text) {
        byte[] a = address(text);
        if (a.length == 4) return new long[] {0, 0xffffL << 32 | (ByteBuffer.wrap(a).getInt() & 0xffffffffL)};
        ByteBuffer b = ByteBuffer.wrap(a);
        return new long[] {b.getLong(), b.getLong()};
    }

    /** Dotted IPv4, or IPv6 as RFC 5952 writes it (the longest run of zero groups as ::). */
    static String format(byte[] a) {
        if (a.length == 4) return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        int bestAt = -1, bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLength) {
                bestAt = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                b.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!b.isEmpty() && b.charAt(b.length() - 1) != ':') b.append(':');
            b.append(Integer.toHexString(g[i]));
        }
        return b.toString();
    }

    private static long pseudoHeader(byte[] src, byte[] dst, int protocol, int length) {
        long sum = 0;
        for (byte[] a : new byte[][] {src, dst}) {
            for (int i = 0; i < a.length; i += 2) sum += ((a[i] & 0xff) << 8) | (a[i + 1] & 0xff);
        }
        return sum + protocol + length;
    }

    /** The Internet checksum of length bytes at offset, with sum added (a pseudo-header's): 0 when they carry a correct one. */
    static int checksum(byte[] b, int offset, int length, long sum) {
        for (int i = 0; i + 1 < length; i += 2) sum += ((b[offset + i] & 0xff) << 8) | (b[offset + i + 1] & 0xff);
        if ((length & 1) != 0) sum += (b[offset + length - 1] & 0xff) << 8;
        while ((sum >>> 16) != 0) sum = (sum & 0xffff) + (sum >>> 16);
        return (int) (~sum & 0xffff);
    }
}
