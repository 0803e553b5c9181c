package io.jslirp.service;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.ServiceOutput;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Drop;

import java.lang.foreign.MemorySegment;

/**
 * Stateless DHCPv6 of the router (RFC 8415 section 18.4.6): an Information-Request gets the DNS
 * server, from the router's link-local address fe80::2. No addresses are leased: the guest takes
 * SLAAC's (the Router Advertisement's O flag points it here for the DNS server only).
 */
public final class Dhcpv6Server {
    private final ServiceOutput out;
    private final Ipv6Network network;
    /** fe80::2's handle, held for the life of the server. */
    private final int router;
    private final Dhcpv6.Reply reply = new Dhcpv6.Reply();

    /** out: the stack's IPv6 output. */
    public Dhcpv6Server(ServiceOutput out, Ipv6Network network) {
        this.out = out;
        this.network = network;
        this.router = out.addresses().acquire(Ipv6Network.LINK_LOCAL_HI, Ipv6Network.ROUTER_LINK_LOCAL_LO);
    }

    /** A client's message of len bytes at off, from source:sourcePort (a handle held for the call). */
    public void handle(MemorySegment f, long off, int len, int source, int sourcePort) {
        Drop error = Dhcpv6.check(f, off, len);
        if (error == null && Dhcpv6.messageType(f, off) != Dhcpv6.INFORMATION_REQUEST) error = Drop.UNSUPPORTED;
        if (error != null) {
            out.counters().dropped(error);
            return;
        }
        reply.transaction(Dhcpv6.transactionId(f, off)).clientId(f, Dhcpv6.findOption(f, off, len, Dhcpv6.OPT_CLIENT_ID))
                .server(network.gatewayMac()).dns(network.dnsHi(), network.dnsLo());
        int length = Dhcpv6.write(out.frame(), out.udpPayloadOffset(), reply);
        out.sendUdp(router, Dhcpv6.SERVER_PORT, source, sourcePort, length);
    }
}
