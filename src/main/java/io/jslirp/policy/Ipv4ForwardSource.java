package io.jslirp.policy;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.util.AddressBook;

/**
 * IPv4's {@link ForwardSource}: the gateway, or with
 * {@code --preserve-source} the client's own address where the guest can answer it (its replies go
 * to its default route, the gateway, and so to jslirp). A client on the host's loopback, or with
 * an address the guest would take for its own network, still appears as the gateway, as with
 * libslirp and pasta.
 */
public final class Ipv4ForwardSource implements ForwardSource {
    private final NetworkConfig config;
    private final AddressBook addresses;
    /** The gateway's handle, held by the caller for as long as this is used. */
    private final int gateway;
    private final boolean preserve;

    public Ipv4ForwardSource(NetworkConfig config, AddressBook addresses, int gateway, boolean preserve) {
        this.config = config;
        this.addresses = addresses;
        this.gateway = gateway;
        this.preserve = preserve;
    }

    @Override
    public int of(int clientAddress) {
        if (!addresses.isIpv4(clientAddress)) return gateway; // an IPv6 client reaching the guest over IPv4
        int client = addresses.ipv4(clientAddress);
        int first = client >>> 24;
        boolean answerable = first != 127 && first != 0 && (client >>> 28) < 0xe && !config.inNetwork(client);
        return preserve && answerable ? clientAddress : gateway;
    }
}
