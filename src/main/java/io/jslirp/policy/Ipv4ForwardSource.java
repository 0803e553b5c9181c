package io.jslirp.policy;

import io.jslirp.stack.NetworkConfig;

/**
 * IPv4's {@link ForwardSource}: the gateway, or with
 * {@code --preserve-source} the client's own address where the guest can answer it (its replies go
 * to its default route, the gateway, and so to jslirp). A client on the host's loopback, or with
 * an address the guest would take for its own network, still appears as the gateway, as with
 * libslirp and pasta.
 */
public final class Ipv4ForwardSource implements ForwardSource {
    private final NetworkConfig config;
    private final boolean preserve;

    public Ipv4ForwardSource(NetworkConfig config, boolean preserve) {
        this.config = config;
        this.preserve = preserve;
    }

    @Override
    public int of(int clientAddress) {
        int first = clientAddress >>> 24;
        boolean answerable = first != 127 && first != 0 && (clientAddress >>> 28) < 0xe && !config.inNetwork(clientAddress);
        return preserve && answerable ? clientAddress : config.gateway();
    }
}
