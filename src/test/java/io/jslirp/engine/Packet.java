package io.jslirp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Frames a test guest sends, built by hand (independent of the codecs under test), and the frames
 * jslirp sends back, parsed and checked: every checksum (IPv4 header, TCP, UDP, ICMP, ICMPv6) is
 * verified on parsing.
 */
public final class Packet {
    public static final int TCP = 6, UDP = 17, ICMP = 1, ICMPV6 = 58;
    public static final int FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10;
    public static final byte[] GATEWAY_MAC = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x02};
    public static final byte[] GUEST_MAC = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};

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

    // ---- building the guest's frames ----

    /** A TCP segment from the guest; set what matters, then {@link Tcp#frame()}. */
    public static Tcp tcp(String source, int sourcePort, String destination, int destinationPort) {
        return new Tcp(source, sourcePort, destination, destinationPort);
    }

    public static final class Tcp {
        private final String source, destination;
        private final int sourcePort, destinationPort;
        private int flags = ACK, window = 65535, mss = -1, windowScale = -1;
        private long seq, ack;
        private byte[] data = new byte[0];

        private Tcp(String source, int sourcePort, String destination, int destinationPort) {
            this.source = source;
            this.sourcePort = sourcePort;
            this.destination = destination;
            this.destinationPort = destinationPort;
        }

        public Tcp flags(int v) {
            flags = v;
            return this;
        }

        public Tcp seq(long v) {
            seq = v;
            return this;
        }

        public Tcp ack(long v) {
            ack = v;
            return this;
        }

        public Tcp window(int v) {
            window = v;
            return this;
        }

        public Tcp mss(int v) {
            mss = v;
            return this;
        }

        public Tcp windowScale(int v) {
            windowScale = v;
            return this;
        }

        public Tcp data(byte[] v) {
            data = v;
            return this;
        }

        public byte[] frame() {
            int opts = (mss >= 0 ? 4 : 0) + (windowScale >= 0 ? 4 : 0);
            int hdr = 20 + opts;
            ByteBuffer t = ByteBuffer.allocate(hdr + data.length);
            t.putShort((short) sourcePort).putShort((short) destinationPort).putInt((int) seq).putInt((int) ack);
            t.put((byte) ((hdr / 4) << 4)).put((byte) flags).putShort((short) window).putShort((short) 0).putShort((short) 0);
            if (mss >= 0) t.put((byte) 2).put((byte) 4).putShort((short) mss);
            if (windowScale >= 0) t.put((byte) 1).put((byte) 3).put((byte) 3).put((byte) windowScale);
            t.put(data);
            return ip(source, destination, TCP, t.array(), 16);
        }
    }

    /** A UDP datagram from the guest. */
    public static byte[] udp(String source, int sourcePort, String destination, int destinationPort, byte[] data) {
        ByteBuffer u = ByteBuffer.allocate(8 + data.length);
        u.putShort((short) sourcePort).putShort((short) destinationPort).putShort((short) (8 + data.length)).putShort((short) 0).put(data);
        return ip(source, destination, UDP, u.array(), 6);
    }

    /** An echo request from the guest (ICMP, or ICMPv6 between IPv6 addresses). */
    public static byte[] echo(String source, String destination, int id, int sequence, byte[] data) {
        boolean v6 = source.contains(":");
        ByteBuffer e = ByteBuffer.allocate(8 + data.length);
        e.put((byte) (v6 ? 128 : 8)).put((byte) 0).putShort((short) 0).putShort((short) id).putShort((short) sequence).put(data);
        return ip(source, destination, v6 ? ICMPV6 : ICMP, e.array(), 2);
    }

    /** An Ethernet frame to the gateway's MAC with an IP header in front of the transport bytes l4, whose checksum (at checksumAt) is filled. */
    private static byte[] ip(String source, String destination, int protocol, byte[] l4, int checksumAt) {
        byte[] src = address(source), dst = address(destination);
        boolean v6 = src.length == 16;
        long pseudo = protocol == ICMP ? 0 : pseudoHeader(src, dst, protocol, l4.length);
        int sum = checksum(l4, 0, l4.length, pseudo);
        if (sum == 0 && protocol == UDP) sum = 0xffff;
        l4[checksumAt] = (byte) (sum >>> 8);
        l4[checksumAt + 1] = (byte) sum;
        ByteBuffer f = ByteBuffer.allocate(14 + (v6 ? 40 : 20) + l4.length);
        f.put(GATEWAY_MAC).put(GUEST_MAC).putShort((short) (v6 ? 0x86dd : 0x0800));
        if (v6) {
            f.putInt(6 << 28).putShort((short) l4.length).put((byte) protocol).put((byte) 64).put(src).put(dst);
        } else {
            int at = f.position();
            f.put((byte) 0x45).put((byte) 0).putShort((short) (20 + l4.length)).putShort((short) 1).putShort((short) 0)
                    .put((byte) 64).put((byte) protocol).putShort((short) 0).put(src).put(dst);
            int h = checksum(f.array(), at, 20, 0);
            f.putShort(at + 10, (short) h);
        }
        f.put(l4);
        return f.array();
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
