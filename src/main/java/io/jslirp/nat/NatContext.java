package io.jslirp.nat;

import io.jslirp.flow.Flows;
import io.jslirp.loop.Reactor;
import io.jslirp.stack.Counters;
import io.jslirp.sys.HostSockets;

/**
 * What the NATs of one instance (TCP, UDP, ping) and its forwarded UDP clients share: the loop,
 * the one table of flows, the host's sockets, the counters, the flow limits (for both IP versions
 * together) and how long a datagram flow may stay idle.
 */
public record NatContext(Reactor loop, Flows flows, HostSockets sockets, Counters counters, Limits limits, long idleTimeoutNanos) {}
