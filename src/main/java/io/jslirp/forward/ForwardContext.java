package io.jslirp.forward;

import io.jslirp.loop.Reactor;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;

/**
 * What every forwarded port of one instance shares: its loop, the host's sockets, the address
 * handles clients are named by, and which IP version a client reaches the guest by.
 */
public record ForwardContext(Reactor loop, HostSockets sockets, AddressBook addresses, GuestRoutes routes) {}
