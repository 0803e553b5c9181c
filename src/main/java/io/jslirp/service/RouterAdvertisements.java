package io.jslirp.service;

import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Stack6;

/**
 * Unsolicited Router Advertisements to all nodes: one at start, then one every 200 s (libslirp
 * sends them every 200–600 s), within the router and DNS lifetimes they announce. A guest that
 * comes up later asks with a Router Solicitation, which the stack answers at once.
 */
public final class RouterAdvertisements {
    private static final long INTERVAL_NANOS = 200_000_000_000L;

    private final EventLoop loop;
    private final Stack6 stack;
    private final Timer timer = new Timer(this::advertise);

    public RouterAdvertisements(EventLoop loop, Stack6 stack) {
        this.loop = loop;
        this.stack = stack;
        loop.schedule(timer, EventLoop.now());
    }

    private void advertise() {
        stack.sendRouterAdvertisement();
        loop.schedule(timer, EventLoop.now() + INTERVAL_NANOS);
    }
}
