package io.jslirp.check;

import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Builds the guest's frames for tests: Ethernet, IPv4 or IPv6 (with extension headers and
 * fragments), then TCP, UDP, ICMP or raw bytes, every checksum right unless asked otherwise.
 * <pre>
 * MemorySegment syn = Frames.v6("fd00::1:2:3:4", "fd00::2").hopByHop(pad(4)).tcp(40000, 80, Tcp.SYN, 1, 0).build();
 * </pre>
 */
public final class Frames {
    public static final long GUEST_MAC = 0x0200_0000_0001L, ROUTER_MAC = 0x5255_0a00_0202L;
    private static final Arena ARENA = Arena.ofAuto();

    private final IpVersion version;
    private final IpHeader ip = new IpHeader();
    private long srcMac = GUEST_MAC, dstMac = ROUTER_MAC;
    private final ByteArrayOutputStream extensions = new ByteArrayOutputStream();
    /** Each extension header's type, in order, and where its next-header byte is in extensions. */
    private final java.util.List<int[]> extensionTypes = new java.util.ArrayList<>();
    private int protocol = -1;
    private byte[] l4Header = new byte[0];
    private byte[] payload = new byte[0];
    private int checksumAt = -1;
    private boolean corrupt, zeroChecksum;
    private int fragmentOffset = -1, fragmentId;
    private boolean moreFragments;
    private Integer payloadLengthOverride;

    private Frames(IpVersion version) {
        this.version = version;
        ip.ttl(64);
    }

    /** An IPv4 packet from src to dst (dotted quads). */
    public static Frames v4(String src, String dst) {
        return v4(Ipv4.parse(src), Ipv4.parse(dst));
    }

    public static Frames v4(int src, int dst) {
        Frames f = new Frames(IpVersion.V4);
        f.ip.source4(src).destination4(dst);
        return f;
    }

    /** An IPv6 packet from src to dst. */
    public static Frames v6(String src, String dst) {
        long[] s = Ipv6.parse(src), d = Ipv6.parse(dst);
        return v6(s, d);
    }

    public static Frames v6(long[] src, long[] dst) {
        Frames f = new Frames(IpVersion.V6);
        f.ip.source(src[0], src[1]).destination(dst[0], dst[1]);
        return f;
    }

    public Frames macs(long src, long dst) {
        srcMac = src;
        dstMac = dst;
        return this;
    }

    public Frames ttl(int ttl) {
        ip.ttl(ttl);
        return this;
    }

    /** A Hop-by-Hop Options header holding options (padded to a multiple of 8 with PadN). */
    public Frames hopByHop(byte[] options) {
        return optionsHeader(Ipv6.HOP_BY_HOP, options);
    }

    public Frames destinationOptions(byte[] options) {
        return optionsHeader(Ipv6.DESTINATION_OPTIONS, options);
    }

    /** A Routing header of type with segmentsLeft (and 4 bytes of zeros as its data). */
    public Frames routing(int type, int segmentsLeft) {
        return extension(Ipv6.ROUTING, new byte[] {0, 0, (byte) type, (byte) segmentsLeft, 0, 0, 0, 0});
    }

    /** Any extension header: its first byte (next header) is filled in; body's second byte is its length field. */
    public Frames extension(int type, byte[] body) {
        extensionTypes.add(new int[] {type, extensions.size()});
        extensions.writeBytes(body);
        return this;
    }

    private Frames optionsHeader(int type, byte[] options) {
        int length = (2 + options.length + 7) / 8 * 8;
        byte[] b = new byte[length];
        b[1] = (byte) (length / 8 - 1);
        System.arraycopy(options, 0, b, 2, options.length);
        int pad = length - 2 - options.length;
        if (pad == 1) b[2 + options.length] = 0; // Pad1
        else if (pad > 1) {
            b[2 + options.length] = 1; // PadN
            b[3 + options.length] = (byte) (pad - 2);
        }
        return extension(type, b);
    }

    /**
     * Makes this packet one fragment: the bytes [offset, offset + length of what it carries) of a
     * datagram with id (IPv4: flags in the header; IPv6: a Fragment header after the others).
     */
    public Frames fragment(int offset, boolean more, int id) {
        fragmentOffset = offset;
        moreFragments = more;
        fragmentId = id;
        return this;
    }

    public Frames tcp(int srcPort, int dstPort, int flags, int seq, int ack) {
        return tcp(srcPort, dstPort, flags, seq, ack, 65535, new byte[0]);
    }

    /** A TCP header with options (a multiple of 4 bytes). */
    public Frames tcp(int srcPort, int dstPort, int flags, int seq, int ack, int window, byte[] options) {
        int hl = Tcp.MIN_HEADER_LENGTH + options.length;
        MemorySegment h = MemorySegment.ofArray(new byte[hl]);
        Tcp.write(h, 0, srcPort, dstPort, seq, ack, flags, window, hl);
        MemorySegment.copy(MemorySegment.ofArray(options), 0, h, Tcp.MIN_HEADER_LENGTH, options.length);
        l4Header = h.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        protocol = Ipv4.PROTO_TCP;
        checksumAt = Tcp.CHECKSUM_OFFSET;
        return this;
    }

    public Frames udp(int srcPort, int dstPort) {
        l4Header = new byte[Udp.HEADER_LENGTH];
        Ref16.put(l4Header, 0, srcPort);
        Ref16.put(l4Header, 2, dstPort);
        protocol = Ipv4.PROTO_UDP;
        checksumAt = 6;
        return this;
    }

    /** An ICMP (ICMPv6 over IPv6) message: type, code, the 4 bytes after the checksum. */
    public Frames icmp(int type, int code, int rest) {
        l4Header = new byte[Icmp.HEADER_LENGTH];
        l4Header[0] = (byte) type;
        l4Header[1] = (byte) code;
        Ref16.put(l4Header, 4, rest >>> 16);
        Ref16.put(l4Header, 6, rest);
        protocol = version.icmpProtocol();
        checksumAt = 2;
        return this;
    }

    /** Raw bytes of protocol (no header of ours, no checksum). */
    public Frames raw(int protocol) {
        this.protocol = protocol;
        l4Header = new byte[0];
        checksumAt = -1;
        return this;
    }

    public Frames payload(byte[] payload) {
        this.payload = payload.clone();
        return this;
    }

    /** length bytes of a pattern. */
    public Frames payload(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) (i * 31 + 7);
        return payload(b);
    }

    /** The transport checksum made wrong. */
    public Frames badChecksum() {
        corrupt = true;
        return this;
    }

    /** A UDP checksum of 0 ("none"). */
    public Frames zeroChecksum() {
        zeroChecksum = true;
        return this;
    }

    /** The IP payload length field says this instead of the truth. */
    public Frames claimPayloadLength(int length) {
        payloadLengthOverride = length;
        return this;
    }

    /** The transport message (header and payload) with its checksum filled, as the whole datagram has it. */
    public byte[] transport() {
        byte[] m = new byte[l4Header.length + payload.length];
        System.arraycopy(l4Header, 0, m, 0, l4Header.length);
        System.arraycopy(payload, 0, m, l4Header.length, payload.length);
        if (protocol == Ipv4.PROTO_UDP && checksumAt >= 0) Ref16.put(m, 4, m.length);
        if (checksumAt >= 0) {
            MemorySegment s = MemorySegment.ofArray(m);
            int pseudo = protocol == Ipv4.PROTO_ICMP ? 0 : version.pseudoHeader(ip, protocol, m.length);
            int sum = Checksum.finish(Checksum.sum(s, 0, m.length, pseudo));
            if (protocol == Ipv4.PROTO_UDP && sum == 0) sum = 0xffff;
            if (zeroChecksum) sum = 0;
            if (corrupt) sum ^= 0x5a5a;
            Ref16.put(m, checksumAt, sum);
        }
        return m;
    }

    public MemorySegment build() {
        return frame(transport(), fragmentOffset);
    }

    /** The fragment carrying bytes [offset, offset + length) of this datagram's transport message, more: others follow. */
    public MemorySegment piece(int offset, int length, boolean more, int id) {
        byte[] whole = transport();
        fragmentOffset = offset;
        moreFragments = more;
        fragmentId = id;
        MemorySegment f = frame(java.util.Arrays.copyOfRange(whole, offset, Math.min(whole.length, offset + length)), offset);
        fragmentOffset = -1;
        return f;
    }

    private MemorySegment frame(byte[] data, int fragment) {
        byte[] ext = extensions.toByteArray();
        boolean v6 = version == IpVersion.V6;
        int fragmentHeader = v6 && fragment >= 0 ? Ipv6.FRAGMENT_HEADER_LENGTH : 0;
        int ipHeader = version.headerLength();
        int length = Ethernet.HEADER_LENGTH + ipHeader + ext.length + fragmentHeader + data.length;
        MemorySegment f = ARENA.allocate(length);
        Ethernet.write(f, 0, dstMac, srcMac, version.etherType());
        // the chain of next headers: the fixed header names the first extension, each names the next
        int[] chain = new int[extensionTypes.size() + (fragmentHeader > 0 ? 1 : 0) + 1];
        int n = 0;
        for (int[] e : extensionTypes) chain[n++] = e[0];
        if (fragmentHeader > 0) chain[n++] = Ipv6.FRAGMENT;
        chain[n] = protocol;
        ip.protocol(chain[0]).payloadLength(ext.length + fragmentHeader + data.length).id(fragmentId);
        if (!v6 && fragment >= 0) ip.fragment(fragment, moreFragments);
        else ip.whole();
        version.write(f, Ethernet.HEADER_LENGTH, ip);
        long at = Ethernet.HEADER_LENGTH + ipHeader;
        MemorySegment.copy(MemorySegment.ofArray(ext), 0, f, at, ext.length);
        for (int i = 0; i < extensionTypes.size(); i++) Bytes.u8(f, at + extensionTypes.get(i)[1], chain[i + 1]);
        at += ext.length;
        if (fragmentHeader > 0) {
            Bytes.u8(f, at, protocol);
            Bytes.u8(f, at + 1, 0);
            Bytes.u16(f, at + 2, (fragment & 0xfff8) | (moreFragments ? 1 : 0));
            Bytes.u32(f, at + 4, fragmentId);
            at += fragmentHeader;
        }
        MemorySegment.copy(MemorySegment.ofArray(data), 0, f, at, data.length);
        if (payloadLengthOverride != null) {
            if (v6) Bytes.u16(f, Ethernet.HEADER_LENGTH + 4, payloadLengthOverride);
            else {
                Bytes.u16(f, Ethernet.HEADER_LENGTH + 2, payloadLengthOverride + ipHeader);
                Bytes.u16(f, Ethernet.HEADER_LENGTH + 10, 0);
                Bytes.u16(f, Ethernet.HEADER_LENGTH + 10, Checksum.of(f, Ethernet.HEADER_LENGTH, ipHeader));
            }
        }
        return f;
    }

    /** IPv6 option TLVs for {@link #hopByHop}: an option of type with length bytes of data. */
    public static byte[] option(int type, int length) {
        byte[] b = new byte[2 + length];
        b[0] = (byte) type;
        b[1] = (byte) length;
        return b;
    }

    private static final class Ref16 {
        static void put(byte[] b, int i, int v) {
            b[i] = (byte) (v >> 8);
            b[i + 1] = (byte) v;
        }
    }
}
