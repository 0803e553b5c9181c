package io.jslirp.policy;

import io.jslirp.stack.Ipv6Network;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Ipv6;

/**
 * IPv6's {@link ForwardSource}: the gateway fd00::2, or with {@code --preserve-source} the
 * client's address where the guest's answer, sent to its default route, comes back to jslirp:
 * not the host's ::1, not link-local, multicast, unspecified, IPv4-mapped or in the guest's own
 * prefix.
 */
public final class Ipv6ForwardSource implements ForwardSource {
    private final Ipv6Network net;
    private final AddressBook addresses;
    private final int gateway;
    private final boolean preserve;

    /** gateway: the gateway's handle, held by the caller for as long as this is used. */
    public Ipv6ForwardSource(Ipv6Network net, AddressBook addresses, int gateway, boolean preserve) {
        this.net = net;
        this.addresses = addresses;
        this.gateway = gateway;
        this.preserve = preserve;
    }

    @Override
    public int of(int clientAddress) {
        return preserve && answerable(addresses.hi(clientAddress), addresses.lo(clientAddress)) ? clientAddress : gateway;
    }

    private boolean answerable(long hi, long lo) {
        boolean special = hi == 0 && (lo == 0 || lo == 1 || (lo >>> 32) == 0xffffL); // unspecified, ::1, IPv4-mapped
        return !special && !Ipv6.isLinkLocal(hi) && !Ipv6.isMulticast(hi) && !net.inPrefix(hi);
    }
}
