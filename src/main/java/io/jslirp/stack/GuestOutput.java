package io.jslirp.stack;

import io.jslirp.tcp.TcpOutput;
import io.jslirp.util.AddressBook;

/**
 * What the layers above send the guest through, for one IP version: TCP segments
 * ({@link TcpOutput}), UDP datagrams, ICMP messages. Addresses are handles of the engine's
 * {@link AddressBook}, shared by both versions; a payload is written into {@link #frame()} at the
 * version's offset before the call, which adds the headers. Both versions are views of one output
 * ({@link Stack#ipv4()}, {@link Stack#ipv6()}) and differ in their headers only; a datagram larger
 * than the MTU goes in fragments, over either version.
 */
public interface GuestOutput extends TcpOutput {
    /** 4 or 6. */
    int version();

    Counters counters();

    AddressBook addresses();

    /** The gateway's address (a handle held by the output), which forwarded flows come from. */
    int gateway();

    /** The DNS address (a handle held by the output). */
    int dns();

    /**
     * The guest's address of this version (a handle held by the output): the latest it sent
     * from; for IPv4 else the configured one, for IPv6 else {@link AddressBook#NONE}.
     */
    int guestAddress();

    /**
     * Whether frames to guest can be addressed now: the guest's MAC is known. When not, asks for
     * it (ARP, which the guest answers); until then frames would go nowhere.
     */
    boolean resolveGuestMac(int guest);

    /** The link's MTU: the most an IP packet of this version carries without fragments. */
    int mtu();

    /**
     * The frames sent and not yet written out by the link, the owner of their payloads until its
     * flush (one for both versions): what memory handed over as a payload waits for before it is used again.
     */
    TxBatch transmitBatch();

    /** Where a UDP payload goes in {@link #frame()}. */
    int udpPayloadOffset();

    /** The largest UDP payload {@link #sendUdp} takes. */
    int maxUdpPayload();

    /** Sends the UDP payload of payloadLength bytes at {@link #udpPayloadOffset()}; larger than the MTU, in fragments. */
    void sendUdp(int source, int sourcePort, int destination, int destinationPort, int payloadLength);

    /** The largest UDP payload that reaches the guest in one frame of the MTU (no fragments). */
    default int unfragmentedUdpPayload() {
        return maxUdpPayload();
    }

    /** Whether {@link #sendUdpSegments} may be tried. */
    default boolean offloadsUdp() {
        return false;
    }

    /**
     * Sends payloadLength bytes at {@link #udpPayloadOffset()} as datagrams of segmentSize bytes
     * (the last may be shorter; segmentSize at most {@link #unfragmentedUdpPayload()}), in one frame
     * the link cuts. False when nothing was sent: send them one by one.
     */
    default boolean sendUdpSegments(int source, int sourcePort, int destination, int destinationPort, int payloadLength, int segmentSize) {
        return false;
    }

    /** Where an ICMP message (its header first) goes in {@link #frame()}. */
    int icmpOffset();

    /** Sends the ICMP (ICMPv6) message of length bytes at {@link #icmpOffset()}, filling its checksum. */
    void sendIcmp(int source, int destination, int length);

    /**
     * Tells the guest, from the gateway, that its packet of protocol to remote could not be
     * delivered: a destination unreachable with the ICMPv4 code icmp4Code (IPv6 sends its
     * equivalent), quoting the rebuilt IP header and transportHead, the first 8 bytes of the
     * transport header, which is what the guest's kernel matches the error to its socket by.
     */
    void sendUnreachable(int icmp4Code, int protocol, int guest, int remote, long transportHead);
}
