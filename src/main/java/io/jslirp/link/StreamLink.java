package io.jslirp.link;

import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixListener;
import io.jslirp.sys.UnixSocketFile;
import io.jslirp.util.Log;
import io.jslirp.wire.QemuStream;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntUnaryOperator;

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
 * are gathered and written once per loop iteration ({@link #flush}), in one writev: small ones
 * copied into the output buffer, a large payload ({@link #DIRECT_PAYLOAD}) from where it waits
 * (the host's data in a peek window), which the sender leaves as it is until the flush.
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
     * A payload this large goes to the socket from where it waits (the host's data in a peek
     * window), its prefix and headers in the output buffer: the copy into the output buffer was
     * the stack's one copy of a VM's download at MTU 65520 that passt does not make (64 KiB for
     * each frame). Written at once, one writev per frame, the frames reached the guest spread
     * out and cost it a third more receive interrupts than passt's batches; gathered, they go
     * with the others at the flush. What the socket does not take is copied into the output buffer.
     */
    static final int DIRECT_PAYLOAD = 16 << 10;
    /** The most payloads gathered from where they wait: more, and the flush comes first. */
    static final int MAX_GATHERED = 16;

    private final Epoll poller = new Epoll(4);
    private final int listener;
    /** accept4 on the listener: the connection's descriptor or -errno (a test's own in tests). */
    private final IntUnaryOperator accept;
    /** The listener's rest while a connection cannot be taken for want of descriptors; null without a listener. */
    private final ListenerRest rest;
    /** The socket file of a unix listener, else null. */
    private final UnixSocketFile file;
    private final boolean endsWithPeer;
    private int peer = -1;
    private boolean gone;
    private final MemorySegment in, out;
    private int inStart, inEnd;
    private int outStart, outEnd;
    /**
     * Payloads gathered from where they wait, in order: payload i goes after the output buffer's
     * bytes up to gatheredAt[i] (its frame's prefix and headers), before those after it.
     */
    private final MemorySegment[] gatheredPayload = new MemorySegment[MAX_GATHERED];
    private final long[] gatheredOffset = new long[MAX_GATHERED];
    private final int[] gatheredLength = new int[MAX_GATHERED];
    private final int[] gatheredAt = new int[MAX_GATHERED];
    private int gathered;
    private long gatheredBytes;
    /** The flush's iovecs: a slice of the output buffer before each payload, the payload, and the rest. */
    private final MemorySegment iov;
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

    /** name: the listener's in messages ("the VM's socket PATH"), unused without one. */
    private StreamLink(int listener, String name, UnixSocketFile file, int peer, IntUnaryOperator accept) {
        this.listener = listener;
        this.accept = accept;
        this.file = file;
        this.endsWithPeer = listener < 0;
        Arena arena = Arena.ofAuto();
        this.in = arena.allocate(IN_CAPACITY, 64);
        this.out = arena.allocate(OUT_CAPACITY, 64);
        this.iov = arena.allocate(16L * (2 * MAX_GATHERED + 1), 8);
        if (listener >= 0) poller.add(listener, Epoll.IN);
        this.rest = listener < 0 ? null : new ListenerRest(poller, listener, 0, 0, name);
        if (peer >= 0) attach(peer);
    }

    /**
     * Listens on a unix stream socket at path (replacing only a stale socket file there: see
     * {@link UnixSocketFile}) and serves the peers that connect, one at a time. Throws
     * IllegalArgumentException when that fails, naming the path as role ("the QEMU socket").
     */
    public static StreamLink listenUnix(String path, String role) {
        return listenUnix(path, role, fd -> Sockets.accept4(fd, null));
    }

    /** As {@link #listenUnix(String, String)}, taking connections with accept (a test's, to make it fail). */
    static StreamLink listenUnix(String path, String role, IntUnaryOperator accept) {
        UnixListener l = UnixListener.listen(path, role, false, 4);
        return new StreamLink(l.fd(), "the VM's socket " + path, l.file(), -1, accept);
    }

    /** As {@link #listenUnix(String, String)}, the path named "the VM's socket" in messages. */
    public static StreamLink listenUnix(String path) {
        return listenUnix(path, "the VM's socket");
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
        return new StreamLink(fd, "the VM's socket " + io.jslirp.wire.Ipv4.format(addr) + ":" + port, null, -1, f -> Sockets.accept4(f, null));
    }

    /** Serves one connected stream socket (handed over by a parent process); the link ends with it. */
    public static StreamLink connected(int fd) {
        Libc.setNonBlocking(fd);
        return new StreamLink(-1, null, null, fd, null);
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
        forgetGathered();
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
        if (outEnd > outStart || gathered > 0) flush();
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

    /**
     * Takes a waiting connection (replacing the current peer); false when none was waiting or it
     * cannot be taken now (the listener then rests: {@link ListenerRest}).
     */
    private boolean acceptPending() {
        if (listener < 0) return false;
        if (rest.resting() && !rest.wake()) return false;
        int fd = accept.applyAsInt(listener);
        if (fd < 0) {
            rest.failed(-fd);
            return false;
        }
        if (peer >= 0) detach("replaced by a new connection");
        attach(fd);
        Log.debug(() -> "stream peer connected");
        return true;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        int at = reserve(length, length, 0);
        if (at < 0) return false; // the stack counts it as dropped
        MemorySegment.copy(frame, 0, out, at, length);
        return true;
    }

    @Override
    public LinkCapabilities capabilities() {
        return LinkCapabilities.GATHERS;
    }

    /** The frame f describes, its payload (if from elsewhere) gathered or copied as {@link #send(MemorySegment, int, MemorySegment, long, int)} says. */
    @Override
    public boolean send(TxFrame f) {
        if (f.payloadLength() == 0) return send(f.frame(), f.frameLength());
        return send(f.frame(), f.frameLength(), f.payload(), f.payloadOffset(), f.payloadLength());
    }

    /**
     * The headers from frame and the payload from where it is: a large payload gathered, to be
     * written from there at the flush (the sender keeps it as it is until then), unless the socket
     * is known to be full; else both copied once, into the output buffer.
     */
    public boolean send(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset, int payloadLength) {
        int length = headersLength + payloadLength;
        if (payloadLength >= DIRECT_PAYLOAD && length <= MAX_FRAME && payload.isNative() && !watchingOut) {
            if (gathered == MAX_GATHERED) flush(); // (a flush leaves nothing gathered, written or copied)
            int at = reserve(length, headersLength, payloadLength);
            if (at >= 0 && !watchingOut) { // (a flush may have found the socket full: then the payload is copied)
                MemorySegment.copy(frame, 0, out, at, headersLength);
                gatheredPayload[gathered] = payload;
                gatheredOffset[gathered] = payloadOffset;
                gatheredLength[gathered] = payloadLength;
                gatheredAt[gathered] = outEnd;
                gathered++;
                gatheredBytes += payloadLength;
                return true;
            }
            if (at >= 0) outEnd = at - LENGTH_PREFIX; // not gathered after all: taken back, and copied below
        }
        int at = reserve(length, length, 0);
        if (at < 0) return false;
        MemorySegment.copy(frame, 0, out, at, headersLength);
        MemorySegment.copy(payload, payloadOffset, out, at + headersLength, payloadLength);
        return true;
    }

    /**
     * Room in the output buffer for a frame of length bytes, its length prefix written before it,
     * of which copied bytes go into the buffer and gatheredPayload wait where they are: where the
     * copied bytes go, or -1 when the frame cannot be queued (no peer, too large, or a peer that
     * is not reading: dropped, like a frame for a full tap queue).
     */
    private int reserve(int length, int copied, int gatheredPayload) {
        if (peer < 0 || length > MAX_FRAME) return -1;
        if (!fits(LENGTH_PREFIX + copied, gatheredPayload)) {
            flush();
            if (peer < 0) return -1;
            if (outStart > 0) {
                MemorySegment.copy(out, outStart, out, 0, outEnd - outStart);
                outEnd -= outStart;
                outStart = 0;
            }
            if (!fits(LENGTH_PREFIX + copied, gatheredPayload)) return -1;
        }
        QemuStream.setFrameLength(out, outEnd, length);
        int at = outEnd + LENGTH_PREFIX;
        outEnd = at + copied;
        return at;
    }

    /**
     * Whether bytes more in the output buffer, and gatheredPayload more waiting elsewhere, leave
     * room behind the buffer's end for all that waits: a flush the socket takes only part of
     * copies the rest there ({@link #spill}). (After a flush nothing is gathered.)
     */
    private boolean fits(int bytes, int gatheredPayload) {
        long end = (long) outEnd + bytes;
        if (gathered == 0 && gatheredPayload == 0) return end <= OUT_CAPACITY;
        return end + (end - outStart) + gatheredBytes + gatheredPayload <= OUT_CAPACITY;
    }

    /** Writes the gathered frames; what the socket does not take waits for it to drain. */
    @Override
    public void flush() {
        if (peer < 0 || (outEnd == outStart && gathered == 0)) return;
        long n;
        if (gathered == 0) {
            n = Libc.write(peer, out, outStart, outEnd - outStart);
        } else {
            int count = 0, from = outStart;
            for (int i = 0; i < gathered; i++) {
                if (gatheredAt[i] > from) Libc.iovec(iov, count++, out, from, gatheredAt[i] - from);
                Libc.iovec(iov, count++, gatheredPayload[i], gatheredOffset[i], gatheredLength[i]);
                from = gatheredAt[i];
            }
            if (outEnd > from) Libc.iovec(iov, count++, out, from, outEnd - from);
            n = Libc.writev(peer, iov, count);
        }
        if (n < 0) {
            if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
                detach("failed: " + Errno.describe((int) -n));
                return;
            }
            n = 0;
        }
        if (gathered > 0) {
            if (n == outEnd - outStart + gatheredBytes) {
                outStart = outEnd = 0;
                forgetGathered();
            } else {
                spill(n);
            }
        } else {
            outStart += (int) n;
            if (outStart == outEnd) outStart = outEnd = 0;
        }
        watchOut();
    }

    /**
     * After a write that took written bytes of what was gathered, copies the rest, in order,
     * behind the output buffer's end (where {@link #fits} kept room), so nothing waits elsewhere.
     */
    private void spill(long written) {
        int to = outEnd, from = outStart;
        for (int i = 0; i <= gathered; i++) {
            int end = i < gathered ? gatheredAt[i] : outEnd;
            to = spillPart(out, from, end - from, written, to);
            written = Math.max(written - (end - from), 0);
            if (i < gathered) {
                to = spillPart(gatheredPayload[i], gatheredOffset[i], gatheredLength[i], written, to);
                written = Math.max(written - gatheredLength[i], 0);
            }
            from = end;
        }
        outStart = outEnd;
        outEnd = to;
        forgetGathered();
    }

    /** Copies what follows the first skip of length bytes at offset of from to the output buffer at to; returns the new end. */
    private int spillPart(MemorySegment from, long offset, int length, long skip, int to) {
        if (skip >= length) return to;
        int rest = (int) (length - skip);
        MemorySegment.copy(from, offset + skip, out, to, rest);
        return to + rest;
    }

    private void forgetGathered() {
        for (int i = 0; i < gathered; i++) gatheredPayload[i] = null;
        gathered = 0;
        gatheredBytes = 0;
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
        if (rest != null) rest.close();
        poller.close();
        if (file != null) file.release();
    }
}
