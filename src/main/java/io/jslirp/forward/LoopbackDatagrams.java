package io.jslirp.forward;

import io.jslirp.sys.HostSockets;

import java.lang.foreign.MemorySegment;

/**
 * Takes the datagrams of forwarded UDP ports that come from the host's loopback, in place of the
 * path through the guest's link: pasta splices them straight into the namespace. One
 * {@link Receiver} per forwarded socket, which answers its clients from that socket.
 */
@FunctionalInterface
public interface LoopbackDatagrams {
    /** The loopback clients of one forwarded socket. */
    interface Receiver extends AutoCloseable {
        /** A datagram (len bytes at off, lent for the call) from client (hi, lo, port). */
        void take(MemorySegment buf, long off, int len, long[] client);

        @Override
        void close();
    }

    /** The receiver of the forwarded socket fd (of sockets; IPv6 or IPv4) whose datagrams go to guestPort. */
    Receiver open(HostSockets sockets, int fd, boolean ipv6, int guestPort);
}
