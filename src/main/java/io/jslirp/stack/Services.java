package io.jslirp.stack;

import io.jslirp.wire.UdpDatagram;

/**
 * What the gateway itself answers above the IP layer, on the link: DHCPv4, DHCPv6 and Router
 * Advertisements. The stack hands them their messages (checked: lengths and checksums) before
 * anything reaches the {@link Transport}; the {@code service} package implements this and answers
 * through a {@link ServiceOutput}; the engine wires the two. Addresses are handles, held for the call.
 */
public interface Services {
    /**
     * A DHCP message: the payload of datagram (UDP to DHCPv4's port 67, DHCPv6's 547; no
     * destination handle held), in a frame from the Ethernet address mac, at time now (the stack's clock).
     */
    void dhcp(UdpDatagram datagram, long mac, long now);

    /** A valid Router Solicitation, from source or (a host without an address yet) from {@link io.jslirp.util.AddressBook#NONE}. */
    void routerSolicitation(int source);

    /** A frame came from the IPv4 address (host order): whatever leased it may take it as in use. */
    void ipv4SourceSeen(int address);

    /** No services: their messages are dropped. */
    Services NONE = new Services() {
        @Override
        public void dhcp(UdpDatagram datagram, long mac, long now) {
        }

        @Override
        public void routerSolicitation(int source) {
        }

        @Override
        public void ipv4SourceSeen(int address) {
        }
    };
}
