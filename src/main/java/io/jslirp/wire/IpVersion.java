package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * What differs between IPv4 and IPv6 below the transport, as data: the header codec, the numbers
 * that name the version's ICMP and its messages, and a few rules. Everything else above the
 * Ethernet layer is one code path for both, with the version as an argument.
 */
public enum IpVersion {
    V4(4, Ethernet.TYPE_IPV4, Ipv4.MIN_HEADER_LENGTH, 0, Ipv4.PROTO_ICMP, Icmpv4.ECHO_REQUEST, Icmpv4.ECHO_REPLY,
            Icmpv4.DEST_UNREACHABLE, 65535 - Ipv4.MIN_HEADER_LENGTH) {
        @Override
        public Drop read(MemorySegment s, long off, int len, IpHeader h) {
            return Ipv4.read(s, off, len, h);
        }

        @Override
        public int write(MemorySegment s, long off, IpHeader h) {
            return Ipv4.write(s, off, h);
        }

        @Override
        public int pseudoHeader(IpHeader h, int protocol, int l4Length) {
            return Ipv4.pseudoHeader(h, protocol, l4Length);
        }

        /** ICMPv4's checksum covers the message alone. */
        @Override
        public int icmpPseudoHeader(IpHeader h, int length) {
            return 0;
        }

        @Override
        public boolean zeroUdpChecksumIsNone() {
            return true; // RFC 768: the sender computed none
        }

        @Override
        public int unreachableCode(int icmp4Code) {
            return icmp4Code;
        }

        @Override
        public void unknownProtocol(IpHeader h) {
            // counted and dropped without an answer, as ever for IPv4
        }

        @Override
        public Drop reassembled(MemorySegment s, long at, int length, int first, IpHeader h) {
            h.whole().protocol(first).headerLength(0).payloadLength(length);
            return null;
        }

        /** IPv4's are all handed on, as ever (a broadcast to the gateway's ports, a source of 0.0.0.0). */
        @Override
        public boolean staysOnLink(IpHeader h) {
            return false;
        }
    },

    V6(6, Ethernet.TYPE_IPV6, Ipv6.HEADER_LENGTH, Ipv6.FRAGMENT_HEADER_LENGTH, Ipv6.PROTO_ICMPV6, Icmpv6.ECHO_REQUEST,
            Icmpv6.ECHO_REPLY, Icmpv6.DEST_UNREACHABLE, 65535) {
        @Override
        public Drop read(MemorySegment s, long off, int len, IpHeader h) {
            return Ipv6.read(s, off, len, h);
        }

        @Override
        public int write(MemorySegment s, long off, IpHeader h) {
            return Ipv6.write(s, off, h);
        }

        @Override
        public int pseudoHeader(IpHeader h, int protocol, int l4Length) {
            return Ipv6.pseudoHeader(h, protocol, l4Length);
        }

        @Override
        public int icmpPseudoHeader(IpHeader h, int length) {
            return Ipv6.pseudoHeader(h, Ipv6.PROTO_ICMPV6, length);
        }

        @Override
        public boolean zeroUdpChecksumIsNone() {
            return false; // mandatory over IPv6: zero is wrong (RFC 8200 section 8.1)
        }

        @Override
        public int unreachableCode(int icmp4Code) {
            return switch (icmp4Code) {
                case Icmpv4.CODE_PORT_UNREACHABLE -> Icmpv6.CODE_PORT_UNREACHABLE;
                case Icmpv4.CODE_HOST_UNREACHABLE -> Icmpv6.CODE_ADDRESS_UNREACHABLE;
                case Icmpv4.CODE_ADMIN_PROHIBITED -> Icmpv6.CODE_ADMIN_PROHIBITED;
                default -> Icmpv6.CODE_NO_ROUTE;
            };
        }

        /** An unrecognised Next Header is answered with a Parameter Problem pointing at it (RFC 8200 section 4). */
        @Override
        public void unknownProtocol(IpHeader h) {
            h.problem(Ipv6.PROBLEM_NEXT_HEADER, h.protocolPointer(), false);
        }

        @Override
        public Drop reassembled(MemorySegment s, long at, int length, int first, IpHeader h) {
            return Ipv6.readAfterReassembly(s, at, length, first, h);
        }

        @Override
        public boolean staysOnLink(IpHeader h) {
            return (h.sourceHi() | h.sourceLo()) == 0 || Ipv6.isMulticast(h.destinationHi());
        }
    };

    private final int number, etherType, headerLength, fragmentHeaderLength, icmpProtocol, echoRequest, echoReply,
            destinationUnreachable, maxPayload;

    IpVersion(int number, int etherType, int headerLength, int fragmentHeaderLength, int icmpProtocol, int echoRequest,
              int echoReply, int destinationUnreachable, int maxPayload) {
        this.number = number;
        this.etherType = etherType;
        this.headerLength = headerLength;
        this.fragmentHeaderLength = fragmentHeaderLength;
        this.icmpProtocol = icmpProtocol;
        this.echoRequest = echoRequest;
        this.echoReply = echoReply;
        this.destinationUnreachable = destinationUnreachable;
        this.maxPayload = maxPayload;
    }

    /** Checks the packet of len bytes at off and describes it in h; null when it is taken, else why not. */
    public abstract Drop read(MemorySegment s, long off, int len, IpHeader h);

    /** Writes the header h describes at off; returns its length. */
    public abstract int write(MemorySegment s, long off, IpHeader h);

    /** The pseudo-header sum of a TCP or UDP message of l4Length bytes between h's addresses. */
    public abstract int pseudoHeader(IpHeader h, int protocol, int l4Length);

    /** What an ICMP message's checksum covers besides the message: IPv6's pseudo-header, nothing for IPv4. */
    public abstract int icmpPseudoHeader(IpHeader h, int length);

    /** Whether a UDP checksum of 0 means "none computed" (IPv4) rather than a wrong one (IPv6). */
    public abstract boolean zeroUdpChecksumIsNone();

    /** This version's destination unreachable code for an ICMPv4 code (what {@code nat.Unreachable} gives). */
    public abstract int unreachableCode(int icmp4Code);

    /** A packet of a protocol the stack does not know: asks h for the answer the version gives, if any. */
    public abstract void unknownProtocol(IpHeader h);

    /**
     * Describes in h the datagram reassembled from fragments: length bytes at at, starting with
     * the header first names (IPv6 walks on through the extension headers there); null when its
     * payload is then at at + h.headerLength(), else why it is dropped.
     */
    public abstract Drop reassembled(MemorySegment s, long at, int length, int first, IpHeader h);

    /** Whether the packet h describes goes nowhere beyond the link: IPv6's from the unspecified address or to a multicast one. */
    public abstract boolean staysOnLink(IpHeader h);

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
