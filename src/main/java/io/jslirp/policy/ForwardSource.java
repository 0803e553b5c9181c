package io.jslirp.policy;

import io.jslirp.util.AddressBook;

/**
 * Where a forwarded port's host client appears to come from in the guest, for the guest address's
 * version: the gateway, or with {@code --preserve-source} the client's own address where the guest
 * can answer it (its replies go to its default route, the gateway, and so to jslirp). A client on
 * the host's loopback, of the virtual network, or an address that is no host's (link-local,
 * multicast...) still appears as the gateway, as with libslirp and pasta; so does a client of the
 * other IP version. A client at the host side of one of the plan's mappings appears from its
 * guest side (pasta: a client at the host's own address from --map-guest-addr's), and one on the
 * loopback from the address that stands for it (pasta's --map-host-loopback), when there is one.
 */
public final class ForwardSource {
    private final AddressBook addresses;
    private final AddressPlan plan;
    /** The gateway's handle, held by the caller for as long as this is used. */
    private final int gateway;
    private final boolean preserve;
    /** The guest sides of the plan's mappings, and the address standing for the loopback (or NONE): handles held for the life of this. */
    private final int[] mapped;
    private final int loopbackSide;

    public ForwardSource(AddressBook addresses, AddressPlan plan, int gateway, boolean preserve) {
        this.addresses = addresses;
        this.plan = plan;
        this.gateway = gateway;
        this.preserve = preserve;
        this.mapped = new int[plan.mappings().size()];
        for (int i = 0; i < mapped.length; i++) {
            HostAddress a = plan.mappings().get(i).guestSide();
            mapped[i] = addresses.acquire(a.hi(), a.lo());
        }
        this.loopbackSide = plan.gateway() == null || !plan.loopbackOpen() ? AddressBook.NONE
                : addresses.acquire(plan.gateway().hi(), plan.gateway().lo());
    }

    /** The address (a handle) the guest sees for a client at clientAddress (a handle of either version). */
    public int of(int clientAddress) {
        if (addresses.isIpv4(clientAddress) != plan.ipv4()) return gateway;
        long hi = addresses.hi(clientAddress), lo = addresses.lo(clientAddress);
        int m = plan.mappingFromHost(hi, lo);
        if (m >= 0) return mapped[m];
        AddressPlan.Kind kind = plan.kind(hi, lo);
        if (kind == AddressPlan.Kind.LOOPBACK && loopbackSide != AddressBook.NONE) return loopbackSide;
        if (!preserve) return gateway;
        return kind == AddressPlan.Kind.HOST ? clientAddress : gateway;
    }
}
