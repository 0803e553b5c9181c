package io.jslirp.tcp;

import io.jslirp.wire.TcpOptions;

/**
 * The guest's SYN (or SYN-ACK, to our SYN) a connection is made from: its sequence number, its
 * window (a SYN's is never scaled; only a SYN-ACK's is used, the guest's handshake ACK brings the
 * first otherwise) and its parsed options, read when the connection is made and not kept.
 */
public record GuestSyn(int isn, int window, TcpOptions options) {
}
