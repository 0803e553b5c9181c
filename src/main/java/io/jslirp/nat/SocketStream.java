package io.jslirp.nat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.HostStream;

import java.lang.foreign.MemorySegment;

/**
 * A host socket's receive queue as the {@link HostStream} of its connection: bytes are peeked
 * (MSG_PEEK from the socket's peek offset, SO_PEEK_OFF) into the windows that all flows of a NAT
 * share ({@link PeekArea}), so they stay in the kernel until the guest acknowledges them;
 * acknowledged bytes leave the queue at the flow's flush ({@link #drop}), one call per loop
 * iteration however many ACKs came. A kernel without SO_PEEK_OFF for TCP (before Linux 6.9) gets
 * each peek from the queue's front, the bytes before it copied to a skip area and thrown away, as
 * passt does there.
 */
final class SocketStream implements HostStream {
    private final HostSockets sockets;
    private final PeekArea area;
    private int fd = -1;
    /** Acknowledged bytes still at the queue's front (dropped at the flush). */
    private int acknowledged;
    /** Where the socket's peek offset stands, from the queue's front, as it was last set and moved; -1 before it is set. */
    private int peekOffset = -1;
    /** Where the latest peek went. */
    private MemorySegment window;

    SocketStream(HostSockets sockets, PeekArea area) {
        this.sockets = sockets;
        this.area = area;
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
        length = Math.min(length, MAX_PEEK);
        if (at != peekOffset && area.peekOffsets) {
            int r = sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_PEEK_OFF, at);
            if (r == -Errno.EINVAL || r == -Errno.EOPNOTSUPP || r == -Errno.ENOPROTOOPT) area.peekOffsets = false;
            else if (r < 0) return FAILED;
            else peekOffset = at;
        }
        int n;
        window = area.nextWindow();
        if (area.peekOffsets) {
            n = sockets.peek(fd, window, 0, length);
            if (n > 0) peekOffset += n;
        } else {
            if (at > PeekArea.MAX_SKIP) return 0; // beyond what can be skipped: the guest's ACKs bring it closer
            n = sockets.peekPast(fd, area.skip(at), at, window, 0, length);
            if (n == -1) return END; // nothing queued and the stream ended
            if (n == 0) return 0;    // no byte after skip now (its end shows as EPOLLRDHUP)
        }
        if (n > 0) return n;
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
