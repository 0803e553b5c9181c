package io.jslirp.tcp;

/**
 * The addresses and ports of a connection's guest and of the remote we play: IPv4 addresses in
 * host order, or for IPv6 the handles of an {@link io.jslirp.util.AddressBook}.
 */
public record FlowAddresses(int guestAddress, int guestPort, int remoteAddress, int remotePort) {
}
