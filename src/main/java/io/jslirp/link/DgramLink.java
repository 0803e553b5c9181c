package io.jslirp.link;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixSocketFile;
import io.jslirp.util.Log;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * QEMU's datagram transport (-netdev dgram with unix addresses): one Ethernet frame per
 * datagram on a unix datagram socket bound to a path. Frames go back to the address the last
 * frame came from (QEMU's local path), so a restarted VM is served as soon as it sends, where
 * this process may still reach that path ({@link #awaitPeer}: an isolated instance connects to
 * the first VM before it loses the filesystem, and a later one only through what it kept).
 *
 * <p>A unix datagram socket takes only a few frames before its receiver reads them (the receiving
 * socket's queue is net.unix.max_dgram_qlen long, 10 by default, and the sender's buffer holds only a
 * few 64 KiB frames), so a burst toward the VM meets EAGAIN within a dozen frames. Frames the socket
 * does not take wait here, in order, as in {@link StreamLink}'s output buffer, and are sent when the
 * kernel says there is room again. Only a connected sender learns that (the kernel wakes the writer
 * of a full receiver only when it is that receiver's peer), so frames go out through a second socket
 * connected to the VM's address (QEMU's own socket is bound, not connected); the bound one stays
 * unconnected, so that any VM may send to it, a restarted one too. The loop polls one descriptor, an epoll instance of this link's own holding
 * the bound socket (readable) and, while frames wait, the sender (writable).
 */
public final class DgramLink implements Link {
    /** Frames waiting for the socket: 2 MiB, as {@link StreamLink}'s output buffer. */
    private static final int OUT_CAPACITY = 2 << 20;
    private static final int LENGTH_PREFIX = 4;
    /** Send buffer asked for (the kernel caps it at net.core.wmem_max). */
    private static final int SOCKET_BUFFER = 4 << 20;

    private final Epoll poller = new Epoll(4);
    private final int fd;
    private final UnixSocketFile file;
    private final MemorySegment from = Arena.ofAuto().allocate(Sockets.SOCKADDR_UN_MAX, 8);
    private final MemorySegment peer = Arena.ofAuto().allocate(Sockets.SOCKADDR_UN_MAX, 8);
    private final MemorySegment out = Arena.ofAuto().allocate(OUT_CAPACITY, 64);
    private final int[] fromLength = new int[1];
    private int peerLength;
    /** Where frames go from: a socket of ours connected to peer, fd itself (see {@link #sendFromBound}), or -1 (no peer yet, or it went away). */
    private int sender = -1;
    private int outStart, outEnd;
    /** Whether the poller holds the sender, watching it for room (while frames wait, only then: it would report an error at any time). */
    private boolean watchingOut;
    /** Whether the log already says the peer cannot be reached (said once until one is reached). */
    private boolean warnedUnreachable;

    private DgramLink(int fd, UnixSocketFile file) {
        this.fd = fd;
        this.file = file;
        poller.add(fd, Epoll.IN);
    }

    /**
     * Binds a unix datagram socket at path (replacing only a stale socket file there: see
     * {@link UnixSocketFile}); IllegalArgumentException naming the path as role when it cannot.
     */
    public static DgramLink bindUnix(String path, String role) {
        int fd = Sockets.unixDgram();
        return new DgramLink(fd, UnixSocketFile.bind(fd, path, role, false));
    }

    /** As {@link #bindUnix(String, String)}, the path named "the VM's socket" in messages. */
    public static DgramLink bindUnix(String path) {
        return bindUnix(path, "the VM's socket");
    }

    @Override
    public int fd(int queue) {
        return poller.fd();
    }

    @Override
    public int receive(int queue, MemorySegment buffer) {
        if (outEnd > outStart) flush(); // the poller may have woken for room to send
        int n = Sockets.recvFrom(fd, buffer, 0, (int) buffer.byteSize(), from, fromLength);
        if (n < 0) return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : -1;
        if (fromLength[0] > 2 && (sender < 0 || fromLength[0] != peerLength
                || from.asSlice(0, peerLength).mismatch(peer.asSlice(0, peerLength)) >= 0)) {
            changePeer(); // a new VM, or the one that went away is back (at the same path)
        }
        return n;
    }

    /**
     * Waits until a frame is queued, or stopFd (when not negative) is readable, and takes the
     * frame's sender as the peer, connecting to it, without reading the frame: so that an instance
     * that is about to lose the filesystem (isolation) already holds its way to the VM. Returns the
     * sender's socket path, or null (stopFd first, or an unnamed or abstract sender).
     */
    public String awaitPeer(int stopFd) {
        try (Epoll wait = new Epoll(2)) {
            wait.add(fd, Epoll.IN);
            if (stopFd >= 0) wait.add(stopFd, Epoll.IN);
            int n;
            do {
                n = wait.wait(-1);
                if (n < 0) return null;
            } while (n == 0);
            for (int i = 0; i < n; i++) if (wait.readyFd(i) != fd) return null;
        }
        int r = Sockets.recvFrom(fd, from, 0, 0, Sockets.MSG_PEEK | Sockets.MSG_DONTWAIT, from, fromLength);
        if (r < 0 || fromLength[0] <= 2) return null;
        changePeer();
        return peerPath();
    }

    /** The peer's socket path, or null (an unnamed or abstract address: no file). */
    private String peerPath() {
        if (peerLength <= 2 || peer.get(ValueLayout.JAVA_BYTE, 2) == 0) return null;
        byte[] path = new byte[peerLength - 2];
        MemorySegment.copy(peer, ValueLayout.JAVA_BYTE, 2, path, 0, path.length);
        int end = 0;
        while (end < path.length && path[end] != 0) end++;
        return new String(path, 0, end, StandardCharsets.UTF_8);
    }

    /** The last frame came from another address than the peer's, or from the one that had gone: frames go there from now on. */
    private void changePeer() {
        MemorySegment.copy(from, 0, peer, 0, fromLength[0]);
        peerLength = fromLength[0];
        disconnect(); // frames still waiting were for the VM that was there before
        int s = Sockets.unixDgram();
        if (s < 0) {
            Log.warn("cannot create a unix datagram socket toward the VM: " + Errno.describe(-s));
            return;
        }
        Sockets.setInt(s, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, SOCKET_BUFFER);
        int r = Sockets.connectTo(s, peer, peerLength);
        if (r == -Errno.EPERM) { // the peer's socket is connected to ours
            Libc.close(s);
            sender = fd;
            return;
        }
        if (r < 0) {
            if ((r == -Errno.EACCES || r == -Errno.ENOENT) && !warnedUnreachable) {
                warnedUnreachable = true; // until a peer is reached again: a VM sends many frames
                Log.warn("cannot reach the VM's socket " + peerPath() + ": " + Errno.describe(-r)
                        + (r == -Errno.EACCES ? " (the user this instance runs as may not write to it or reach its directory)" : " (not where this instance can see it)")
                        + "; frames to it are dropped until it can be reached");
            }
            Log.debug(() -> "cannot connect to the datagram peer: " + Errno.describe(-r));
            Libc.close(s);
            return;
        }
        sender = s;
        warnedUnreachable = false;
        Log.debug(() -> "datagram peer changed");
    }

    /**
     * A peer whose socket is connected to ours takes datagrams from ours only (EPERM for any other, at connect or send):
     * frames then go from the bound socket, addressed to it. Its queue then has no length limit for
     * us, only our send buffer, whose room the bound socket's poll reports.
     */
    private void sendFromBound() {
        if (watchingOut) poller.remove(sender);
        watchingOut = false;
        Libc.close(sender);
        sender = fd;
        Log.debug(() -> "datagram peer is connected to us: sending from the bound socket");
    }

    /** Stops sending to the peer (it went away, or another took its place): waiting frames go. */
    private void disconnect() {
        outStart = outEnd = 0;
        if (sender < 0) return;
        watch(false);
        if (sender != fd) Libc.close(sender);
        sender = -1;
    }

    /** Whether the poller also wakes the loop for room to send (while frames wait, only then). */
    private void watch(boolean room) {
        if (room == watchingOut) return;
        watchingOut = room;
        if (sender == fd) poller.modify(fd, room ? Epoll.IN | Epoll.OUT : Epoll.IN);
        else if (room) poller.add(sender, Epoll.OUT);
        else poller.remove(sender);
    }

    /** One datagram to the peer: its length, or -errno. */
    private int sendOne(MemorySegment frame, long offset, int length) {
        while (true) {
            int n = sender == fd
                    ? Sockets.sendTo(fd, frame, offset, length, peer, peerLength)
                    : Sockets.send(sender, frame, offset, length, 0);
            if (n != -Errno.EPERM || sender == fd) return n;
            sendFromBound();
        }
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        if (sender < 0) return false; // nobody has sent from a bound address yet (or it went away)
        if (outEnd == outStart) {
            int n = sendOne(frame, 0, length);
            if (n == length) return true;
            if (n != -Errno.EAGAIN && n != -Errno.EINTR) return failed(n);
        }
        if (!hold(frame, length)) return false; // the VM is not reading: dropped, as by a full tap queue
        watch(true);
        return true;
    }

    /** Keeps the frame until the socket has room; false when the buffer is full. */
    private boolean hold(MemorySegment frame, int length) {
        if (OUT_CAPACITY - outEnd < LENGTH_PREFIX + length) {
            if (outStart > 0) {
                MemorySegment.copy(out, outStart, out, 0, outEnd - outStart);
                outEnd -= outStart;
                outStart = 0;
            }
            if (OUT_CAPACITY - outEnd < LENGTH_PREFIX + length) return false;
        }
        out.set(ValueLayout.JAVA_INT_UNALIGNED, outEnd, length);
        MemorySegment.copy(frame, 0, out, outEnd + LENGTH_PREFIX, length);
        outEnd += LENGTH_PREFIX + length;
        return true;
    }

    /**
     * A send failed with -errno n: a frame too large for the socket's buffer is dropped alone; the
     * peer gone (ECONNREFUSED: its socket closed) takes the waiting frames with it. Always false.
     */
    private boolean failed(int n) {
        if (n == -Errno.EMSGSIZE || n == -Errno.ENOBUFS || n >= 0) return false;
        Log.debug(() -> "datagram peer gone: " + Errno.describe(-n));
        disconnect();
        return false;
    }

    /** Sends the frames that wait, as far as the socket takes them. */
    @Override
    public void flush() {
        while (sender >= 0 && outEnd > outStart) {
            int length = out.get(ValueLayout.JAVA_INT_UNALIGNED, outStart);
            int n = sendOne(out, outStart + LENGTH_PREFIX, length);
            if (n == -Errno.EAGAIN || n == -Errno.EINTR) return; // the poller wakes the loop when there is room
            if (n != length) {
                failed(n);
                if (sender < 0) return;
            }
            outStart += LENGTH_PREFIX + length;
        }
        watch(false);
        outStart = outEnd = 0;
    }

    @Override
    public void close() {
        if (sender >= 0 && sender != fd) Libc.close(sender);
        Libc.close(fd);
        poller.close();
        file.release();
    }
}
