package io.jslirp.policy;

import io.jslirp.util.AddressBook;

/**
 * Where a forwarded port's host client appears to come from in the guest, for the guest address's
 * version: the gateway, or with {@code --preserve-source} the client's own address where the guest
 * can answer it (its replies go to its default route, the gateway, and so to jslirp). A client on
 * the host's loopback, of the virtual network, or an address that is no host's (link-local,
 * multicast...) still appears as the gateway, as with libslirp and pasta; so does a client of the
 * other IP version.
 */
public final class ForwardSource {
    private final AddressBook addresses;
    private final AddressPlan plan;
    /** The gateway's handle, held by the caller for as long as this is used. */
    private final int gateway;
    private final boolean preserve;

    public ForwardSource(AddressBook addresses, AddressPlan plan, int gateway, boolean preserve) {
        this.addresses = addresses;
        this.plan = plan;
        this.gateway = gateway;
        this.preserve = preserve;
    }

    /** The address (a handle) the guest sees for a client at clientAddress (a handle of either version). */
    public int of(int clientAddress) {
        if (!preserve || addresses.isIpv4(clientAddress) != plan.ipv4()) return gateway;
        AddressPlan.Kind kind = plan.kind(addresses.hi(clientAddress), addresses.lo(clientAddress));
        return kind == AddressPlan.Kind.HOST ? clientAddress : gateway;
    }
}
