package io.jslirp.forward;

/**
 * Takes the clients of forwarded TCP ports that come from the host's loopback (127.0.0.0/8, ::1),
 * in place of the path through the guest's link: pasta splices them straight into the namespace.
 */
@FunctionalInterface
public interface LoopbackClients {
    /**
     * A loopback client of a forward: its descriptor, its address (hi, lo, port; IPv4 mapped) and
     * the guest port it is for. True: taken (the descriptor is now the taker's); false: it cannot
     * be taken now (no descriptors left to splice it), and goes through the guest's link instead.
     */
    boolean take(int fd, long[] client, int guestPort);

    /** Whether hi:lo is a loopback address: 127.0.0.0/8 (IPv4 mapped) or ::1. */
    static boolean isLoopback(long hi, long lo) {
        if (hi == 0 && (lo >>> 32) == 0xffff) return ((lo >>> 24) & 0xff) == 127;
        return hi == 0 && lo == 1;
    }
}
