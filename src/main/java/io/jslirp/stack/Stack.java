package io.jslirp.stack;

import io.jslirp.service.DhcpServer;

import io.jslirp.tcp.TcpOutput;
import io.jslirp.util.AddressBook;
import io.jslirp.util.RingBuffer;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * The virtual network's link and IP layers: takes the guest's frames, answers what the gateway
 * answers itself (ARP, ICMP echo to the gateway and DNS addresses, DHCP), hands TCP, UDP and
 * other ICMP echo to the {@link Transport}, and builds
 * the frames going back to the guest in one reused buffer.
 */
public final class Stack implements GuestOutput {
    /** Where an IPv4 payload starts in an outgoing frame. */
    public static final int IP_PAYLOAD_OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;
    /** Where a UDP payload starts in an outgoing frame. */
    public static final int UDP_PAYLOAD_OFFSET = IP_PAYLOAD_OFFSET + Udp.HEADER_LENGTH;
    private static final int TTL = 64;

    private final NetworkConfig config;
    private final FrameSink sink;
    private final Counters counters;
    private final DhcpServer dhcp;
    private final MemorySegment tx;
    /** Fragments toward the guest are built here, so the datagram in {@link #tx} stays intact. */
    private final MemorySegment fragmentTx;
    private final Reassembler reassembler;
    private Transport transport;
    /** The IPv6 layer, or null when IPv6 is off (its frames are then counted as unsupported). */
    private Stack6 ipv6;
    private long guestMac = Ethernet.BROADCAST;
    /** The guest's IPv4 address: the latest it sent from or DHCP gave it, 0 before. */
    private int guestAddress;
    /** The addresses the transport and the output see: handles of the engine's book, for both versions. */
    private final AddressBook addresses;
    /** {@link #guestAddress()}'s handle, held while it names the guest; NONE before the first call. */
    private int guestHandle = AddressBook.NONE;
    /** The virtual hosts' handles, held for the life of the stack. */
    private final int gatewayHandle, dnsHandle;
    private int ipId;
    /** Time for DHCP leases and fragment reassembly (System.nanoTime; tests move it on by hand). */
    private LongSupplier clock = System::nanoTime;

    public Stack(NetworkConfig config, FrameSink sink, Counters counters) {
        this(config, null, sink, counters, new AddressBook());
    }

    /**
     * @param bootFile  the boot file DHCP names (with the gateway as its TFTP server), or null
     * @param addresses the engine's address handles, which the transport and the output use
     */
    public Stack(NetworkConfig config, String bootFile, FrameSink sink, Counters counters, AddressBook addresses) {
        this.config = config;
        this.addresses = addresses;
        this.gatewayHandle = addresses.acquire4(config.gateway());
        this.dnsHandle = addresses.acquire4(config.dns());
        this.sink = sink;
        this.counters = counters;
        this.dhcp = new DhcpServer(config, bootFile);
        this.tx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + 65536, 64);
        this.fragmentTx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + config.mtu(), 64);
        this.reassembler = new Reassembler(counters);
    }

    void setClock(LongSupplier clock) {
        this.clock = clock;
    }

    public void setTransport(Transport transport) {
        this.transport = transport;
    }

    /** Hands the guest's IPv6 frames to ipv6 (with --enable-ipv6). */
    public void setIpv6(Stack6 ipv6) {
        this.ipv6 = ipv6;
    }

    public NetworkConfig config() {
        return config;
    }

    @Override
    public Counters counters() {
        return counters;
    }

    /**
     * Returns whether the guest's MAC address is known (it has sent a frame); when not, sends an
     * ARP request for address, whose answer teaches it. Until then frames go to the broadcast
     * address, which the guest's TCP ignores.
     */
    @Override
    public boolean resolveGuestMac(int address) {
        if (guestMac != Ethernet.BROADCAST) return true;
        address = addresses.ipv4(address);
        int len = Ethernet.HEADER_LENGTH + Arp.LENGTH;
        Ethernet.write(tx, 0, Ethernet.BROADCAST, config.gatewayMac(), Ethernet.TYPE_ARP);
        Arp.write(tx, Ethernet.HEADER_LENGTH, Arp.REQUEST, config.gatewayMac(), config.gateway(), 0, address);
        send(tx, len);
        return false;
    }

    /**
     * The guest's IPv4 address: the latest it sent from or DHCP gave it, else the configured one
     * (.100, as with --configure).
     */
    @Override
    public int guestAddress() {
        int a = guestAddress != 0 ? guestAddress : config.guest();
        if (guestHandle == AddressBook.NONE || addresses.ipv4(guestHandle) != a) {
            int h = addresses.acquire4(a);
            if (guestHandle != AddressBook.NONE) addresses.release(guestHandle);
            guestHandle = h;
        }
        return guestHandle;
    }

    /** The handles the transport's and the output's addresses are. */
    @Override
    public AddressBook addresses() {
        return addresses;
    }

    @Override
    public int version() {
        return 4;
    }

    @Override
    public int gateway() {
        return gatewayHandle;
    }

    @Override
    public int dns() {
        return dnsHandle;
    }

    @Override
    public int udpPayloadOffset() {
        return UDP_PAYLOAD_OFFSET;
    }

    @Override
    public int maxUdpPayload() {
        return 65535 - Ipv4.MIN_HEADER_LENGTH - Udp.HEADER_LENGTH;
    }

    @Override
    public int icmpOffset() {
        return IP_PAYLOAD_OFFSET;
    }

    /** Takes one frame of length bytes from the guest, checking every checksum. */
    public void receive(MemorySegment f, int length) {
        receive(f, length, false);
    }

    /**
     * Takes one frame of length bytes from the guest; its TCP or UDP checksum is checked unless
     * checksumTrusted ({@link io.jslirp.link.Link#checksumTrusted}). Never throws for bad input:
     * counts and drops it.
     */
    public void receive(MemorySegment f, int length, boolean checksumTrusted) {
        counters.framesIn++;
        if (length < Ethernet.HEADER_LENGTH) {
            counters.malformed++;
            return;
        }
        long source = Ethernet.source(f, 0);
        int type = Ethernet.type(f, 0);
        int payload = length - Ethernet.HEADER_LENGTH;
        switch (type) {
            case Ethernet.TYPE_ARP -> arp(f, Ethernet.HEADER_LENGTH, payload, source);
            case Ethernet.TYPE_IPV4 -> ipv4(f, Ethernet.HEADER_LENGTH, payload, source, checksumTrusted);
            case Ethernet.TYPE_IPV6 -> {
                if (ipv6 != null) ipv6.receive(f, Ethernet.HEADER_LENGTH, payload, source, checksumTrusted);
                else counters.unsupported++;
            }
            default -> counters.unsupported++;
        }
    }

    private void arp(MemorySegment f, long off, int len, long source) {
        if (!Arp.valid(f, off, len)) {
            counters.malformed++;
            return;
        }
        int sender = Arp.senderIp(f, off);
        if (answersFor(sender)) {
            // The guest claims an address of the gateway's (a gratuitous ARP, spoofing): the
            // gateway has no neighbour table to poison, and it keeps answering as itself.
            counters.arpClaims++;
            return;
        }
        dhcp.seen(sender);
        int target = Arp.targetIp(f, off);
        if (Arp.operation(f, off) == Arp.REPLY && target == config.gateway()) {
            guestMac = source; // the answer to our request (resolveGuestMac)
            return;
        }
        if (Arp.operation(f, off) != Arp.REQUEST || !answersFor(target)) {
            return; // gratuitous ARP, replies, probes for other guests' addresses
        }
        guestMac = source;
        long mac = config.macOf(target);
        Ethernet.write(tx, 0, source, mac, Ethernet.TYPE_ARP);
        Arp.write(tx, Ethernet.HEADER_LENGTH, Arp.REPLY, mac, target, Arp.senderMac(f, off), Arp.senderIp(f, off));
        send(tx, Ethernet.HEADER_LENGTH + Arp.LENGTH);
    }

    /** The virtual hosts the stack itself answers ARP and ping for. */
    private boolean answersFor(int address) {
        return address == config.gateway() || address == config.dns();
    }

    private void ipv4(MemorySegment f, long off, int len, long sourceMac, boolean checksumTrusted) {
        String error = Ipv4.check(f, off, len);
        if (error != null) {
            if (error == Ipv4.BAD_CHECKSUM) counters.badChecksum++;
            else counters.malformed++;
            return;
        }
        int src = Ipv4.source(f, off);
        if (src != 0) {
            // A sender without an address (a DHCP client, or one flooding DHCP with made-up MACs)
            // is not yet where the guest's traffic goes.
            guestMac = sourceMac;
            guestAddress = src;
            dhcp.seen(src);
        }
        int dst = Ipv4.destination(f, off);
        int protocol = Ipv4.protocol(f, off);
        if (Ipv4.isFragment(f, off)) {
            MemorySegment whole = reassembler.add(f, off, clock.getAsLong());
            if (whole != null) transport(whole, Reassembler.PAYLOAD_OFFSET, reassembler.completedLength(), protocol, src, dst, false);
            return;
        }
        int ihl = Ipv4.headerLength(f, off);
        transport(f, off + ihl, Ipv4.totalLength(f, off) - ihl, protocol, src, dst, checksumTrusted);
    }

    private void transport(MemorySegment f, long l4, int l4Len, int protocol, int src, int dst, boolean checksumTrusted) {
        switch (protocol) {
            case Ipv4.PROTO_TCP -> {
                if (Tcp.check(f, l4, l4Len) != null) counters.malformed++;
                else if (!checksumTrusted && !Checksum.valid4(f, l4, l4Len, Ipv4.PROTO_TCP, src, dst)) counters.badChecksum++;
                else {
                    int s = addresses.acquire4(src), d = addresses.acquire4(dst);
                    transport.tcp(f, l4, l4Len, s, d);
                    addresses.release(s);
                    addresses.release(d);
                }
            }
            case Ipv4.PROTO_UDP -> udp(f, l4, l4Len, src, dst, checksumTrusted);
            case Ipv4.PROTO_ICMP -> icmp(f, l4, l4Len, src, dst);
            default -> counters.unsupported++;
        }
    }

    private void udp(MemorySegment f, long off, int len, int src, int dst, boolean checksumTrusted) {
        if (Udp.check(f, off, len) != null) {
            counters.malformed++;
            return;
        }
        int udpLen = Udp.length(f, off);
        // A zero checksum means the sender computed none (allowed for UDP over IPv4).
        if (!checksumTrusted && Bytes.u16(f, off + 6) != 0 && !Checksum.valid4(f, off, udpLen, Ipv4.PROTO_UDP, src, dst)) {
            counters.badChecksum++;
            return;
        }
        int payloadLen = udpLen - Udp.HEADER_LENGTH;
        int srcPort = Udp.sourcePort(f, off);
        int dstPort = Udp.destinationPort(f, off);
        if (dstPort == Dhcp.SERVER_PORT) {
            if (dhcp.handle(f, off + Udp.HEADER_LENGTH, payloadLen, tx, UDP_PAYLOAD_OFFSET, clock.getAsLong())) {
                if (dhcp.lastAcked() != 0) guestAddress = dhcp.lastAcked(); // a (re)booted guest's new address
                int replyLen = dhcp.replyLength();
                sendUdp(config.gateway(), Dhcp.SERVER_PORT, dhcp.replyDestination(), Dhcp.CLIENT_PORT, replyLen, dhcp.replyMac());
            } else if (dhcp.lastError() != null) {
                counters.malformed++;
            }
            return;
        }
        int s = addresses.acquire4(src), d = addresses.acquire4(dst);
        transport.udp(f, off + Udp.HEADER_LENGTH, payloadLen, s, srcPort, d, dstPort);
        addresses.release(s);
        addresses.release(d);
    }

    private void icmp(MemorySegment f, long off, int len, int src, int dst) {
        if (len < Icmpv4.HEADER_LENGTH) {
            counters.malformed++;
            return;
        }
        if (Checksum.of(f, off, len) != 0) {
            counters.badChecksum++;
            return;
        }
        if (Icmpv4.type(f, off) != Icmpv4.ECHO_REQUEST) {
            counters.unsupported++;
            return;
        }
        if (!answersFor(dst)) {
            int s = addresses.acquire4(src), d = addresses.acquire4(dst);
            transport.icmpEcho(f, off, len, s, d);
            addresses.release(s);
            addresses.release(d);
            return;
        }
        MemorySegment.copy(f, off, tx, IP_PAYLOAD_OFFSET, len);
        Icmpv4.setType(tx, IP_PAYLOAD_OFFSET, Icmpv4.ECHO_REPLY);
        Icmpv4.fillChecksum(tx, IP_PAYLOAD_OFFSET, len);
        sendIpv4(Ipv4.PROTO_ICMP, dst, src, len, guestMac);
    }

    // ---- output ----

    /** The reused outgoing frame; UDP payloads go at {@link #UDP_PAYLOAD_OFFSET}. */
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

    @Override
    public void sendTcp(int source, int destination, int tcpLength, int segmentSize) {
        source = addresses.ipv4(source);
        destination = addresses.ipv4(destination);
        if (!sink.offloadsTcp()) {
            Tcp.fillChecksum4(tx, IP_PAYLOAD_OFFSET, tcpLength, source, destination);
            sendIpv4(Ipv4.PROTO_TCP, source, destination, tcpLength, guestMac);
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
        writeOffloadedTcpHeaders(addresses.ipv4(source), addresses.ipv4(destination), headerLength + payloadLength);
        count(sink.sendTcp(tx, IP_PAYLOAD_OFFSET + headerLength, payload, skip, payloadLength, segmentSize));
    }

    /**
     * For a link (a tap with offloads) that completes the checksum and cuts the payload into
     * segments; the guest's kernel takes the frame as it takes one its own NIC coalesced.
     */
    private void writeOffloadedTcpHeaders(int source, int destination, int tcpLength) {
        Tcp.fillPseudoHeaderChecksum4(tx, IP_PAYLOAD_OFFSET, tcpLength, source, destination);
        writeHeaders(Ipv4.PROTO_TCP, source, destination, tcpLength, guestMac);
    }

    private void count(boolean sent) {
        if (sent) counters.framesOut++;
        else counters.sendDropped++;
    }

    /**
     * Tells the guest, from the gateway, that its datagram to remote could not be delivered: an
     * ICMP destination unreachable with the given code, quoting a rebuilt IPv4 header and the
     * first 8 bytes of the transport header (for TCP: ports and sequence number), which is what
     * the guest's kernel matches the error to its socket by.
     */
    @Override
    public void sendUnreachable(int code, int protocol, int guest, int remote, long transportHead) {
        guest = addresses.ipv4(guest);
        remote = addresses.ipv4(remote);
        long icmp = IP_PAYLOAD_OFFSET;
        long quoted = icmp + Icmpv4.HEADER_LENGTH;
        int quotedLength = Ipv4.MIN_HEADER_LENGTH + Icmpv4.QUOTED_TRANSPORT_BYTES;
        Bytes.u8(tx, icmp, Icmpv4.DEST_UNREACHABLE);
        Bytes.u8(tx, icmp + 1, code);
        Bytes.u32(tx, icmp + 4, 0);
        Ipv4.write(tx, quoted, quotedLength, 0, TTL, protocol, guest, remote);
        Bytes.u32(tx, quoted + Ipv4.MIN_HEADER_LENGTH, (int) (transportHead >>> 32));
        Bytes.u32(tx, quoted + Ipv4.MIN_HEADER_LENGTH + 4, (int) transportHead);
        int length = Icmpv4.HEADER_LENGTH + quotedLength;
        Icmpv4.fillChecksum(tx, icmp, length);
        counters.unreachableSent++;
        sendIpv4(Ipv4.PROTO_ICMP, config.gateway(), guest, length, guestMac);
    }

    /** Sends an ICMP message whose length bytes are already at {@link #IP_PAYLOAD_OFFSET}, filling its checksum. */
    @Override
    public void sendIcmp(int source, int destination, int length) {
        Icmpv4.fillChecksum(tx, IP_PAYLOAD_OFFSET, length);
        sendIpv4(Ipv4.PROTO_ICMP, addresses.ipv4(source), addresses.ipv4(destination), length, guestMac);
    }

    /** Sends a UDP datagram whose payloadLength bytes are already at {@link #UDP_PAYLOAD_OFFSET}. */
    @Override
    public void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength) {
        sendUdp(addresses.ipv4(source), sourcePort, addresses.ipv4(destination), destinationPort, payloadLength, guestMac);
    }

    private void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength, long mac) {
        Udp.write4(tx, IP_PAYLOAD_OFFSET, sourcePort, destinationPort, payloadLength, source, destination);
        sendIpv4(Ipv4.PROTO_UDP, source, destination, Udp.HEADER_LENGTH + payloadLength, mac);
    }

    private void sendIpv4(int protocol, int source, int destination, int l4Length, long mac) {
        if (Ipv4.MIN_HEADER_LENGTH + l4Length > config.mtu()) {
            sendFragments(protocol, source, destination, l4Length, mac, ipId++ & 0xffff);
            return;
        }
        writeHeaders(protocol, source, destination, l4Length, mac);
        send(tx, IP_PAYLOAD_OFFSET + l4Length);
    }

    /** Ethernet and IPv4 headers in front of the l4Length bytes at {@link #IP_PAYLOAD_OFFSET}. */
    private void writeHeaders(int protocol, int source, int destination, int l4Length, long mac) {
        Ethernet.write(tx, 0, mac, config.gatewayMac(), Ethernet.TYPE_IPV4);
        Ipv4.write(tx, Ethernet.HEADER_LENGTH, Ipv4.MIN_HEADER_LENGTH + l4Length, ipId++ & 0xffff, TTL, protocol, source, destination);
    }

    /** Splits the datagram whose payload is in {@link #tx} into fragments that fit the MTU (RFC 791). */
    private void sendFragments(int protocol, int source, int destination, int l4Length, long mac, int id) {
        int piece = (config.mtu() - Ipv4.MIN_HEADER_LENGTH) & ~7;
        for (int at = 0; at < l4Length; at += piece) {
            int len = Math.min(piece, l4Length - at);
            int field = (at / 8) | (at + len < l4Length ? Ipv4.MORE_FRAGMENTS : 0);
            Ethernet.write(fragmentTx, 0, mac, config.gatewayMac(), Ethernet.TYPE_IPV4);
            Ipv4.write(fragmentTx, Ethernet.HEADER_LENGTH, Ipv4.MIN_HEADER_LENGTH + len, id, field, TTL, protocol, source, destination);
            MemorySegment.copy(tx, IP_PAYLOAD_OFFSET + at, fragmentTx, IP_PAYLOAD_OFFSET, len);
            send(fragmentTx, IP_PAYLOAD_OFFSET + len);
        }
    }

    private void send(MemorySegment frame, int length) {
        count(sink.send(frame, length));
    }
}
