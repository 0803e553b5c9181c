package io.jslirp.nat;

/**
 * Where a new {@link TcpFlow}'s host side goes: its host socket fd (-1 for a connection to the
 * DNS address, whose sockets come one by one), the connect target address (a handle the owner
 * holds) and port, and for a forwarded port the host client (fd then connected to it already, at
 * port), else null.
 */
record HostPeer(int fd, int address, int port, String forwardClient) {}
