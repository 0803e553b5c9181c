package io.jslirp.nat;

import java.util.function.IntPredicate;

/**
 * The ports forwarded connections come from when the guest sees them from the gateway: the
 * gateway's ephemeral range (32768–60999), handed out in turn so that a port just freed is the
 * last to come back.
 */
public final class GatewayPorts {
    private static final int FIRST = 32768, LAST = 60999;
    private int next = FIRST;

    /** The next port in turn that free accepts, or -1 when it accepts none. */
    public int take(IntPredicate free) {
        for (int i = 0; i <= LAST - FIRST; i++) {
            int port = next;
            next = port == LAST ? FIRST : port + 1;
            if (free.test(port)) return port;
        }
        return -1;
    }
}
