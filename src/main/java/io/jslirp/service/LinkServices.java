package io.jslirp.service;

import io.jslirp.stack.Services;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.UdpDatagram;


/**
 * The gateway's services on the link, as the stack hands them their messages: DHCPv4, and with
 * IPv6 stateless DHCPv6 and Router Advertisements.
 */
public final class LinkServices implements Services {
    private final DhcpServer dhcp;
    /** Null without IPv6. */
    private final Dhcpv6Server dhcp6;
    private final RouterAdvertisements advertisements;

    public LinkServices(DhcpServer dhcp, Dhcpv6Server dhcp6, RouterAdvertisements advertisements) {
        this.dhcp = dhcp;
        this.dhcp6 = dhcp6;
        this.advertisements = advertisements;
    }

    @Override
    public void dhcp(UdpDatagram d, long mac, long now) {
        if (d.version() == IpVersion.V4) dhcp.handle(d.frame(), d.payloadOffset(), d.payloadLength(), now);
        else if (dhcp6 != null) dhcp6.handle(d.frame(), d.payloadOffset(), d.payloadLength(), d.source(), d.sourcePort());
    }

    @Override
    public void routerSolicitation(int source) {
        if (advertisements != null) advertisements.solicited(source);
    }

    @Override
    public void ipv4SourceSeen(int address) {
        dhcp.seen(address);
    }
}
