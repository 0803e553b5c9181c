package io.jslirp.stack;

import io.jslirp.tcp.TcpOutput;
import io.jslirp.util.RingBuffer;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Icmpv6;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The virtual network's IPv6 layer (with {@code --enable-ipv6}): answers what the router answers
 * itself (Neighbor and Router Solicitations, echo requests to its addresses, stateless DHCPv6
 * Information-Requests), hands TCP, UDP and other echo requests to its {@link Transport}, and
 * builds the frames going back to the guest.
 *
 * <p>The transport and the TCP connections see IPv6 addresses as the int handles of an
 * {@link AddressBook}: each received segment's addresses are held for the call, and a flow that
 * keeps one retains it.
 */
public final class Stack6 implements GuestOutput {
    public static final int IP_PAYLOAD_OFFSET = Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH;
    public static final int UDP_PAYLOAD_OFFSET = IP_PAYLOAD_OFFSET + Udp.HEADER_LENGTH;
    private static final int HOP_LIMIT = 64;
    /** Neighbor Discovery messages are sent, and accepted only, with hop limit 255 (RFC 4861). */
    private static final int NDP_HOP_LIMIT = 255;
    /** libslirp's values: default router for 30 min, prefix valid 1 day, preferred 4 h, DNS server as long as the router. */
    private static final int ROUTER_LIFETIME = 1800, PREFIX_VALID = 86400, PREFIX_PREFERRED = 14400, DNS_LIFETIME = 1800;
    /** The Ethernet address of ff02::1 (33:33 and the address's low 32 bits). */
    private static final long ALL_NODES_MAC = 0x3333_0000_0001L;

    private final Ipv6Network net;
    private final FrameSink sink;
    private final Counters counters;
    private final AddressBook addresses;
    /** The virtual hosts' handles, held for the life of the stack. */
    private final int gatewayHandle, dnsHandle;
    private final MemorySegment tx;
    private Transport transport;
    private long guestMac = ALL_NODES_MAC;
    /** The guest's address in the prefix (a handle held here), the latest it sent from or announced; NONE before. */
    private int guestAddress = AddressBook.NONE;

    public Stack6(Ipv6Network net, FrameSink sink, Counters counters) {
        this(net, sink, counters, new AddressBook());
    }

    /** addresses: the engine's address handles, shared with IPv4's stack. */
    public Stack6(Ipv6Network net, FrameSink sink, Counters counters, AddressBook addresses) {
        this.net = net;
        this.addresses = addresses;
        this.gatewayHandle = addresses.acquire(net.gatewayHi(), net.gatewayLo());
        this.dnsHandle = addresses.acquire(net.dnsHi(), net.dnsLo());
        this.sink = sink;
        this.counters = counters;
        this.tx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + 65536, 64);
    }

    public void setTransport(Transport transport) {
        this.transport = transport;
    }

    public Ipv6Network network() {
        return net;
    }

    @Override
    public Counters counters() {
        return counters;
    }

    /** The handles the transport's addresses are. */
    @Override
    public AddressBook addresses() {
        return addresses;
    }

    @Override
    public int version() {
        return 6;
    }

    @Override
    public int gateway() {
        return gatewayHandle;
    }

    @Override
    public int dns() {
        return dnsHandle;
    }

    /** The guest's MAC is known from its Neighbor and Router Solicitations before any flow. */
    @Override
    public boolean resolveGuestMac(int guest) {
        return true;
    }

    @Override
    public int udpPayloadOffset() {
        return UDP_PAYLOAD_OFFSET;
    }

    /** What fits the frame buffer; more than the MTU is dropped (see {@link #sendUdp}). */
    @Override
    public int maxUdpPayload() {
        return 65536 - Ipv6.HEADER_LENGTH - Udp.HEADER_LENGTH;
    }

    @Override
    public int icmpOffset() {
        return IP_PAYLOAD_OFFSET;
    }

    /** Sends the ICMPv6 message of length bytes at {@link #icmpOffset()} between handles, filling its checksum. */
    @Override
    public void sendIcmp(int source, int destination, int length) {
        long srcHi = addresses.hi(source), srcLo = addresses.lo(source);
        long dstHi = addresses.hi(destination), dstLo = addresses.lo(destination);
        Icmpv6.fillChecksum(tx, IP_PAYLOAD_OFFSET, length, srcHi, srcLo, dstHi, dstLo);
        sendIpv6(Ipv6.PROTO_ICMPV6, HOP_LIMIT, srcHi, srcLo, dstHi, dstLo, length, guestMac);
    }

    /**
     * The guest's global address (a handle), where forwarded host ports reach it over IPv6: the
     * latest it sent from, or took by SLAAC (its duplicate address detection names it);
     * {@link AddressBook#NONE} while none is known.
     */
    @Override
    public int guestAddress() {
        return guestAddress;
    }

    private void learnGuestAddress(long hi, long lo) {
        if (!net.inPrefix(hi) || net.answersFor(hi, lo)) return;
        if (guestAddress != AddressBook.NONE) {
            if (addresses.hi(guestAddress) == hi && addresses.lo(guestAddress) == lo) return;
            addresses.release(guestAddress);
        }
        guestAddress = addresses.acquire(hi, lo);
    }

    /**
     * Takes an IPv6 packet of len bytes at off of a frame from sourceMac; its TCP or UDP checksum
     * is checked unless checksumTrusted, as in {@link Stack#receive(MemorySegment, int, boolean)}
     * (ICMPv6's always is). Never throws for bad input: counts and drops it.
     */
    void receive(MemorySegment f, long off, int len, long sourceMac, boolean checksumTrusted) {
        if (Ipv6.check(f, off, len) != null) {
            counters.malformed++;
            return;
        }
        long srcHi = Ipv6.sourceHi(f, off), srcLo = Ipv6.sourceLo(f, off);
        long dstHi = Ipv6.destinationHi(f, off), dstLo = Ipv6.destinationLo(f, off);
        if (Ipv6.isMulticast(srcHi)) {
            counters.malformed++;
            return;
        }
        guestMac = sourceMac;
        learnGuestAddress(srcHi, srcLo);
        long l4 = off + Ipv6.HEADER_LENGTH;
        int l4Len = Ipv6.payloadLength(f, off);
        switch (Ipv6.nextHeader(f, off)) {
            case Ipv6.PROTO_ICMPV6 -> icmp(f, l4, l4Len, Ipv6.hopLimit(f, off), srcHi, srcLo, dstHi, dstLo);
            case Ipv6.PROTO_UDP -> udp(f, l4, l4Len, srcHi, srcLo, dstHi, dstLo, checksumTrusted);
            case Ipv6.PROTO_TCP -> tcp(f, l4, l4Len, srcHi, srcLo, dstHi, dstLo, checksumTrusted);
            default -> counters.unsupported++; // extension headers (fragments, hop-by-hop) are not taken
        }
    }

    private void tcp(MemorySegment f, long off, int len, long srcHi, long srcLo, long dstHi, long dstLo, boolean checksumTrusted) {
        if (Tcp.check(f, off, len) != null || (srcHi | srcLo) == 0 || Ipv6.isMulticast(dstHi)) {
            counters.malformed++;
            return;
        }
        if (!checksumTrusted && !Checksum.valid6(f, off, len, Ipv6.PROTO_TCP, srcHi, srcLo, dstHi, dstLo)) {
            counters.badChecksum++;
            return;
        }
        int src = addresses.acquire(srcHi, srcLo), dst = addresses.acquire(dstHi, dstLo);
        transport.tcp(f, off, len, src, dst);
        addresses.release(src);
        addresses.release(dst);
    }

    private void udp(MemorySegment f, long off, int len, long srcHi, long srcLo, long dstHi, long dstLo, boolean checksumTrusted) {
        if (Udp.check(f, off, len) != null) {
            counters.malformed++;
            return;
        }
        int udpLen = Udp.length(f, off);
        // Unlike IPv4's, an IPv6 UDP checksum is mandatory: zero is not "none" but wrong (RFC 8200 section 8.1).
        if (!checksumTrusted && (Bytes.u16(f, off + 6) == 0
                || !Checksum.valid6(f, off, udpLen, Ipv6.PROTO_UDP, srcHi, srcLo, dstHi, dstLo))) {
            counters.badChecksum++;
            return;
        }
        int payloadLen = udpLen - Udp.HEADER_LENGTH;
        int srcPort = Udp.sourcePort(f, off), dstPort = Udp.destinationPort(f, off);
        if (dstPort == Dhcpv6.SERVER_PORT) {
            dhcp(f, off + Udp.HEADER_LENGTH, payloadLen, srcHi, srcLo, srcPort);
            return;
        }
        if ((srcHi | srcLo) == 0 || Ipv6.isMulticast(dstHi)) {
            counters.unsupported++; // multicast (mDNS, LLMNR...) stays on the link
            return;
        }
        int src = addresses.acquire(srcHi, srcLo), dst = addresses.acquire(dstHi, dstLo);
        transport.udp(f, off + Udp.HEADER_LENGTH, payloadLen, src, srcPort, dst, dstPort);
        addresses.release(src);
        addresses.release(dst);
    }

    /** Stateless DHCPv6 (RFC 8415 section 18.4.6): an Information-Request gets the DNS server. */
    private void dhcp(MemorySegment f, long off, int len, long srcHi, long srcLo, int srcPort) {
        if (len < Dhcpv6.HEADER_LENGTH) {
            counters.malformed++;
            return;
        }
        if (Dhcpv6.messageType(f, off) != Dhcpv6.INFORMATION_REQUEST) {
            counters.unsupported++; // no addresses are leased: the guest takes SLAAC's
            return;
        }
        long clientId = Dhcpv6.findOption(f, off, len, Dhcpv6.OPT_CLIENT_ID);
        if (clientId == -2 || (clientId >= 0 && Dhcpv6.optionLength(f, clientId) > Dhcpv6.MAX_DUID_LENGTH)) {
            counters.malformed++;
            return;
        }
        int replyLen = Dhcpv6.writeReply(tx, UDP_PAYLOAD_OFFSET, Dhcpv6.transactionId(f, off), f, clientId,
                net.gatewayMac(), net.dnsHi(), net.dnsLo());
        long hi = Ipv6Network.LINK_LOCAL_HI, lo = Ipv6Network.ROUTER_LINK_LOCAL_LO;
        Udp.write6(tx, IP_PAYLOAD_OFFSET, Dhcpv6.SERVER_PORT, srcPort, replyLen, hi, lo, srcHi, srcLo);
        sendIpv6(Ipv6.PROTO_UDP, HOP_LIMIT, hi, lo, srcHi, srcLo, Udp.HEADER_LENGTH + replyLen, guestMac);
    }

    private void icmp(MemorySegment f, long off, int len, int hopLimit, long srcHi, long srcLo, long dstHi, long dstLo) {
        if (len < Icmpv6.HEADER_LENGTH) {
            counters.malformed++;
            return;
        }
        if (!Icmpv6.checksumValid(f, off, len, srcHi, srcLo, dstHi, dstLo)) {
            counters.badChecksum++;
            return;
        }
        switch (Icmpv6.type(f, off)) {
            case Icmpv6.ECHO_REQUEST -> echo(f, off, len, srcHi, srcLo, dstHi, dstLo);
            case Ndp.NEIGHBOR_SOLICITATION -> neighborSolicitation(f, off, len, hopLimit, srcHi, srcLo);
            case Ndp.ROUTER_SOLICITATION -> routerSolicitation(f, off, len, hopLimit, srcHi, srcLo);
            default -> counters.unsupported++; // the guest's own advertisements, MLD reports
        }
    }

    private void echo(MemorySegment f, long off, int len, long srcHi, long srcLo, long dstHi, long dstLo) {
        if ((srcHi | srcLo) == 0 || Ipv6.isMulticast(dstHi)) {
            counters.unsupported++;
            return;
        }
        if (!net.answersFor(dstHi, dstLo)) {
            int src = addresses.acquire(srcHi, srcLo), dst = addresses.acquire(dstHi, dstLo);
            transport.icmpEcho(f, off, len, src, dst);
            addresses.release(src);
            addresses.release(dst);
            return;
        }
        if (Ipv6.HEADER_LENGTH + len > net.mtu()) {
            counters.sendDropped++; // the reply would not fit the link
            return;
        }
        MemorySegment.copy(f, off, tx, IP_PAYLOAD_OFFSET, len);
        Icmpv6.setType(tx, IP_PAYLOAD_OFFSET, Icmpv6.ECHO_REPLY);
        Icmpv6.fillChecksum(tx, IP_PAYLOAD_OFFSET, len, dstHi, dstLo, srcHi, srcLo);
        sendIpv6(Ipv6.PROTO_ICMPV6, HOP_LIMIT, dstHi, dstLo, srcHi, srcLo, len, guestMac);
    }

    private void neighborSolicitation(MemorySegment f, long off, int len, int hopLimit, long srcHi, long srcLo) {
        if (hopLimit != NDP_HOP_LIMIT || Icmpv6.code(f, off) != 0 || len < Ndp.NEIGHBOR_LENGTH
                || Ndp.findOption(f, off + Ndp.NEIGHBOR_LENGTH, len - Ndp.NEIGHBOR_LENGTH, 0) == -2) {
            counters.malformed++;
            return;
        }
        long targetHi = Ndp.targetHi(f, off), targetLo = Ndp.targetLo(f, off);
        boolean fromDad = (srcHi | srcLo) == 0;
        if (fromDad) learnGuestAddress(targetHi, targetLo); // the address SLAAC is about to give it
        if (!net.answersFor(targetHi, targetLo)) return; // the guest's duplicate address detection, other neighbors
        long dstHi = fromDad ? Ipv6.ALL_NODES_HI : srcHi, dstLo = fromDad ? Ipv6.ALL_NODES_LO : srcLo;
        int flags = Ndp.NA_ROUTER | Ndp.NA_OVERRIDE | (fromDad ? 0 : Ndp.NA_SOLICITED);
        Ndp.writeNeighborAdvertisement(tx, IP_PAYLOAD_OFFSET, flags, targetHi, targetLo, net.gatewayMac());
        int length = Ndp.NEIGHBOR_ADVERTISEMENT_LENGTH;
        Icmpv6.fillChecksum(tx, IP_PAYLOAD_OFFSET, length, targetHi, targetLo, dstHi, dstLo);
        sendIpv6(Ipv6.PROTO_ICMPV6, NDP_HOP_LIMIT, targetHi, targetLo, dstHi, dstLo, length, fromDad ? ALL_NODES_MAC : guestMac);
    }

    private void routerSolicitation(MemorySegment f, long off, int len, int hopLimit, long srcHi, long srcLo) {
        if (hopLimit != NDP_HOP_LIMIT || Icmpv6.code(f, off) != 0 || len < Ndp.ROUTER_SOLICITATION_LENGTH
                || Ndp.findOption(f, off + Ndp.ROUTER_SOLICITATION_LENGTH, len - Ndp.ROUTER_SOLICITATION_LENGTH, 0) == -2) {
            counters.malformed++;
            return;
        }
        if ((srcHi | srcLo) == 0) sendRouterAdvertisement();
        else sendRouterAdvertisement(srcHi, srcLo, guestMac);
    }

    /** An unsolicited Router Advertisement to all nodes (at start and periodically). */
    public void sendRouterAdvertisement() {
        sendRouterAdvertisement(Ipv6.ALL_NODES_HI, Ipv6.ALL_NODES_LO, ALL_NODES_MAC);
    }

    /**
     * The prefix to form addresses from (SLAAC), the router's MTU and DNS server (RDNSS); the O
     * flag says the DNS server is also to be had by stateless DHCPv6.
     */
    private void sendRouterAdvertisement(long dstHi, long dstLo, long mac) {
        long srcHi = Ipv6Network.LINK_LOCAL_HI, srcLo = Ipv6Network.ROUTER_LINK_LOCAL_LO;
        Ndp.writeRouterAdvertisement(tx, IP_PAYLOAD_OFFSET, HOP_LIMIT, Ndp.RA_OTHER, ROUTER_LIFETIME, net.gatewayMac(),
                net.mtu(), net.prefixHi(), Ipv6Network.PREFIX_LENGTH, PREFIX_VALID, PREFIX_PREFERRED,
                net.dnsHi(), net.dnsLo(), DNS_LIFETIME);
        int length = Ndp.ROUTER_ADVERTISEMENT_LENGTH;
        Icmpv6.fillChecksum(tx, IP_PAYLOAD_OFFSET, length, srcHi, srcLo, dstHi, dstLo);
        sendIpv6(Ipv6.PROTO_ICMPV6, NDP_HOP_LIMIT, srcHi, srcLo, dstHi, dstLo, length, mac);
    }

    // ---- output ----

    @Override
    public MemorySegment frame() {
        return tx;
    }

    @Override
    public long tcpOffset() {
        return IP_PAYLOAD_OFFSET;
    }

    @Override
    public boolean largeSegments() {
        return sink.offloadsTcp();
    }

    /** source and destination are handles of {@link #addresses()}. */
    @Override
    public void sendTcp(int source, int destination, int tcpLength, int segmentSize) {
        if (!sink.offloadsTcp()) {
            long srcHi = addresses.hi(source), srcLo = addresses.lo(source);
            long dstHi = addresses.hi(destination), dstLo = addresses.lo(destination);
            Tcp.fillChecksum6(tx, IP_PAYLOAD_OFFSET, tcpLength, srcHi, srcLo, dstHi, dstLo);
            sendIpv6(Ipv6.PROTO_TCP, HOP_LIMIT, srcHi, srcLo, dstHi, dstLo, tcpLength, guestMac);
            return;
        }
        writeOffloadedTcpHeaders(source, destination, tcpLength);
        count(sink.sendTcp(tx, IP_PAYLOAD_OFFSET + tcpLength, segmentSize));
    }

    @Override
    public void sendTcp(int source, int destination, int headerLength, RingBuffer payload, int skip, int payloadLength,
                        int segmentSize) {
        if (!sink.offloadsTcp()) {
            GuestOutput.super.sendTcp(source, destination, headerLength, payload, skip, payloadLength, segmentSize);
            return;
        }
        writeOffloadedTcpHeaders(source, destination, headerLength + payloadLength);
        count(sink.sendTcp(tx, IP_PAYLOAD_OFFSET + headerLength, payload, skip, payloadLength, segmentSize));
    }

    /** For a link that completes the checksum and cuts the payload into segments (as in {@link Stack}). */
    private void writeOffloadedTcpHeaders(int source, int destination, int tcpLength) {
        long srcHi = addresses.hi(source), srcLo = addresses.lo(source);
        long dstHi = addresses.hi(destination), dstLo = addresses.lo(destination);
        Tcp.fillPseudoHeaderChecksum6(tx, IP_PAYLOAD_OFFSET, tcpLength, srcHi, srcLo, dstHi, dstLo);
        writeHeaders(Ipv6.PROTO_TCP, HOP_LIMIT, srcHi, srcLo, dstHi, dstLo, tcpLength, guestMac);
    }

    private void count(boolean sent) {
        if (sent) counters.framesOut++;
        else counters.sendDropped++;
    }

    /**
     * Sends a UDP datagram whose payloadLength bytes are already at {@link #UDP_PAYLOAD_OFFSET},
     * between handles of {@link #addresses()}. IPv6 routers do not fragment: a datagram larger
     * than the MTU is dropped (counted in send_dropped).
     */
    @Override
    public void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength) {
        long srcHi = addresses.hi(source), srcLo = addresses.lo(source);
        long dstHi = addresses.hi(destination), dstLo = addresses.lo(destination);
        Udp.write6(tx, IP_PAYLOAD_OFFSET, sourcePort, destinationPort, payloadLength, srcHi, srcLo, dstHi, dstLo);
        sendIpv6(Ipv6.PROTO_UDP, HOP_LIMIT, srcHi, srcLo, dstHi, dstLo, Udp.HEADER_LENGTH + payloadLength, guestMac);
    }

    /**
     * Tells the guest, from the gateway, that its packet to remote could not be delivered: an
     * ICMPv6 destination unreachable for the ICMPv4 code icmp4Code (what {@code host.Unreachable}
     * gives), quoting a rebuilt IPv6 header and the first 8 bytes of the transport header.
     */
    @Override
    public void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead) {
        long gHi = addresses.hi(guest), gLo = addresses.lo(guest);
        long rHi = addresses.hi(remote), rLo = addresses.lo(remote);
        long icmp = IP_PAYLOAD_OFFSET;
        long quoted = icmp + Icmpv6.HEADER_LENGTH;
        int quotedLength = Ipv6.HEADER_LENGTH + Icmpv4.QUOTED_TRANSPORT_BYTES;
        Bytes.u8(tx, icmp, Icmpv6.DEST_UNREACHABLE);
        Bytes.u8(tx, icmp + 1, unreachableCode(icmp4Code));
        Bytes.u32(tx, icmp + 4, 0);
        Ipv6.write(tx, quoted, Icmpv4.QUOTED_TRANSPORT_BYTES, protocol, HOP_LIMIT, gHi, gLo, rHi, rLo);
        Bytes.u32(tx, quoted + Ipv6.HEADER_LENGTH, (int) (transportHead >>> 32));
        Bytes.u32(tx, quoted + Ipv6.HEADER_LENGTH + 4, (int) transportHead);
        int length = Icmpv6.HEADER_LENGTH + quotedLength;
        long srcHi = net.gatewayHi(), srcLo = net.gatewayLo();
        Icmpv6.fillChecksum(tx, icmp, length, srcHi, srcLo, gHi, gLo);
        counters.unreachableSent++;
        sendIpv6(Ipv6.PROTO_ICMPV6, HOP_LIMIT, srcHi, srcLo, gHi, gLo, length, guestMac);
    }

    private static int unreachableCode(int icmp4Code) {
        return switch (icmp4Code) {
            case Icmpv4.CODE_PORT_UNREACHABLE -> Icmpv6.CODE_PORT_UNREACHABLE;
            case Icmpv4.CODE_HOST_UNREACHABLE -> Icmpv6.CODE_ADDRESS_UNREACHABLE;
            case Icmpv4.CODE_ADMIN_PROHIBITED -> Icmpv6.CODE_ADMIN_PROHIBITED;
            default -> Icmpv6.CODE_NO_ROUTE;
        };
    }

    private void sendIpv6(int nextHeader, int hopLimit, long srcHi, long srcLo, long dstHi, long dstLo, int l4Length, long mac) {
        if (Ipv6.HEADER_LENGTH + l4Length > net.mtu()) {
            counters.sendDropped++;
            return;
        }
        writeHeaders(nextHeader, hopLimit, srcHi, srcLo, dstHi, dstLo, l4Length, mac);
        count(sink.send(tx, IP_PAYLOAD_OFFSET + l4Length));
    }

    private void writeHeaders(int nextHeader, int hopLimit, long srcHi, long srcLo, long dstHi, long dstLo, int l4Length, long mac) {
        Ethernet.write(tx, 0, mac, net.gatewayMac(), Ethernet.TYPE_IPV6);
        Ipv6.write(tx, Ethernet.HEADER_LENGTH, l4Length, nextHeader, hopLimit, srcHi, srcLo, dstHi, dstLo);
    }
}
