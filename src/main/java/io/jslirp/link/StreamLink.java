package io.jslirp.link;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.Log;
import io.jslirp.wire.QemuStream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * QEMU's stream transport (-netdev stream, and -netdev socket over TCP): Ethernet frames over a
 * stream socket, each after its length as 4 bytes big-endian. Reads and writes may stop anywhere
 * in a frame; partial frames wait in buffers here.
 *
 * <p>With a listening socket, one peer is served at a time: when it goes away (the VM stops or
 * restarts) the next connection is taken, and a new connection replaces the current one. With a
 * single connected socket (a descriptor handed over), the link ends when the peer does.
 *
 * <p>The loop polls one descriptor, an epoll instance of this link's own holding the listener
 * and the connection, so the peer can change without the loop knowing. Frames toward the peer
 * are gathered and written once per loop iteration ({@link #flush}); a frame whose payload is
 * large ({@link #DIRECT_PAYLOAD}) is written at once, its payload from where it waits.
 */
public final class StreamLink implements Link {
    /** Largest frame either way: an Ethernet header and a 64 KiB IP datagram (MTU 65520 fits). */
    static final int MAX_FRAME = 14 + 65535;
    private static final int LENGTH_PREFIX = QemuStream.PREFIX_LENGTH;
    private static final int IN_CAPACITY = 4 * (LENGTH_PREFIX + MAX_FRAME);
    private static final int OUT_CAPACITY = 2 << 20;
    /** Socket buffers asked for (the kernel caps them at its maximum). */
    private static final int SOCKET_BUFFER = 4 << 20;
    /**
     * A payload this large goes to the socket from where it waits (the host's data in the peek
     * window), behind its prefix and headers, in one writev of its own: the copy into the output
     * buffer was the stack's one copy of a VM's download at MTU 65520 that passt does not make (64
     * KiB for each frame; a write per frame costs less). Smaller frames are gathered, one write an
     * iteration for many. What the socket does not take of it waits in the output buffer.
     */
    static final int DIRECT_PAYLOAD = 16 << 10;
    /** The prefix and headers of a frame written directly (Ethernet, IPv6 and TCP with options fit). */
    private static final int HEAD_CAPACITY = 256;

    private final Epoll poller = new Epoll(4);
    private final int listener;
    /** The unix socket file to remove at close, or null. */
    private final String path;
    private final boolean endsWithPeer;
    private int peer = -1;
    private boolean gone;
    private final MemorySegment in, out, head;
    private int inStart, inEnd;
    private int outStart, outEnd;
    /** Whether the poller also watches the peer for room to write (output is waiting). */
    private boolean watchingOut;
    /**
     * Whether the last read took less than it asked for: the socket had no more then, and the
     * frames it brought are handed out before the socket is read again. A read that would only
     * learn the socket is empty (EAGAIN), and with it a look for a waiting connection, is skipped:
     * the poller reports the socket (and the listener) again when it is (still) readable. An upload
     * at MTU 1500 paid one failing read and one failing accept4 for every wake-up, a third of its calls.
     */
    private boolean drained;

    private StreamLink(int listener, String path, int peer) {
        this.listener = listener;
        this.path = path;
        this.endsWithPeer = listener < 0;
        Arena arena = Arena.ofAuto();
        this.in = arena.allocate(IN_CAPACITY, 64);
        this.out = arena.allocate(OUT_CAPACITY, 64);
        this.head = arena.allocate(HEAD_CAPACITY, 64);
        if (listener >= 0) poller.add(listener, Epoll.IN);
        if (peer >= 0) attach(peer);
    }

    /**
     * Listens on a unix stream socket at path (replacing a stale socket file there) and serves
     * the peers that connect, one at a time. Throws IllegalArgumentException when that fails.
     */
    public static StreamLink listenUnix(String path) {
        int fd = SocketFiles.bind(Sockets.unixStream(), path);
        int r = Sockets.listen(fd, 4);
        if (r < 0) {
            Libc.close(fd);
            throw new IllegalArgumentException("cannot listen on " + path + ": " + Errno.describe(-r));
        }
        return new StreamLink(fd, path, -1);
    }

    /** Listens on a TCP socket (QEMU's -netdev socket,connect=ADDR:PORT) at addr:port (IPv4, host order). */
    public static StreamLink listenTcp(int addr, int port) {
        int fd = Sockets.tcp4();
        if (fd < 0) throw new IllegalArgumentException("cannot create a TCP socket: " + Errno.describe(-fd));
        Sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1);
        int r = Sockets.bind4(fd, addr, port);
        if (r == 0) r = Sockets.listen(fd, 4);
        if (r < 0) {
            Libc.close(fd);
            throw new IllegalArgumentException("cannot listen on " + io.jslirp.wire.Ipv4.format(addr) + ":" + port + ": " + Errno.describe(-r));
        }
        return new StreamLink(fd, null, -1);
    }

    /** Serves one connected stream socket (handed over by a parent process); the link ends with it. */
    public static StreamLink connected(int fd) {
        Libc.setNonBlocking(fd);
        return new StreamLink(-1, null, fd);
    }

    private void attach(int fd) {
        Sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, SOCKET_BUFFER);
        Sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, SOCKET_BUFFER);
        peer = fd;
        watchingOut = false;
        drained = false;
        poller.add(fd, Epoll.IN);
    }

    private void detach(String why) {
        if (peer < 0) return;
        Log.debug(() -> "stream peer " + why);
        poller.remove(peer);
        Libc.close(peer);
        peer = -1;
        drained = false;
        inStart = inEnd = 0;
        outStart = outEnd = 0;
        if (endsWithPeer) gone = true;
    }

    /** Whether a peer is connected now. */
    public boolean connected() {
        return peer >= 0;
    }


    @Override
    public int fd(int queue) {
        return poller.fd();
    }

    @Override
    public int receive(int queue, MemorySegment buffer) {
        if (gone) return -1;
        if (outEnd > outStart) flush();
        while (true) {
            if (peer >= 0) {
                int n = nextFrame(buffer);
                if (n != 0) return n;
                if (peer >= 0 && drained) {
                    drained = false;
                    return 0;
                }
                if (peer >= 0 && !fill()) {
                    acceptPending();
                    return gone ? -1 : 0;
                }
            } else {
                if (!acceptPending()) return gone ? -1 : 0;
            }
        }
    }

    /** The next whole frame from the input buffer into buffer: its length, 0 if none is whole yet. */
    private int nextFrame(MemorySegment buffer) {
        while (inEnd - inStart >= LENGTH_PREFIX) {
            int length = QemuStream.frameLength(in, inStart);
            if (length <= 0 || length > MAX_FRAME) {
                Log.warn("stream peer sent a frame length of " + Integer.toUnsignedString(length)
                        + " bytes: not a QEMU stream netdev? Disconnected it.");
                detach("sent a bad frame length");
                return 0;
            }
            if (inEnd - inStart < LENGTH_PREFIX + length) return 0;
            int at = inStart + LENGTH_PREFIX;
            inStart = at + length;
            if (length > buffer.byteSize()) continue; // the engine's buffer takes MAX_FRAME: not seen
            MemorySegment.copy(in, at, buffer, 0, length);
            return length;
        }
        return 0;
    }

    /** Reads what the peer sent into the input buffer; false when nothing came (or the peer left). */
    private boolean fill() {
        if (inStart > 0) {
            MemorySegment.copy(in, inStart, in, 0, inEnd - inStart);
            inEnd -= inStart;
            inStart = 0;
        }
        int room = IN_CAPACITY - inEnd;
        int n = Libc.read(peer, in, inEnd, room);
        if (n > 0) {
            inEnd += n;
            drained = n < room;
            return true;
        }
        if (n == 0) detach("closed the connection");
        else if (n != -Errno.EAGAIN && n != -Errno.EINTR) detach("failed: " + Errno.describe(-n));
        return false;
    }

    /** Takes a waiting connection (replacing the current peer); false when none was waiting. */
    private boolean acceptPending() {
        if (listener < 0) return false;
        int fd = Sockets.accept4(listener, null);
        if (fd < 0) return false;
        if (peer >= 0) detach("replaced by a new connection");
        attach(fd);
        Log.debug(() -> "stream peer connected");
        return true;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        int at = reserve(length);
        if (at < 0) return false; // the stack counts it as dropped
        MemorySegment.copy(frame, 0, out, at, length);
        return true;
    }

    /**
     * The headers from frame and the payload from where it is: a large payload written from there at
     * once (after what waits: nothing overtakes it), else both copied once, into the output buffer.
     */
    @Override
    public boolean send(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        if (payloadLength >= DIRECT_PAYLOAD && headersLength <= HEAD_CAPACITY - LENGTH_PREFIX
                && headersLength + payloadLength <= MAX_FRAME && payload.isNative()) {
            if (outEnd > outStart && !watchingOut) flush(); // a socket known to be full is not asked again per frame
            if (peer >= 0 && outEnd == outStart) return writeDirect(frame, headersLength, payload, payloadOffset, payloadLength);
        }
        int at = reserve(headersLength + payloadLength);
        if (at < 0) return false;
        MemorySegment.copy(frame, 0, out, at, headersLength);
        MemorySegment.copy(payload, payloadOffset, out, at + headersLength, payloadLength);
        return true;
    }

    /** Writes one frame, its payload from where it is; what the socket does not take waits in the (empty) output buffer. */
    private boolean writeDirect(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        int headLength = LENGTH_PREFIX + headersLength;
        QemuStream.setFrameLength(head, 0, headersLength + payloadLength);
        MemorySegment.copy(frame, 0, head, LENGTH_PREFIX, headersLength);
        long n = Libc.writev2(peer, head, 0, headLength, payload, payloadOffset, payloadLength);
        if (n < 0) {
            if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
                detach("failed: " + Errno.describe((int) -n));
                return false;
            }
            n = 0;
        }
        if (n == headLength + payloadLength) return true;
        // The rest of the frame, in order: the output buffer is empty, so it starts it.
        outStart = outEnd = 0;
        if (n < headLength) {
            MemorySegment.copy(head, n, out, 0, headLength - n);
            outEnd = (int) (headLength - n);
            n = headLength;
        }
        int sent = (int) (n - headLength);
        MemorySegment.copy(payload, payloadOffset + sent, out, outEnd, payloadLength - sent);
        outEnd += payloadLength - sent;
        watchOut();
        return true;
    }

    /**
     * Room in the output buffer for a frame of length bytes, its length prefix written before it:
     * where the frame goes, or -1 when it cannot be queued (no peer, too large, or a peer that
     * is not reading: dropped, like a frame for a full tap queue).
     */
    private int reserve(int length) {
        if (peer < 0 || length > MAX_FRAME) return -1;
        if (OUT_CAPACITY - outEnd < LENGTH_PREFIX + length) {
            flush();
            if (peer < 0) return -1;
            if (outStart > 0) {
                MemorySegment.copy(out, outStart, out, 0, outEnd - outStart);
                outEnd -= outStart;
                outStart = 0;
            }
            if (OUT_CAPACITY - outEnd < LENGTH_PREFIX + length) return -1;
        }
        QemuStream.setFrameLength(out, outEnd, length);
        int at = outEnd + LENGTH_PREFIX;
        outEnd = at + length;
        return at;
    }

    /** Writes the gathered frames; what the socket does not take waits for it to drain. */
    @Override
    public void flush() {
        if (peer < 0 || outEnd == outStart) return;
        int n = Libc.write(peer, out, outStart, outEnd - outStart);
        if (n > 0) {
            outStart += n;
            if (outStart == outEnd) outStart = outEnd = 0;
        } else if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
            detach("failed: " + Errno.describe(-n));
            return;
        }
        watchOut();
    }

    /** Wake up (through the poller) when the socket can take what waits, and only then. */
    private void watchOut() {
        boolean waiting = outEnd > outStart;
        if (waiting != watchingOut) {
            poller.modify(peer, waiting ? Epoll.IN | Epoll.OUT : Epoll.IN);
            watchingOut = waiting;
        }
    }

    @Override
    public void close() {
        if (peer >= 0) Libc.close(peer);
        if (listener >= 0) Libc.close(listener);
        poller.close();
        if (path != null) SocketFiles.remove(path);
    }
}
