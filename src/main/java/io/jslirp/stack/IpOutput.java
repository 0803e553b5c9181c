package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;

/**
 * One IP version's view of the stack's one {@link Output}: what the layers above send the guest
 * through ({@link GuestOutput}, {@link ServiceOutput}), and what the stack's own answers go out by
 * (echo replies, Neighbor Advertisements, ICMP errors). The two instances run the same code; they
 * differ in their {@link IpVersion} and the addresses they hold: the router's, which the stack
 * answers for itself, and the rule for which source is the guest's.
 */
public final class IpOutput implements ServiceOutput {
    private static final int TTL = 64;

    private final IpVersion version;
    private final Output output;
    /** How TCP segments and runs of UDP datagrams go to this link, the same for both versions. */
    private final Transmit transmit;
    private final Neighbours neighbours;
    private final AddressBook addresses;
    /** The frame payloads of this version are built in, at {@link #l4}. */
    private final MemorySegment tx;
    private final int l4;
    private final IpHeader header = new IpHeader(), quoted = new IpHeader();
    /** The TCP segment being sent: {@link #header} and {@link #tx}, and where its payload is. */
    private final OutgoingSegment segment;
    /** The description TCP headers are written from: one per output, reused like {@link #tx}. */
    private final TcpHeader tcpHeader = new TcpHeader();
    /** The gateway's and DNS addresses: handles held for the life of the stack. */
    private final int gateway, dns;
    /** The addresses the stack answers echo (and Neighbor Solicitations) for: hi, lo pairs. */
    private final long[] router;
    /** Where the guest's own addresses are: IPv6's prefix (its high half); IPv4 takes any but 0.0.0.0. */
    private final long guestPrefixHi;
    private final boolean anyGuestAddress;
    private final int dhcpPort;

    IpOutput(IpVersion version, Transmit transmit, Neighbours neighbours, AddressBook addresses, long[] router, long guestPrefixHi) {
        this.version = version;
        this.output = transmit.output;
        this.transmit = transmit;
        this.neighbours = neighbours;
        this.addresses = addresses;
        this.tx = Output.frame(version);
        this.l4 = Output.payloadOffset(version);
        this.segment = new OutgoingSegment(version, tx, header);
        this.router = router.clone();
        this.gateway = addresses.acquire(router[0], router[1]);
        this.dns = addresses.acquire(router[2], router[3]);
        this.guestPrefixHi = guestPrefixHi;
        this.anyGuestAddress = version == IpVersion.V4;
        this.dhcpPort = version == IpVersion.V4 ? Dhcp.SERVER_PORT : Dhcpv6.SERVER_PORT;
    }

    IpVersion ipVersion() {
        return version;
    }

    int dhcpPort() {
        return dhcpPort;
    }

    /** Whether hi:lo is one of the router's own addresses, which the stack answers for. */
    boolean answersFor(long hi, long lo) {
        for (int i = 0; i < router.length; i += 2) {
            if (router[i] == hi && router[i + 1] == lo) return true;
        }
        return false;
    }

    /** Whether a packet from hi:lo says where the guest is: IPv4's from any address but 0.0.0.0, IPv6's from one in the prefix. */
    boolean isGuestAddress(long hi, long lo) {
        if (anyGuestAddress) return lo != Ipv4.mapped(0) && !answersFor(hi, lo);
        return hi == guestPrefixHi && !answersFor(hi, lo);
    }

    // ---- GuestOutput ----

    @Override
    public int version() {
        return version.number();
    }

    @Override
    public Counters counters() {
        return output.counters();
    }

    @Override
    public AddressBook addresses() {
        return addresses;
    }

    @Override
    public int gateway() {
        return gateway;
    }

    @Override
    public int dns() {
        return dns;
    }

    /**
     * The guest's address of this version (a handle): the latest it sent from (or, IPv6, took by
     * SLAAC: its duplicate address detection names it; IPv4, DHCP gave it); before that IPv4's
     * configured one (.100, as with --configure), IPv6's {@link AddressBook#NONE}.
     */
    @Override
    public int guestAddress() {
        return neighbours.guestAddress(this);
    }

    @Override
    public boolean resolveGuestMac(int guest) {
        return neighbours.resolve(this, addresses.hi(guest), addresses.lo(guest));
    }

    @Override
    public int mtu() {
        return output.mtu();
    }

    @Override
    public TxBatch transmitBatch() {
        return output.batch();
    }

    @Override
    public int udpPayloadOffset() {
        return l4 + Udp.HEADER_LENGTH;
    }

    @Override
    public int maxUdpPayload() {
        return version.maxPayload() - Udp.HEADER_LENGTH;
    }

    @Override
    public int icmpOffset() {
        return l4;
    }

    @Override
    public MemorySegment frame() {
        return tx;
    }

    @Override
    public long tcpOffset() {
        return l4;
    }

    @Override
    public TcpHeader tcpHeader() {
        return tcpHeader;
    }

    @Override
    public boolean largeSegments() {
        return transmit.largeSegments();
    }

    @Override
    public void sendTcp(int source, int destination, int tcpLength, int segmentSize) {
        header(source, destination, Ipv4.PROTO_TCP, tcpLength);
        transmit.sendTcp(segment.inFrame(neighbours.mac(this), segmentSize));
    }

    /** The payload goes from where it is, as the link's {@link Transmit} has it: copied, gathered or offloaded. */
    @Override
    public void sendTcp(int source, int destination, MemorySegment payload, long payloadOffset, int payloadLength, int segmentSize) {
        int headerLength = tcpHeader.length();
        header(source, destination, Ipv4.PROTO_TCP, headerLength + payloadLength);
        transmit.sendTcp(segment.payloadFrom(neighbours.mac(this), headerLength, payload, payloadOffset, payloadLength, segmentSize));
    }

    @Override
    public void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength) {
        sendUdp(source, sourcePort, destination, destinationPort, payloadLength, neighbours.mac(this));
    }

    @Override
    public void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength, long mac) {
        int length = Udp.HEADER_LENGTH + payloadLength;
        IpHeader h = header(source, destination, Ipv4.PROTO_UDP, length);
        Udp.write(tx, l4, sourcePort, destinationPort, payloadLength, version.pseudoHeader(h, Ipv4.PROTO_UDP, length));
        output.send(version, tx, h, mac);
    }

    @Override
    public int unfragmentedUdpPayload() {
        return output.mtu() - version.headerLength() - Udp.HEADER_LENGTH;
    }

    @Override
    public boolean offloadsUdp() {
        return transmit.udpSegments();
    }

    @Override
    public boolean sendUdpSegments(int source, int sourcePort, int destination, int destinationPort, int payloadLength, int segmentSize) {
        if (!transmit.udpSegments() || segmentSize > unfragmentedUdpPayload() || payloadLength > maxUdpPayload()) return false;
        int length = Udp.HEADER_LENGTH + payloadLength;
        IpHeader h = header(source, destination, Ipv4.PROTO_UDP, length);
        Udp.writePartial(tx, l4, sourcePort, destinationPort, payloadLength, version.pseudoHeader(h, Ipv4.PROTO_UDP, length));
        return transmit.sendUdpSegments(version, tx, h, neighbours.mac(this), segmentSize);
    }

    /** Sends the ICMP (ICMPv6) message of length bytes at {@link #icmpOffset()} between handles, filling its checksum. */
    @Override
    public void sendIcmp(int source, int destination, int length) {
        sendIcmp(source, destination, length, TTL, neighbours.mac(this));
    }

    @Override
    public void sendIcmp(int source, int destination, int length, int ttl, long mac) {
        sendIcmp(addressed(addresses.hi(source), addresses.lo(source), addresses.hi(destination), addresses.lo(destination)), length, ttl,
                mac);
    }

    /**
     * Tells the guest, from the gateway, that its packet to remote could not be delivered: a
     * destination unreachable of the version's code for icmp4Code, quoting a rebuilt IP header and
     * the first 8 bytes of the transport header (for TCP: ports and sequence number), which is
     * what the guest's kernel matches the error to its socket by.
     */
    @Override
    public void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead) {
        long quotedAt = l4 + Icmp.HEADER_LENGTH;
        Icmp.write(tx, l4, version.destinationUnreachable(), version.unreachableCode(icmp4Code), 0);
        quoted.source(addresses.hi(guest), addresses.lo(guest)).destination(addresses.hi(remote), addresses.lo(remote))
                .protocol(protocol).ttl(TTL).payloadLength(Icmpv4.QUOTED_TRANSPORT_BYTES).id(0).whole();
        long transport = quotedAt + version.write(tx, quotedAt, quoted);
        Bytes.u64(tx, transport, transportHead);
        int length = (int) (transport + Icmpv4.QUOTED_TRANSPORT_BYTES - l4);
        output.counters().unreachableSent++;
        sendIcmp(addressed(addresses.hi(gateway), addresses.lo(gateway), addresses.hi(guest), addresses.lo(guest)), length, TTL,
                neighbours.mac(this));
    }

    // ---- ServiceOutput ----

    @Override
    public long guestMac() {
        return neighbours.mac(this);
    }

    @Override
    public long gatewayMac() {
        return output.gatewayMac();
    }

    @Override
    public void assignGuestAddress(int address) {
        neighbours.assign(this, addresses.hi(address), addresses.lo(address));
    }

    // ---- the stack's own answers ----

    /** Answers the echo request of length bytes at off in f, which h describes, from the address it went to. */
    void sendEchoReply(MemorySegment f, long off, int length, IpHeader h) {
        MemorySegment.copy(f, off, tx, l4, length);
        Icmp.setType(tx, l4, version.echoReply());
        sendIcmp(addressed(h.destinationHi(), h.destinationLo(), h.sourceHi(), h.sourceLo()), length, TTL, neighbours.mac(this));
    }

    /**
     * Answers the packet at ipOff in f (h describes it) with the ICMPv6 Parameter Problem h asks
     * for, from the address it went to (the gateway's, when that was multicast), quoting as much
     * of it as fits IPv6's minimum MTU (RFC 4443 section 3.4).
     */
    void sendParameterProblem(MemorySegment f, long ipOff, IpHeader h) {
        int quotedLength = Math.min(Ipv6.HEADER_LENGTH + Ipv6.payloadLength(f, ipOff), Icmpv6.MAX_ERROR_LENGTH - Icmp.HEADER_LENGTH);
        Icmp.write(tx, l4, Icmpv6.PARAMETER_PROBLEM, h.problemCode(), h.problemPointer());
        MemorySegment.copy(f, ipOff, tx, l4 + Icmp.HEADER_LENGTH, quotedLength);
        boolean fromDestination = !Ipv6.isMulticast(h.destinationHi());
        long srcHi = fromDestination ? h.destinationHi() : addresses.hi(gateway);
        long srcLo = fromDestination ? h.destinationLo() : addresses.lo(gateway);
        sendIcmp(addressed(srcHi, srcLo, h.sourceHi(), h.sourceLo()), Icmp.HEADER_LENGTH + quotedLength, TTL, neighbours.mac(this));
    }

    /** The output's IP header description, reused, with its source and destination set (for {@link #sendIcmp}). */
    IpHeader addressed(long srcHi, long srcLo, long dstHi, long dstLo) {
        return header.source(srcHi, srcLo).destination(dstHi, dstLo);
    }

    /**
     * The ICMP message of length bytes at {@link #l4}, its checksum filled, between the addresses
     * of h (from {@link #addressed}), with hop limit ttl, in a frame to the Ethernet address mac.
     */
    void sendIcmp(IpHeader addressed, int length, int ttl, long mac) {
        IpHeader h = addressed.protocol(version.icmpProtocol()).ttl(ttl).payloadLength(length);
        Icmp.fillChecksum(tx, l4, length, version.icmpPseudoHeader(h, length));
        output.send(version, tx, h, mac);
    }

    private IpHeader header(int source, int destination, int protocol, int length) {
        return header.source(addresses.hi(source), addresses.lo(source))
                .destination(addresses.hi(destination), addresses.lo(destination))
                .protocol(protocol).ttl(TTL).payloadLength(length);
    }
}
