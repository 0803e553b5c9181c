package io.jslirp.service;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.ServiceOutput;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;

/**
 * The router's Router Advertisements (RFC 4861): the prefix to form addresses from (SLAAC), the
 * link's MTU and the DNS server (RDNSS, RFC 8106), the O flag saying the DNS server is also to be
 * had by stateless DHCPv6. Unsolicited to all nodes: one at start, then one every 200 s (libslirp
 * sends them every 200–600 s), within the router and DNS lifetimes they announce; a guest that
 * comes up later asks with a Router Solicitation, answered at once.
 */
public final class RouterAdvertisements {
    private static final long INTERVAL_NANOS = 200_000_000_000L;
    private static final int HOP_LIMIT = 64;
    /** libslirp's values: default router for 30 min, prefix valid 1 day, preferred 4 h, DNS server as long as the router. */
    private static final int ROUTER_LIFETIME = 1800, PREFIX_VALID = 86400, PREFIX_PREFERRED = 14400, DNS_LIFETIME = 1800;
    private static final long ALL_NODES_MAC = Ethernet.ipv6Multicast(Ipv6.ALL_NODES_LO);

    /** Where the periodic advertisements are timed, once started; null before (and in tests). */
    private Reactor loop;
    private final Timer timer = new Timer(this::tick);
    private final ServiceOutput out;
    private final Ndp.Advertisement advertisement;
    /** fe80::2 and ff02::1: handles held for the life of the service. */
    private final int router, allNodes;

    /** out: the stack's IPv6 output. Answers solicitations; unsolicited advertisements wait for {@link #start}. */
    public RouterAdvertisements(ServiceOutput out, Ipv6Network network) {
        this.out = out;
        AddressBook book = out.addresses();
        this.router = book.acquire(Ipv6Network.LINK_LOCAL_HI, Ipv6Network.ROUTER_LINK_LOCAL_LO);
        this.allNodes = book.acquire(Ipv6.ALL_NODES_HI, Ipv6.ALL_NODES_LO);
        this.advertisement = new Ndp.Advertisement().router(HOP_LIMIT, Ndp.RA_OTHER, ROUTER_LIFETIME)
                .link(network.gatewayMac(), network.mtu())
                .prefix(network.prefixHi(), Ipv6Network.PREFIX_LENGTH, PREFIX_VALID, PREFIX_PREFERRED)
                .dns(network.dnsHi(), network.dnsLo(), DNS_LIFETIME);
    }

    /** Sends an unsolicited advertisement now and then every {@code INTERVAL_NANOS}, timed by loop. */
    public void start(Reactor loop) {
        this.loop = loop;
        loop.schedule(timer, loop.clock().now());
    }

    private void tick() {
        advertise();
        loop.schedule(timer, loop.clock().now() + INTERVAL_NANOS);
    }

    /** An unsolicited Router Advertisement to all nodes. */
    public void advertise() {
        send(allNodes, ALL_NODES_MAC);
    }

    /** Answers a Router Solicitation from source, or from a host without an address yet ({@link AddressBook#NONE}): to all nodes. */
    public void solicited(int source) {
        if (source == AddressBook.NONE) advertise();
        else send(source, out.guestMac());
    }

    private void send(int destination, long mac) {
        Ndp.write(out.frame(), out.icmpOffset(), advertisement);
        out.sendIcmp(router, destination, Ndp.ROUTER_ADVERTISEMENT_LENGTH, Ndp.HOP_LIMIT, mac);
    }
}
