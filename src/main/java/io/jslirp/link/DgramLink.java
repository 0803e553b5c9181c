package io.jslirp.link;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * QEMU's datagram transport (-netdev dgram with unix addresses): one Ethernet frame per
 * datagram on a unix datagram socket bound to a path. Frames go back to the address the last
 * frame came from (QEMU's local path), so a restarted VM is served as soon as it sends.
 */
public final class DgramLink implements Link {
    private final int fd;
    private final String path;
    private final MemorySegment from = Arena.ofAuto().allocate(Sockets.SOCKADDR_UN_MAX, 8);
    private final MemorySegment peer = Arena.ofAuto().allocate(Sockets.SOCKADDR_UN_MAX, 8);
    private final int[] fromLength = new int[1];
    private int peerLength;

    private DgramLink(int fd, String path) {
        this.fd = fd;
        this.path = path;
    }

    /** Binds a unix datagram socket at path (replacing a stale socket file there). */
    public static DgramLink bindUnix(String path) {
        return new DgramLink(SocketFiles.bind(Sockets.unixDgram(), path), path);
    }

    @Override
    public int fd(int queue) {
        return fd;
    }

    @Override
    public int receive(int queue, MemorySegment buffer) {
        int n = Sockets.recvFrom(fd, buffer, 0, (int) buffer.byteSize(), from, fromLength);
        if (n < 0) return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : -1;
        if (fromLength[0] > 2 && (fromLength[0] != peerLength || from.asSlice(0, peerLength).mismatch(peer.asSlice(0, peerLength)) >= 0)) {
            MemorySegment.copy(from, 0, peer, 0, fromLength[0]);
            peerLength = fromLength[0];
            Log.debug(() -> "datagram peer changed");
        }
        return n;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        if (peerLength == 0) return false; // nobody has sent from a bound address yet
        int n = Sockets.sendTo(fd, frame, 0, length, peer, peerLength);
        return n == length;
    }

    @Override
    public void close() {
        Libc.close(fd);
        SocketFiles.remove(path);
    }
}
