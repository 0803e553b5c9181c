package io.jslirp.wire;

/**
 * An IP header as both versions describe it: what {@link Ipv4#read}/{@link Ipv6#read} fill and
 * what {@link Ipv4#write}/{@link Ipv6#write} take. One instance is reused for every packet (fluent
 * setters, no allocation). Addresses are 128 bits as two longs for both versions: IPv4's is
 * ::ffff:a.b.c.d ({@link Ipv4#mapped}), as {@code util.AddressBook} holds it.
 *
 * <p>Read from a packet, {@link #headerLength()} is where the payload starts (IPv4's IHL; IPv6's
 * fixed header and the extension headers walked), {@link #protocol()} what the payload is (for a
 * fragment: what its datagram's fragmentable part starts with), {@link #payloadLength()} how long
 * it is. Written, the payload of {@link #payloadLength()} bytes follows the header the codec writes.
 */
public final class IpHeader {
    private long sourceHi, sourceLo, destinationHi, destinationLo;
    private int protocol, ttl = 64, payloadLength, headerLength, id, fragmentOffset;
    private boolean fragment, moreFragments;
    /** Where the field naming {@link #protocol} is, from the start of the IP header (IPv6: the last Next Header walked). */
    private int protocolPointer;
    /** Read (IPv6): an ICMPv6 Parameter Problem to answer (RFC 8200 section 4), else code -1. */
    private int problemCode = -1, problemPointer;
    private boolean problemEvenToMulticast;

    public IpHeader source(long hi, long lo) {
        sourceHi = hi;
        sourceLo = lo;
        return this;
    }

    public IpHeader destination(long hi, long lo) {
        destinationHi = hi;
        destinationLo = lo;
        return this;
    }

    /** The IPv4 source address (host order), as ::ffff:a.b.c.d. */
    public IpHeader source4(int address) {
        return source(0, Ipv4.mapped(address));
    }

    public IpHeader destination4(int address) {
        return destination(0, Ipv4.mapped(address));
    }

    public IpHeader protocol(int protocol) {
        this.protocol = protocol;
        return this;
    }

    /** IPv4's time to live, IPv6's hop limit. */
    public IpHeader ttl(int ttl) {
        this.ttl = ttl;
        return this;
    }

    public IpHeader payloadLength(int length) {
        this.payloadLength = length;
        return this;
    }

    /** The identification (IPv4's 16 bits; IPv6's 32 bits, in a Fragment header). */
    public IpHeader id(int id) {
        this.id = id;
        return this;
    }

    /** A fragment whose data starts at byte offset of the datagram (a multiple of 8); more: others follow. */
    public IpHeader fragment(int offset, boolean more) {
        fragment = true;
        fragmentOffset = offset;
        moreFragments = more;
        return this;
    }

    /** Not a fragment: a whole datagram. */
    public IpHeader whole() {
        fragment = false;
        fragmentOffset = 0;
        moreFragments = false;
        return this;
    }

    IpHeader headerLength(int length) {
        headerLength = length;
        return this;
    }

    IpHeader protocolPointer(int pointer) {
        protocolPointer = pointer;
        return this;
    }

    /**
     * Asks for an ICMPv6 Parameter Problem of code at pointer (from the start of the IPv6 header);
     * evenToMulticast: also when the packet went to a multicast address (RFC 8200 section 4.2, option types 10xxxxxx).
     */
    IpHeader problem(int code, int pointer, boolean evenToMulticast) {
        problemCode = code;
        problemPointer = pointer;
        problemEvenToMulticast = evenToMulticast;
        return this;
    }

    IpHeader noProblem() {
        problemCode = -1;
        return this;
    }

    public long sourceHi() {
        return sourceHi;
    }

    public long sourceLo() {
        return sourceLo;
    }

    public long destinationHi() {
        return destinationHi;
    }

    public long destinationLo() {
        return destinationLo;
    }

    /** The IPv4 source address (host order) of an IPv4 header. */
    public int source4() {
        return (int) sourceLo;
    }

    public int destination4() {
        return (int) destinationLo;
    }

    public int protocol() {
        return protocol;
    }

    public int ttl() {
        return ttl;
    }

    public int payloadLength() {
        return payloadLength;
    }

    public int headerLength() {
        return headerLength;
    }

    public int id() {
        return id;
    }

    public boolean isFragment() {
        return fragment;
    }

    public int fragmentOffset() {
        return fragmentOffset;
    }

    public boolean moreFragments() {
        return moreFragments;
    }

    public int protocolPointer() {
        return protocolPointer;
    }

    /** The ICMPv6 Parameter Problem code read asks to answer with, or -1. */
    public int problemCode() {
        return problemCode;
    }

    public int problemPointer() {
        return problemPointer;
    }

    public boolean problemEvenToMulticast() {
        return problemEvenToMulticast;
    }
}
