package io.jslirp.nat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.HostStream;

import java.lang.foreign.MemorySegment;

/**
 * A host socket's receive queue as the {@link HostStream} of its connection: bytes are peeked
 * (MSG_PEEK from the socket's peek offset, SO_PEEK_OFF) into a window that all flows of a NAT
 * share, so they stay in the kernel until the guest acknowledges them; acknowledged bytes leave
 * the queue at the flow's flush ({@link #drop}), one call per loop iteration however many ACKs came.
 */
final class SocketStream implements HostStream {
    private final HostSockets sockets;
    /** The window peeks go to, shared by the NAT's flows: valid until the next peek of any of them. */
    private final MemorySegment window;
    private int fd = -1;
    /** Acknowledged bytes still at the queue's front (dropped at the flush). */
    private int acknowledged;
    /** Where the socket's peek offset stands, from the queue's front, as it was last set and moved; -1 before it is set. */
    private int peekOffset = -1;

    SocketStream(HostSockets sockets, MemorySegment window) {
        this.sockets = sockets;
        this.window = window;
    }

    /** The socket the stream reads from now (a connection to the DNS address moves on to another nameserver's). */
    void socket(int fd) {
        this.fd = fd;
        acknowledged = 0;
        peekOffset = -1;
    }

    @Override
    public int peek(int skip, int length) {
        if (fd < 0) return 0;
        int at = acknowledged + skip;
        if (at != peekOffset) {
            if (sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF, at) < 0) return FAILED;
            peekOffset = at;
        }
        int n = sockets.peek(fd, window, 0, Math.min(length, MAX_PEEK));
        if (n > 0) {
            peekOffset += n;
            return n;
        }
        if (n == 0) return END;
        return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : FAILED;
    }

    @Override
    public MemorySegment memory() {
        return window;
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public void acknowledged(int n) {
        acknowledged += n;
    }

    /** Acknowledged bytes not yet dropped from the socket (until the flush). */
    int pendingDrop() {
        return acknowledged;
    }

    /** Drops what the guest acknowledged from the socket. Returns the bytes dropped, or -errno. */
    int drop() {
        if (acknowledged == 0 || fd < 0) return 0;
        int n = sockets.discard(fd, acknowledged);
        if (n <= 0) return n == 0 || n == -Errno.EAGAIN ? 0 : n;
        acknowledged -= n;
        if (peekOffset >= 0) peekOffset = Math.max(peekOffset - n, 0); // as the kernel moves it back
        return n;
    }
}
