package io.jslirp.service;

import io.jslirp.stack.Services;
import io.jslirp.wire.IpVersion;

import java.lang.foreign.MemorySegment;

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
    public void dhcp(IpVersion version, MemorySegment frame, long offset, int length, int source, int sourcePort, long mac,
                     long now) {
        if (version == IpVersion.V4) dhcp.handle(frame, offset, length, now);
        else if (dhcp6 != null) dhcp6.handle(frame, offset, length, source, sourcePort);
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
