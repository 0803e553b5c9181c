package io.jslirp.wire.build;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Frames as a guest sends them, for whatever plays the guest: the warm-up's scripted guest, the
 * unit tests and the benchmarks. Ethernet, then ARP or IPv4/IPv6 (with extension headers and
 * fragments), then TCP (with its options), UDP, ICMP/ICMPv6 or raw bytes, written by the
 * {@code wire} codecs; every checksum right unless asked to be wrong.
 * <pre>
 * MemorySegment syn = FrameBuilder.v6("fd00::1:2:3:4", "fd00::2").hopByHop(pad(4)).tcp(40000, 80, Tcp.SYN, 1, 0).mss(1460).build();
 * </pre>
 * A builder is mutable and can be reused: set what changes, then {@link #writeTo} again (the
 * warm-up writes its frames straight into its output buffer that way, the payload already in
 * place: {@link #payloadInPlace}).
 */
public final class FrameBuilder {
    /** The MACs a frame has unless {@link #macs} says otherwise: QEMU's default guest's, and the gateway's. */
    public static final long GUEST_MAC = 0x5254_0012_3456L, GATEWAY_MAC = 0x5255_0a00_0202L;
    private static final int NONE = -1;
    private static final int[] NO_EDGES = {};
    private static final byte[] NO_BYTES = {};

    /** What follows the link header: what {@link #writeTo} writes and checksums. */
    private enum Kind { ARP, RAW, TCP, UDP, ICMP }

    private final IpVersion version;
    private final IpHeader ip = new IpHeader();
    private long srcMac = GUEST_MAC, dstMac = GATEWAY_MAC;
    /** The extension headers' bytes, in order. */
    private byte[] extensions = NO_BYTES;
    /** Each extension header's type and where its next-header byte is in extensions. */
    private final List<int[]> extensionTypes = new ArrayList<>();
    private Kind kind = Kind.RAW;
    private int protocol = 255; // reserved: what a builder told nothing sends
    private int sourcePort, destinationPort;
    // TCP
    private int flags, seq, ack, window = 0xffff;
    private int mss = NONE, windowScale = NONE;
    private boolean timestamps, sackPermitted;
    private int tsVal, tsEcr;
    private int[] sackEdges = NO_EDGES;
    private byte[] tcpOptions = NO_BYTES;
    // ICMP
    private int icmpType, icmpCode, icmpRest;
    // ARP
    private int arpOperation, arpSender, arpTarget;
    private long arpTargetMac;
    private byte[] payload = NO_BYTES;
    /** Bytes of payload the caller has put in place (after {@link #payloadOffset()}), or NONE. */
    private int payloadInPlace = NONE;
    private boolean badChecksum, zeroChecksum;
    private int fragmentOffset = NONE, id;
    private boolean moreFragments;
    private int claimedPayloadLength = NONE;

    private FrameBuilder(IpVersion version) {
        this.version = version;
        ip.ttl(64);
    }

    /** An IPv4 packet from src to dst (dotted quads). */
    public static FrameBuilder v4(String src, String dst) {
        return v4(Ipv4.parse(src), Ipv4.parse(dst));
    }

    public static FrameBuilder v4(int src, int dst) {
        FrameBuilder f = new FrameBuilder(IpVersion.V4);
        f.ip.source4(src).destination4(dst);
        return f;
    }

    /** An IPv6 packet from src to dst. */
    public static FrameBuilder v6(String src, String dst) {
        return v6(Ipv6.parse(src), Ipv6.parse(dst));
    }

    public static FrameBuilder v6(long[] src, long[] dst) {
        FrameBuilder f = new FrameBuilder(IpVersion.V6);
        f.ip.source(src[0], src[1]).destination(dst[0], dst[1]);
        return f;
    }

    /** A packet from src to dst of the version src is written in (IPv6 when it has a colon, IPv4-mapped ones too). */
    public static FrameBuilder ip(String src, String dst) {
        return src.contains(":") ? v6(src, dst) : v4(src, dst);
    }

    /**
     * An ARP message from the guest's MAC (ours unless {@link #macs} says otherwise): a request (to
     * the broadcast MAC, targetMac 0) or a reply to targetMac.
     */
    public static FrameBuilder arp(int operation, int senderIp, long targetMac, int targetIp) {
        FrameBuilder f = new FrameBuilder(IpVersion.V4);
        f.kind = Kind.ARP;
        f.arpOperation = operation;
        f.arpSender = senderIp;
        f.arpTargetMac = targetMac;
        f.arpTarget = targetIp;
        f.dstMac = targetMac == 0 ? Ethernet.BROADCAST : targetMac;
        return f;
    }

    // ---- the link and the network layer ----

    public FrameBuilder macs(long src, long dst) {
        srcMac = src;
        dstMac = dst;
        return this;
    }

    /** The source address (IPv4; of an ARP message, its sender's): a guest's whose address changed (a DHCP lease). */
    public FrameBuilder source4(int address) {
        ip.source4(address);
        arpSender = address;
        return this;
    }

    public FrameBuilder ttl(int ttl) {
        ip.ttl(ttl);
        return this;
    }

    /** The IPv4 identification (of a fragment: {@link #fragment}'s). */
    public FrameBuilder id(int id) {
        this.id = id;
        return this;
    }

    /** A Hop-by-Hop Options header holding options (padded to a multiple of 8 with Pad1 or PadN). */
    public FrameBuilder hopByHop(byte[] options) {
        return optionsHeader(Ipv6.HOP_BY_HOP, options);
    }

    public FrameBuilder destinationOptions(byte[] options) {
        return optionsHeader(Ipv6.DESTINATION_OPTIONS, options);
    }

    /** A Routing header of type with segmentsLeft (and 4 bytes of zeros as its data). */
    public FrameBuilder routing(int type, int segmentsLeft) {
        return extension(Ipv6.ROUTING, new byte[] {0, 0, (byte) type, (byte) segmentsLeft, 0, 0, 0, 0});
    }

    /** Any extension header: its first byte (next header) is filled in; body's second byte is its length field. */
    public FrameBuilder extension(int type, byte[] body) {
        extensionTypes.add(new int[] {type, extensions.length});
        byte[] more = Arrays.copyOf(extensions, extensions.length + body.length);
        System.arraycopy(body, 0, more, extensions.length, body.length);
        extensions = more;
        return this;
    }

    private FrameBuilder optionsHeader(int type, byte[] options) {
        int length = (2 + options.length + 7) / 8 * 8;
        byte[] b = new byte[length];
        b[1] = (byte) (length / 8 - 1);
        System.arraycopy(options, 0, b, 2, options.length);
        int pad = length - 2 - options.length;
        if (pad > 1) {
            b[2 + options.length] = 1; // PadN (a single byte of padding is Pad1, the zero already there)
            b[3 + options.length] = (byte) (pad - 2);
        }
        return extension(type, b);
    }

    /** IPv6 option TLVs for {@link #hopByHop}: an option of type with length bytes of zeros. */
    public static byte[] option(int type, int length) {
        byte[] b = new byte[2 + length];
        b[0] = (byte) type;
        b[1] = (byte) length;
        return b;
    }

    /**
     * Makes this packet one fragment: what it carries is the bytes from offset of a datagram with
     * id (IPv4: in the header; IPv6: a Fragment header after the others); more: others follow.
     */
    public FrameBuilder fragment(int offset, boolean more, int id) {
        fragmentOffset = offset;
        moreFragments = more;
        this.id = id;
        return this;
    }

    /** The IP payload length field says this instead of the truth. */
    public FrameBuilder claimPayloadLength(int length) {
        claimedPayloadLength = length;
        return this;
    }

    // ---- the transport ----

    /** A TCP segment: ACK, sequence and acknowledgment numbers 0 until set. */
    public FrameBuilder tcp(int srcPort, int dstPort) {
        return tcp(srcPort, dstPort, Tcp.ACK, 0, 0);
    }

    public FrameBuilder tcp(int srcPort, int dstPort, int flags, long seq, long ack) {
        kind = Kind.TCP;
        protocol = Ipv4.PROTO_TCP;
        return ports(srcPort, dstPort).flags(flags).seq(seq).ack(ack);
    }

    /** Raw TCP options (a multiple of 4 bytes) after those set by {@link #mss} and the others. */
    public FrameBuilder rawOptions(byte[] options) {
        tcpOptions = options.clone();
        return this;
    }

    public FrameBuilder ports(int srcPort, int dstPort) {
        sourcePort = srcPort;
        destinationPort = dstPort;
        return this;
    }

    public FrameBuilder flags(int flags) {
        this.flags = flags;
        return this;
    }

    public FrameBuilder seq(long seq) {
        this.seq = (int) seq;
        return this;
    }

    public FrameBuilder ack(long ack) {
        this.ack = (int) ack;
        return this;
    }

    /** The raw 16-bit window field (the receiver scales it). */
    public FrameBuilder window(int window) {
        this.window = window;
        return this;
    }

    /** The MSS option (kind 2), the first of the options. */
    public FrameBuilder mss(int mss) {
        this.mss = mss;
        return this;
    }

    /** NOP and the window-scale option (kind 3), after the MSS. */
    public FrameBuilder windowScale(int shift) {
        windowScale = shift;
        return this;
    }

    /** NOP, NOP and the timestamps option (kind 8), after the window scale. */
    public FrameBuilder timestamps(int val, int ecr) {
        timestamps = true;
        tsVal = val;
        tsEcr = ecr;
        return this;
    }

    /** NOP, NOP and SACK permitted (kind 4), after the timestamps. */
    public FrameBuilder sackPermitted() {
        sackPermitted = true;
        return this;
    }

    /** NOP, NOP and SACK blocks [edges[2i], edges[2i+1]) (kind 5), after SACK permitted. */
    public FrameBuilder sack(int... edges) {
        sackEdges = edges.clone();
        return this;
    }

    /** No TCP options (the next segment of a connection whose SYN had them). */
    public FrameBuilder clearOptions() {
        mss = windowScale = NONE;
        timestamps = sackPermitted = false;
        sackEdges = NO_EDGES;
        tcpOptions = NO_BYTES;
        return this;
    }

    public FrameBuilder udp(int srcPort, int dstPort) {
        kind = Kind.UDP;
        protocol = Ipv4.PROTO_UDP;
        return ports(srcPort, dstPort);
    }

    /** An ICMP (ICMPv6 over IPv6) message: type, code, the 4 bytes after the checksum. */
    public FrameBuilder icmp(int type, int code, int rest) {
        kind = Kind.ICMP;
        protocol = version.icmpProtocol();
        icmpType = type;
        icmpCode = code;
        icmpRest = rest;
        return this;
    }

    /** An echo request (ICMP, or ICMPv6 over IPv6). */
    public FrameBuilder echo(int identifier, int sequence) {
        return icmp(version == IpVersion.V6 ? 128 : 8, 0, identifier << 16 | (sequence & 0xffff));
    }

    /** Raw bytes of protocol (the payload, no header of ours, no checksum). */
    public FrameBuilder raw(int protocol) {
        kind = Kind.RAW;
        this.protocol = protocol;
        return this;
    }

    public FrameBuilder payload(byte[] payload) {
        this.payload = payload.clone();
        payloadInPlace = NONE;
        return this;
    }

    /** length bytes of a pattern. */
    public FrameBuilder payload(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) (i * 31 + 7);
        return payload(b);
    }

    /** length bytes of payload that the caller has written (or will write) at {@link #payloadOffset()} of the frame before {@link #writeTo}. */
    public FrameBuilder payloadInPlace(int length) {
        payload = NO_BYTES;
        payloadInPlace = length;
        return this;
    }

    /** The transport checksum made wrong. */
    public FrameBuilder badChecksum() {
        badChecksum = true;
        return this;
    }

    /** A UDP checksum of 0 ("none"). */
    public FrameBuilder zeroChecksum() {
        zeroChecksum = true;
        return this;
    }

    // ---- lengths ----

    private int payloadLength() {
        return payloadInPlace != NONE ? payloadInPlace : payload.length;
    }

    private int tcpHeaderLength() {
        return Tcp.MIN_HEADER_LENGTH + (mss != NONE ? 4 : 0) + (windowScale != NONE ? 4 : 0) + (timestamps ? Tcp.TIMESTAMPS_LENGTH : 0)
                + (sackPermitted ? 4 : 0) + (sackEdges.length > 0 ? 4 + 4 * sackEdges.length : 0) + tcpOptions.length;
    }

    private int transportHeaderLength() {
        return switch (kind) {
            case TCP -> tcpHeaderLength();
            case UDP -> Udp.HEADER_LENGTH;
            case ICMP -> Icmp.HEADER_LENGTH;
            case ARP, RAW -> 0;
        };
    }

    /** The transport message's length: its header and payload. */
    public int transportLength() {
        return transportHeaderLength() + payloadLength();
    }

    private boolean v6Fragment(int fragment) {
        return version == IpVersion.V6 && fragment != NONE;
    }

    /** Where the transport header starts in the frame. */
    public int transportOffset() {
        return Ethernet.HEADER_LENGTH + version.headerLength() + extensions.length + (v6Fragment(fragmentOffset) ? Ipv6.FRAGMENT_HEADER_LENGTH : 0);
    }

    /** Where the payload starts in the frame. */
    public int payloadOffset() {
        return transportOffset() + transportHeaderLength();
    }

    /** The frame's length. */
    public int length() {
        return kind == Kind.ARP ? Ethernet.HEADER_LENGTH + Arp.LENGTH : transportOffset() + transportLength();
    }

    // ---- writing ----

    /** The frame in native memory of its own. */
    public MemorySegment build() {
        MemorySegment f = Arena.ofAuto().allocate(length(), 8);
        writeTo(f, 0);
        return f;
    }

    /** The frame's bytes. */
    public byte[] bytes() {
        return build().toArray(ValueLayout.JAVA_BYTE);
    }

    /** Writes the frame at off of s (room for {@link #length()} bytes); returns its length. */
    public int writeTo(MemorySegment s, long off) {
        if (kind == Kind.ARP) {
            Ethernet.write(s, off, dstMac, srcMac, Ethernet.TYPE_ARP);
            Arp.write(s, off + Ethernet.HEADER_LENGTH, arpOperation, srcMac, arpSender);
            Arp.writeTarget(s, off + Ethernet.HEADER_LENGTH, arpTargetMac, arpTarget);
            return Ethernet.HEADER_LENGTH + Arp.LENGTH;
        }
        int length = transportLength();
        long at = writeHeaders(s, off, length, fragmentOffset);
        writeTransport(s, at);
        return (int) (at - off) + length;
    }

    /** The transport message (header and payload) with its checksum filled, as the whole datagram has it. */
    public byte[] transport() {
        MemorySegment m = MemorySegment.ofArray(new byte[transportLength()]);
        writeTransport(m, 0);
        return m.toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * The fragment carrying bytes [offset, offset + length) of this datagram's transport message
     * (and its header for offset 0); more: others follow.
     */
    public MemorySegment piece(int offset, int length, boolean more, int id) {
        byte[] whole = transport();
        byte[] data = Arrays.copyOfRange(whole, offset, Math.min(whole.length, offset + length));
        int savedOffset = fragmentOffset;
        fragment(offset, more, id);
        MemorySegment f = Arena.ofAuto().allocate(transportOffset() + data.length, 8);
        long at = writeHeaders(f, 0, data.length, offset);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, f, at, data.length);
        fragmentOffset = savedOffset;
        return f;
    }

    /** Ethernet, the IP header and the extension headers for dataLength bytes after them; returns where those go. */
    private long writeHeaders(MemorySegment s, long off, int dataLength, int fragment) {
        boolean fragmentHeader = v6Fragment(fragment);
        int ext = extensions.length + (fragmentHeader ? Ipv6.FRAGMENT_HEADER_LENGTH : 0);
        Ethernet.write(s, off, dstMac, srcMac, version.etherType());
        ip.protocol(extensionTypes.isEmpty() ? fragmentHeader ? Ipv6.FRAGMENT : protocol : extensionTypes.getFirst()[0])
                .payloadLength(ext + dataLength).id(id);
        if (version == IpVersion.V4 && fragment != NONE) ip.fragment(fragment, moreFragments);
        else ip.whole();
        long ipAt = off + Ethernet.HEADER_LENGTH;
        long at = ipAt + version.write(s, ipAt, ip);
        if (!extensionTypes.isEmpty()) at = writeExtensions(s, at, fragmentHeader ? Ipv6.FRAGMENT : protocol);
        if (fragmentHeader) {
            Bytes.u8(s, at, protocol);
            Bytes.u8(s, at + 1, 0);
            Bytes.u16(s, at + 2, (fragment & 0xfff8) | (moreFragments ? 1 : 0));
            Bytes.u32(s, at + 4, id);
            at += Ipv6.FRAGMENT_HEADER_LENGTH;
        }
        if (claimedPayloadLength != NONE) claim(s, ipAt);
        return at;
    }

    /** The extension headers at at, each naming the next, the last naming last; returns where they end. */
    private long writeExtensions(MemorySegment s, long at, int last) {
        byte[] ext = extensions;
        MemorySegment.copy(MemorySegment.ofArray(ext), 0, s, at, ext.length);
        for (int i = 0; i < extensionTypes.size(); i++) {
            int next = i + 1 < extensionTypes.size() ? extensionTypes.get(i + 1)[0] : last;
            Bytes.u8(s, at + extensionTypes.get(i)[1], next);
        }
        return at + ext.length;
    }

    /** Makes the IP header at ipAt claim {@link #claimPayloadLength} (an IPv4 one with its checksum right again). */
    private void claim(MemorySegment s, long ipAt) {
        if (version == IpVersion.V6) {
            Bytes.u16(s, ipAt + 4, claimedPayloadLength);
            return;
        }
        Bytes.u16(s, ipAt + 2, claimedPayloadLength + Ipv4.MIN_HEADER_LENGTH);
        Bytes.u16(s, ipAt + 10, 0);
        Bytes.u16(s, ipAt + 10, Checksum.of(s, ipAt, Ipv4.MIN_HEADER_LENGTH));
    }

    /** The transport header at at, the payload after it (unless in place), and the checksum over both. */
    private void writeTransport(MemorySegment s, long at) {
        int header = transportHeaderLength();
        int length = header + payloadLength();
        if (payloadInPlace == NONE && payload.length > 0) MemorySegment.copy(MemorySegment.ofArray(payload), 0, s, at + header, payload.length);
        if (kind == Kind.RAW || kind == Kind.ARP) return;
        int checksumAt = switch (kind) {
            case TCP -> {
                writeTcpHeader(s, at, header);
                yield Tcp.CHECKSUM_OFFSET;
            }
            case UDP -> {
                Udp.writePartial(s, at, sourcePort, destinationPort, payloadLength(), 0);
                yield Udp.CHECKSUM_OFFSET;
            }
            default -> {
                Icmp.write(s, at, icmpType, icmpCode, icmpRest);
                yield 2;
            }
        };
        int pseudo = protocol == Ipv4.PROTO_ICMP ? 0 : version.pseudoHeader(ip, protocol, length);
        Bytes.u16(s, at + checksumAt, 0);
        int sum = Checksum.finish(Checksum.sum(s, at, length, pseudo));
        if (kind == Kind.UDP && sum == 0) sum = 0xffff; // 0 says "none"
        if (zeroChecksum) sum = 0;
        if (badChecksum) sum ^= 0x5a5a;
        Bytes.u16(s, at + checksumAt, sum);
    }

    private void writeTcpHeader(MemorySegment s, long at, int header) {
        Tcp.write(s, at, new TcpHeader().ports(sourcePort, destinationPort).seq(seq).ack(ack).flags(flags).window(window).length(header));
        long p = at + Tcp.MIN_HEADER_LENGTH;
        if (mss != NONE) {
            Bytes.u32(s, p, 2 << 24 | 4 << 16 | mss);
            p += 4;
        }
        if (windowScale != NONE) {
            Bytes.u32(s, p, 1 << 24 | 3 << 16 | 3 << 8 | windowScale);
            p += 4;
        }
        int length = (int) (p - at);
        if (timestamps) length = Tcp.appendTimestamps(s, at, length, tsVal, tsEcr);
        if (sackPermitted) length = Tcp.appendSackPermitted(s, at, length);
        if (sackEdges.length > 0) length = Tcp.appendSack(s, at, length, sackEdges, sackEdges.length / 2);
        if (tcpOptions.length > 0) MemorySegment.copy(MemorySegment.ofArray(tcpOptions), 0, s, at + length, tcpOptions.length);
    }
}
