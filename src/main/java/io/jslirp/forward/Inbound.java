package io.jslirp.forward;

/**
 * The one decision of where a forwarded port's new client goes, for TCP and UDP alike: a client on
 * the host's loopback goes into pasta's splice when splicing is on (a taker is installed: the
 * namespace's own sockets serve it, so its bytes never cross the guest's link); every other client
 * goes to the guest through the link, over the IP version {@link GuestRoutes} chooses.
 */
final class Inbound {
    private Inbound() {}

    /** Whether the client (address hi, lo, port) goes to taker (non-null when splicing is on) rather than to the guest. */
    static boolean spliced(Object taker, long[] client) {
        return taker != null && LoopbackClients.isLoopback(client[0], client[1]);
    }
}
