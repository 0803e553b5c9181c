package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.Udp;
import io.jslirp.wire.UdpDatagram;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * The one IP input and transport demux of both versions: the version's codec checks the header
 * (IPv6's walks its extension headers), fragments go to the one {@link Reassembler}, and TCP, UDP
 * and ICMP are checked once here, lengths and checksums in their codecs (a checksum the link
 * vouched for is not summed again). Then: DHCP to the {@link Services}, Neighbor Discovery to
 * the {@link Neighbours}, echo for the router's addresses answered, the rest to the {@link Transport}
 * with the addresses as handles held for the call. Whatever is dropped is counted by its
 * {@link Drop}; where IPv6 asks for it, the guest gets an ICMPv6 Parameter Problem (at most
 * {@link #ERRORS_PER_SECOND} a second, after a burst of {@link #ERROR_BURST}).
 */
final class IpInput {
    private final Counters counters;
    private final AddressBook addresses;
    private final Neighbours neighbours;
    private final Reassembler reassembler;
    private final IpHeader header = new IpHeader();
    /** The TCP segment at hand, read once by its check (options in the same walk) and handed up. */
    private final TcpSegment tcpSegment = new TcpSegment();
    /** The UDP datagram at hand, read once after its check and handed up. */
    private final UdpDatagram udpDatagram = new UdpDatagram();
    /** The echo request at hand, read once after its check and handed up. */
    private final IcmpEcho icmpEcho = new IcmpEcho();
    /** The packet at hand: the Ethernet address it came from, whether the link vouched for its checksums. */
    private long mac;
    private boolean checksumTrusted;
    /** ICMPv6 errors are rate-limited (RFC 4443 section 2.4 f): a bucket of this many, refilled at this many a second. */
    static final int ERROR_BURST = 100, ERRORS_PER_SECOND = 100;
    private int errorTokens = ERROR_BURST;
    private long errorsRefilled = Long.MIN_VALUE;
    private Transport transport;
    private Services services = Services.NONE;
    private LongSupplier clock = System::nanoTime;

    IpInput(Counters counters, AddressBook addresses, Neighbours neighbours) {
        this.counters = counters;
        this.addresses = addresses;
        this.neighbours = neighbours;
        this.reassembler = new Reassembler(counters);
    }

    void setTransport(Transport transport) {
        this.transport = transport;
    }

    void setServices(Services services) {
        this.services = services;
    }

    void setClock(LongSupplier clock) {
        this.clock = clock;
    }

    long now() {
        return clock.getAsLong();
    }

    /** The IP packet of len bytes at off of frame f (from the Ethernet address mac) of out's version. */
    void receive(IpOutput out, MemorySegment f, long off, int len, long mac, boolean checksumTrusted) {
        IpVersion v = out.ipVersion();
        IpHeader h = header;
        Drop error = v.read(f, off, len, h);
        if (error != null) {
            drop(out, error, f, off, h);
            return;
        }
        if (v.namesNoLinkAddress(h)) {
            counters.dropped(Drop.UNSUPPORTED);
            return;
        }
        neighbours.heard(out, h, mac);
        this.mac = mac;
        if (h.isFragment()) {
            MemorySegment whole = reassembler.add(v, f, off + h.headerLength(), h, clock.getAsLong());
            if (whole == null) return;
            error = v.reassembled(whole, Reassembler.PAYLOAD_OFFSET, reassembler.completedLength(), reassembler.completedProtocol(), h);
            if (error != null) {
                counters.dropped(error);
            } else {
                this.checksumTrusted = false;
                transport(out, whole, Reassembler.PAYLOAD_OFFSET, h, null);
            }
            return;
        }
        this.checksumTrusted = checksumTrusted;
        transport(out, f, off, h, f);
    }

    /**
     * The payload of the packet at ipOff of f that h describes; invoking: f when an ICMP error may
     * quote the packet, null for a reassembled datagram.
     */
    private void transport(IpOutput out, MemorySegment f, long ipOff, IpHeader h, MemorySegment invoking) {
        IpVersion v = out.ipVersion();
        long l4 = ipOff + h.headerLength();
        int len = h.payloadLength();
        int protocol = h.protocol();
        if (protocol == Ipv4.PROTO_TCP) tcp(v, f, l4, len, h);
        else if (protocol == Ipv4.PROTO_UDP) udp(out, f, l4, len, h);
        else if (protocol == v.icmpProtocol()) icmp(out, f, l4, len, h);
        else {
            v.unknownProtocol(h);
            drop(out, Drop.UNSUPPORTED, invoking, ipOff, h);
        }
    }

    private void tcp(IpVersion v, MemorySegment f, long off, int len, IpHeader h) {
        TcpSegment seg = tcpSegment;
        Drop error = checksumTrusted ? Tcp.read(f, off, len, seg) : Tcp.read(f, off, len, v, h, seg);
        if (error == null && v.staysOnLink(h)) error = Drop.BAD_FIELD;
        if (error != null) {
            counters.dropped(error);
            return;
        }
        int src = source(h), dst = destination(h);
        seg.addresses(v, src, dst);
        transport.tcp(seg);
        addresses.release(src);
        addresses.release(dst);
    }

    private void udp(IpOutput out, MemorySegment f, long off, int len, IpHeader h) {
        IpVersion v = out.ipVersion();
        Drop error = Udp.check(f, off, len, v, h, checksumTrusted);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        UdpDatagram d = Udp.read(f, off, udpDatagram);
        int src = source(h);
        if (d.destinationPort() == out.dhcpPort()) {
            d.addresses(v, src, AddressBook.NONE);
            services.dhcp(d, mac, clock.getAsLong());
        } else if (v.staysOnLink(h)) {
            counters.dropped(Drop.UNSUPPORTED); // multicast (mDNS, LLMNR...) stays on the link
        } else {
            int dst = destination(h);
            d.addresses(v, src, dst);
            transport.udp(d);
            addresses.release(dst);
        }
        addresses.release(src);
    }

    private void icmp(IpOutput out, MemorySegment f, long off, int len, IpHeader h) {
        IpVersion v = out.ipVersion();
        Drop error = Icmp.check(f, off, len, v, h);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        int type = Icmp.type(f, off);
        if (type == v.echoRequest()) {
            echo(out, f, off, len, h);
        } else if (v == IpVersion.V6 && type >= Ndp.ROUTER_SOLICITATION && type <= Ndp.NEIGHBOR_ADVERTISEMENT + 1) {
            neighbours.ndp(type, f, off, len, h);
        } else {
            counters.dropped(Drop.UNSUPPORTED); // errors and replies from the guest, MLD reports
        }
    }

    private void echo(IpOutput out, MemorySegment f, long off, int len, IpHeader h) {
        if (out.ipVersion().staysOnLink(h)) {
            counters.dropped(Drop.UNSUPPORTED);
        } else if (out.answersFor(h.destinationHi(), h.destinationLo())) {
            out.sendEchoReply(f, off, len, h);
        } else {
            int src = source(h), dst = destination(h);
            IcmpEcho e = Icmp.readEcho(f, off, len, icmpEcho);
            e.addresses(out.ipVersion(), src, dst);
            transport.icmpEcho(e);
            addresses.release(src);
            addresses.release(dst);
        }
    }

    /**
     * Counts the drop, and answers with the ICMPv6 Parameter Problem h asks for where RFC 4443
     * section 2.4 allows one: not to a packet sent to a multicast address or in a link-layer
     * multicast frame (but for an option whose type says even then), not to one from the
     * unspecified address.
     */
    private void drop(IpOutput out, Drop reason, MemorySegment invoking, long ipOff, IpHeader h) {
        counters.dropped(reason);
        if (h.problemCode() < 0 || invoking == null || (h.sourceHi() | h.sourceLo()) == 0) return;
        boolean multicast = Ipv6.isMulticast(h.destinationHi()) || (Ethernet.destination(invoking, 0) & (1L << 40)) != 0;
        if (multicast && !h.problemEvenToMulticast()) return;
        if (errorAllowed()) out.sendParameterProblem(invoking, ipOff, h);
    }

    /** Whether the error bucket has a token left (taking it), refilled by the time passed since it was last. */
    private boolean errorAllowed() {
        long now = clock.getAsLong();
        if (errorsRefilled == Long.MIN_VALUE) errorsRefilled = now;
        long refill = (now - errorsRefilled) * ERRORS_PER_SECOND / 1_000_000_000L;
        if (refill > 0) {
            errorTokens = (int) Math.min(ERROR_BURST, errorTokens + refill);
            errorsRefilled += refill * 1_000_000_000L / ERRORS_PER_SECOND;
        }
        if (errorTokens == 0) return false;
        errorTokens--;
        return true;
    }

    private int source(IpHeader h) {
        return addresses.acquire(h.sourceHi(), h.sourceLo());
    }

    private int destination(IpHeader h) {
        return addresses.acquire(h.destinationHi(), h.destinationLo());
    }
}
