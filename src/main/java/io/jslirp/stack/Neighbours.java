package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The Ethernet neighbour layer of both versions: ARP for IPv4, Neighbor Solicitation and
 * Advertisement (NDP) for IPv6. Learns the guest's MAC (from any frame with a source address,
 * so a DHCP client flooding with made-up MACs redirects nothing) and its address of each version,
 * answers for the router's addresses, asks for the guest's MAC when it is not known yet, and
 * ignores the guest's claims of the router's addresses (counted as {@code arp_claims}: the gateway
 * has no neighbour table to poison, and it keeps answering as itself). With
 * {@link NetworkConfig#proxyNeighbours} (pasta's model) it answers for every unicast address but the
 * guest's own, so that the guest's traffic to any neighbour comes here.
 */
final class Neighbours {
    /** ff02::1, where a Neighbor Advertisement to a host without an address goes, and its MAC. */
    private static final long ALL_NODES_MAC = Ethernet.ipv6Multicast(Ipv6.ALL_NODES_LO);
    /** The solicited-node multicast prefix ff02::1:ff00:0/104 (RFC 4291 section 2.7.1). */
    private static final long SOLICITED_NODE_HI = 0xff02_0000_0000_0000L, SOLICITED_NODE_LO = 0x1_ff00_0000L;

    private final NetworkConfig config;
    /** Null without IPv6. */
    private final Ipv6Network network6;
    private final Output output;
    private final AddressBook addresses;
    private final Counters counters;
    private final MemorySegment arpTx = Arena.ofAuto().allocate(Ethernet.HEADER_LENGTH + Arp.LENGTH, 8);
    private Services services = Services.NONE;
    private IpOutput ipv4, ipv6;
    private long guestMac;
    private boolean macKnown;
    /** The guest's address of each version: a handle held here, NONE before one is known. */
    private int guest4 = AddressBook.NONE, guest6 = AddressBook.NONE;

    Neighbours(NetworkConfig config, Ipv6Network network6, Output output, AddressBook addresses, Counters counters) {
        this.config = config;
        this.network6 = network6;
        this.output = output;
        this.addresses = addresses;
        this.counters = counters;
    }

    void setOutputs(IpOutput ipv4, IpOutput ipv6) {
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
    }

    void setServices(Services services) {
        this.services = services;
    }

    /** The guest's MAC; while not known, the address its version reaches every host by (broadcast, all nodes). */
    long mac(IpOutput out) {
        if (macKnown) return guestMac;
        return out.ipVersion() == IpVersion.V4 ? Ethernet.BROADCAST : ALL_NODES_MAC;
    }

    /**
     * Whether frames to address can be addressed: the guest's MAC is known. When not, asks for it
     * (an ARP request, a Neighbor Solicitation), whose answer teaches it.
     */
    boolean resolve(IpOutput out, long hi, long lo) {
        if (macKnown) return true;
        if (out.ipVersion() == IpVersion.V4) {
            Ethernet.write(arpTx, 0, Ethernet.BROADCAST, config.gatewayMac(), Ethernet.TYPE_ARP);
            Arp.write(arpTx, Ethernet.HEADER_LENGTH, Arp.REQUEST, config.gatewayMac(), config.gateway());
            Arp.writeTarget(arpTx, Ethernet.HEADER_LENGTH, 0, (int) lo);
            output.sendFrame(arpTx, Ethernet.HEADER_LENGTH + Arp.LENGTH);
        } else {
            MemorySegment tx = out.frame();
            long l4 = out.icmpOffset();
            Ndp.writeNeighborSolicitation(tx, l4, hi, lo, config.gatewayMac());
            long dstLo = SOLICITED_NODE_LO | (lo & 0xff_ffffL);
            out.sendIcmp(out.addressed(Ipv6Network.LINK_LOCAL_HI, Ipv6Network.ROUTER_LINK_LOCAL_LO, SOLICITED_NODE_HI, dstLo),
                    Ndp.NEIGHBOR_SOLICITATION_LENGTH, Ndp.HOP_LIMIT, Ethernet.ipv6Multicast(dstLo));
        }
        return false;
    }

    /**
     * The guest's address of out's version (a handle held here): the latest known, else the
     * configured one (IPv4's always, IPv6's when fixed), else NONE.
     */
    int guestAddress(IpOutput out) {
        if (out.ipVersion() == IpVersion.V6) {
            if (guest6 == AddressBook.NONE && network6 != null && network6.fixedGuest()) {
                guest6 = addresses.acquire(network6.guestHi(), network6.guestLo());
            }
            return guest6;
        }
        if (guest4 == AddressBook.NONE) guest4 = addresses.acquire4(config.guest());
        return guest4;
    }

    /** The guest now is at hi:lo (its latest source, or what DHCP or SLAAC gave it). */
    void assign(IpOutput out, long hi, long lo) {
        int current = out.ipVersion() == IpVersion.V4 ? guest4 : guest6;
        if (current != AddressBook.NONE && addresses.hi(current) == hi && addresses.lo(current) == lo) return;
        int h = addresses.acquire(hi, lo);
        if (current != AddressBook.NONE) addresses.release(current);
        if (out.ipVersion() == IpVersion.V4) guest4 = h;
        else guest6 = h;
    }

    /** A packet h describes came in a frame from mac: a source with an address teaches the guest's MAC and address. */
    void heard(IpOutput out, IpHeader h, long mac) {
        long hi = h.sourceHi(), lo = h.sourceLo();
        if (out.ipVersion() == IpVersion.V4) {
            // A sender without an address (a DHCP client, or one flooding DHCP with made-up MACs)
            // is not yet where the guest's traffic goes.
            if (h.source4() == 0) return;
            services.ipv4SourceSeen(h.source4());
        } else if ((hi | lo) == 0) {
            return;
        }
        guestMac = mac;
        macKnown = true;
        if (out.isGuestAddress(hi, lo)) assign(out, hi, lo);
    }

    // ---- ARP ----

    void arp(MemorySegment f, long off, int len, long source) {
        Drop error = Arp.check(f, off, len);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        int sender = Arp.senderIp(f, off);
        if (ipv4.answersFor(0, Ipv4.mapped(sender))) {
            counters.dropped(Drop.ADDRESS_CLAIM); // a gratuitous ARP for the gateway's address, spoofing
            return;
        }
        services.ipv4SourceSeen(sender);
        int target = Arp.targetIp(f, off);
        if (Arp.operation(f, off) == Arp.REPLY && target == config.gateway()) {
            learnMac(source); // the answer to our request (resolve)
            return;
        }
        if (Arp.operation(f, off) != Arp.REQUEST || !answersArp(sender, target)) {
            return; // gratuitous ARP, replies, probes for other guests' addresses
        }
        learnMac(source);
        long mac = config.macOf(target);
        Ethernet.write(arpTx, 0, source, mac, Ethernet.TYPE_ARP);
        Arp.write(arpTx, Ethernet.HEADER_LENGTH, Arp.REPLY, mac, target);
        Arp.writeTarget(arpTx, Ethernet.HEADER_LENGTH, Arp.senderMac(f, off), sender);
        output.sendFrame(arpTx, Ethernet.HEADER_LENGTH + Arp.LENGTH);
    }

    /** Whether an ARP request from sender for target gets an answer: the router's addresses; proxying, any but the guest's. */
    private boolean answersArp(int sender, int target) {
        if (ipv4.answersFor(0, Ipv4.mapped(target))) return true;
        return config.proxyNeighbours() && target != 0 && target != sender && target != config.guest() && !isGuest(ipv4, 0, Ipv4.mapped(target))
                && (target >>> 28) != 0xe && target != -1;
    }

    /** Whether a Neighbor Solicitation for target (not from duplicate address detection) gets an answer. */
    private boolean answersNdp(long hi, long lo, boolean fromDad) {
        if (ipv6.answersFor(hi, lo)) return true;
        return config.proxyNeighbours() && !fromDad && !Ipv6.isMulticast(hi) && (hi | lo) != 0 && !isGuest(ipv6, hi, lo)
                && !(network6 != null && network6.fixedGuest() && hi == network6.guestHi() && lo == network6.guestLo());
    }

    private boolean isGuest(IpOutput out, long hi, long lo) {
        int g = out.ipVersion() == IpVersion.V4 ? guest4 : guest6;
        return g != AddressBook.NONE && addresses.hi(g) == hi && addresses.lo(g) == lo;
    }

    private void learnMac(long mac) {
        guestMac = mac;
        macKnown = true;
    }

    // ---- NDP ----

    /**
     * A Neighbor Discovery message (ICMPv6, checksum verified) of len bytes at off: solicitations
     * for the router's addresses are answered, advertisements claiming them are ignored, Router
     * Solicitations go to the services. Accepted only from the link itself: hop limit 255, code 0.
     */
    void ndp(int type, MemorySegment f, long off, int len, IpHeader h) {
        if (h.ttl() != Ndp.HOP_LIMIT || Icmp.code(f, off) != 0) {
            counters.dropped(Drop.BAD_FIELD);
            return;
        }
        switch (type) {
            case Ndp.NEIGHBOR_SOLICITATION -> neighborSolicitation(f, off, len, h);
            case Ndp.NEIGHBOR_ADVERTISEMENT -> neighborAdvertisement(f, off, len);
            case Ndp.ROUTER_SOLICITATION -> routerSolicitation(f, off, len, h);
            default -> counters.dropped(Drop.UNSUPPORTED); // redirects, the guest's own advertisements
        }
    }

    private void neighborSolicitation(MemorySegment f, long off, int len, IpHeader h) {
        Drop error = Ndp.check(f, off, len, Ndp.NEIGHBOR_LENGTH);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        long targetHi = Ndp.targetHi(f, off), targetLo = Ndp.targetLo(f, off);
        boolean fromDad = (h.sourceHi() | h.sourceLo()) == 0;
        if (fromDad && ipv6.isGuestAddress(targetHi, targetLo)) assign(ipv6, targetHi, targetLo); // what SLAAC is about to give it
        if (!answersNdp(targetHi, targetLo, fromDad)) return; // the guest's duplicate address detection, other neighbours
        long dstHi = fromDad ? Ipv6.ALL_NODES_HI : h.sourceHi(), dstLo = fromDad ? Ipv6.ALL_NODES_LO : h.sourceLo();
        int flags = Ndp.NA_ROUTER | Ndp.NA_OVERRIDE | (fromDad ? 0 : Ndp.NA_SOLICITED);
        Ndp.writeNeighborAdvertisement(ipv6.frame(), ipv6.icmpOffset(), flags, targetHi, targetLo, config.gatewayMac());
        ipv6.sendIcmp(ipv6.addressed(targetHi, targetLo, dstHi, dstLo), Ndp.NEIGHBOR_ADVERTISEMENT_LENGTH, Ndp.HOP_LIMIT,
                fromDad ? ALL_NODES_MAC : mac(ipv6));
    }

    private void neighborAdvertisement(MemorySegment f, long off, int len) {
        Drop error = Ndp.check(f, off, len, Ndp.NEIGHBOR_LENGTH);
        if (error == null && ipv6.answersFor(Ndp.targetHi(f, off), Ndp.targetLo(f, off))) error = Drop.ADDRESS_CLAIM;
        counters.dropped(error != null ? error : Drop.UNSUPPORTED); // the guest's own: its MAC is learnt already
    }

    private void routerSolicitation(MemorySegment f, long off, int len, IpHeader h) {
        Drop error = Ndp.check(f, off, len, Ndp.ROUTER_SOLICITATION_LENGTH);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        if ((h.sourceHi() | h.sourceLo()) == 0) {
            services.routerSolicitation(AddressBook.NONE);
            return;
        }
        int source = addresses.acquire(h.sourceHi(), h.sourceLo());
        services.routerSolicitation(source);
        addresses.release(source);
    }
}
