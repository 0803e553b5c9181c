package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * What differs between IPv4 and IPv6 below the transport, as data: the header codec, the numbers
 * that name the version's ICMP and its messages, and a few rules. Everything else above the
 * Ethernet layer is one code path for both, with the version as an argument.
 */
public enum IpVersion {
    V4(4, Ethernet.TYPE_IPV4, Ipv4.MIN_HEADER_LENGTH, 0, Ipv4.PROTO_ICMP, Icmpv4.ECHO_REQUEST, Icmpv4.ECHO_REPLY,
            Icmpv4.DEST_UNREACHABLE, 65535 - Ipv4.MIN_HEADER_LENGTH, true),
    V6(6, Ethernet.TYPE_IPV6, Ipv6.HEADER_LENGTH, Ipv6.FRAGMENT_HEADER_LENGTH, Ipv6.PROTO_ICMPV6, Icmpv6.ECHO_REQUEST,
            Icmpv6.ECHO_REPLY, Icmpv6.DEST_UNREACHABLE, 65535, false);

    private final int number, etherType, headerLength, fragmentHeaderLength, icmpProtocol, echoRequest, echoReply,
            destinationUnreachable, maxPayload;
    private final boolean zeroUdpChecksumIsNone;

    IpVersion(int number, int etherType, int headerLength, int fragmentHeaderLength, int icmpProtocol, int echoRequest,
              int echoReply, int destinationUnreachable, int maxPayload, boolean zeroUdpChecksumIsNone) {
        this.number = number;
        this.etherType = etherType;
        this.headerLength = headerLength;
        this.fragmentHeaderLength = fragmentHeaderLength;
        this.icmpProtocol = icmpProtocol;
        this.echoRequest = echoRequest;
        this.echoReply = echoReply;
        this.destinationUnreachable = destinationUnreachable;
        this.maxPayload = maxPayload;
        this.zeroUdpChecksumIsNone = zeroUdpChecksumIsNone;
    }

    /** Checks the packet of len bytes at off and describes it in h; null when it is taken, else why not. */
    public Drop read(MemorySegment s, long off, int len, IpHeader h) {
        return this == V4 ? Ipv4.read(s, off, len, h) : Ipv6.read(s, off, len, h);
    }

    /** Writes the header h describes at off; returns its length. */
    public int write(MemorySegment s, long off, IpHeader h) {
        return this == V4 ? Ipv4.write(s, off, h) : Ipv6.write(s, off, h);
    }

    /** The pseudo-header sum of a TCP or UDP message of l4Length bytes between h's addresses. */
    public int pseudoHeader(IpHeader h, int protocol, int l4Length) {
        return this == V4 ? Ipv4.pseudoHeader(h, protocol, l4Length) : Ipv6.pseudoHeader(h, protocol, l4Length);
    }

    /** What an ICMP message's checksum covers besides the message: IPv6's pseudo-header, nothing for ICMPv4. */
    public int icmpPseudoHeader(IpHeader h, int length) {
        return this == V4 ? 0 : Ipv6.pseudoHeader(h, Ipv6.PROTO_ICMPV6, length);
    }

    /**
     * Describes in h the datagram reassembled from fragments: length bytes at at, starting with
     * the header first names (IPv6 walks on through the extension headers there); null when its
     * payload is then at at + h.headerLength(), else why it is dropped.
     */
    public Drop reassembled(MemorySegment s, long at, int length, int first, IpHeader h) {
        if (this == V6) return Ipv6.readAfterReassembly(s, at, length, first, h);
        h.whole().protocol(first).headerLength(0).payloadLength(length);
        return null;
    }

    /**
     * Whether the packet h describes goes nowhere beyond the link: IPv6's from the unspecified
     * address or to a multicast one. IPv4's are all handed on, as ever (a broadcast to the
     * gateway's ports, a source of 0.0.0.0).
     */
    /**
     * Whether an IPv6 packet names an address that never crosses a link: an IPv4-mapped one
     * (::ffff:0:0/96, which would reach IPv4's flows and policy under IPv6's guise), or comes from
     * the loopback ::1 (RFC 4291 2.5.3: a guest sends from it before SLAAC gives it an address, and
     * an answer to it could not come back). Dropped as unsupported. (A crafted packet to ::1 is
     * taken, as one to 127.0.0.1 is over IPv4: the outbound policy decides.)
     */
    public boolean namesNoLinkAddress(IpHeader h) {
        return this == V6 && (mapped(h.sourceHi(), h.sourceLo()) || mapped(h.destinationHi(), h.destinationLo())
                || (h.sourceHi() == 0 && h.sourceLo() == 1));
    }

    private static boolean mapped(long hi, long lo) {
        return hi == 0 && (lo >>> 32) == 0xffffL;
    }

    public boolean staysOnLink(IpHeader h) {
        return this == V6 && ((h.sourceHi() | h.sourceLo()) == 0 || Ipv6.isMulticast(h.destinationHi()));
    }

    /**
     * A packet of a protocol the stack does not know: IPv6 answers an unrecognised Next Header
     * with a Parameter Problem pointing at it (RFC 8200 section 4), asked for in h; IPv4 counts
     * and drops it without an answer, as ever.
     */
    public void unknownProtocol(IpHeader h) {
        if (this == V6) h.problem(Ipv6.PROBLEM_NEXT_HEADER, h.protocolPointer(), false);
    }

    /** This version's destination unreachable code for an ICMPv4 code (what {@code nat.Unreachable} gives). */
    public int unreachableCode(int icmp4Code) {
        if (this == V4) return icmp4Code;
        return switch (icmp4Code) {
            case Icmpv4.CODE_PORT_UNREACHABLE -> Icmpv6.CODE_PORT_UNREACHABLE;
            case Icmpv4.CODE_HOST_UNREACHABLE -> Icmpv6.CODE_ADDRESS_UNREACHABLE;
            case Icmpv4.CODE_ADMIN_PROHIBITED -> Icmpv6.CODE_ADMIN_PROHIBITED;
            default -> Icmpv6.CODE_NO_ROUTE;
        };
    }

    /** Whether a UDP checksum of 0 means "none computed" (IPv4, RFC 768) rather than a wrong one (IPv6, RFC 8200 section 8.1). */
    public boolean zeroUdpChecksumIsNone() {
        return zeroUdpChecksumIsNone;
    }

    /** 4 or 6. */
    public int number() {
        return number;
    }

    public int etherType() {
        return etherType;
    }

    /** The length of the header this stack writes (no options, no extension headers). */
    public int headerLength() {
        return headerLength;
    }

    /** What each fragment carries on top of {@link #headerLength()} (IPv6's Fragment header). */
    public int fragmentHeaderLength() {
        return fragmentHeaderLength;
    }

    public int icmpProtocol() {
        return icmpProtocol;
    }

    public int echoRequest() {
        return echoRequest;
    }

    public int echoReply() {
        return echoReply;
    }

    public int destinationUnreachable() {
        return destinationUnreachable;
    }

    /** The longest payload a datagram of this version carries (its length field's reach). */
    public int maxPayload() {
        return maxPayload;
    }
}
