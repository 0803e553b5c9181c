package io.jslirp.api;

import io.jslirp.flow.FlowStatus;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;

import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/** What the API socket acts on: the forwarded ports, the figures and the flows of one running instance. */
public interface ApiTarget {
    /** Opens a forwarded port; throws IllegalArgumentException when the host port cannot be bound. */
    HostForward open(PortForward forward);

    /** Closes a forwarded port (connections already made carry on). */
    void close(HostForward forward);

    /** The address a forward without a guest address goes to (IPv4, host order). */
    int guestAddress();

    /** Every counter and flow count, by name. */
    void figures(ObjLongConsumer<String> sink);

    /** A snapshot of every open flow. */
    void flows(Consumer<FlowStatus> sink);
}
