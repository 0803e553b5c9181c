package io.jslirp.stack;

/**
 * What the gateway's own services ({@link Services}) send through, beyond {@link GuestOutput}:
 * messages to a given Ethernet address (a DHCP client's MAC, all nodes) and with a given hop limit
 * (Neighbor Discovery's 255), and what a DHCP lease tells the stack.
 */
public interface ServiceOutput extends GuestOutput {
    /** As {@link #sendUdp(int, int, int, int, int)}, in a frame to the Ethernet address mac. */
    void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength, long mac);

    /** As {@link #sendIcmp(int, int, int)}, with hop limit (TTL) ttl, in a frame to the Ethernet address mac. */
    void sendIcmp(int source, int destination, int length, int ttl, long mac);

    /** The guest's MAC, as learnt (or the version's broadcast address while none is). */
    long guestMac();

    /** The gateway's own MAC. */
    long gatewayMac();

    /** The guest was given address (DHCP): it is the guest's address of this version until the guest sends from another. */
    void assignGuestAddress(int address);
}
