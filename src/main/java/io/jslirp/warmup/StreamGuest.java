package io.jslirp.warmup;

import io.jslirp.link.Link;
import io.jslirp.link.StreamLink;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.wire.QemuStream;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The warm-up guest over a unix socket pair in QEMU's stream format: the engine's
 * {@link StreamLink} on one end, the guest's frames written ({@link GuestOutput}) and read on the other.
 */
final class StreamGuest implements GuestLink {
    private final int fd;
    private final Link link;
    private final GuestOutput output;
    private final MemorySegment in = Arena.ofAuto().allocate(1 << 20, 64);
    private int inEnd;

    private StreamGuest(int fd, Link link) {
        this.fd = fd;
        this.link = link;
        this.output = new GuestOutput(fd);
        Sockets.setInt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, 4 << 20);
    }

    /** A socket pair, the engine's link on one end; throws IllegalStateException when there is none to be had. */
    static StreamGuest open() {
        int[] pair = new int[2];
        int r = Sockets.unixStreamPair(pair);
        if (r < 0) throw new IllegalStateException("socketpair: " + Errno.describe(-r));
        return new StreamGuest(pair[1], StreamLink.connected(pair[0]));
    }

    @Override
    public Link link() {
        return link;
    }

    @Override
    public int fd() {
        return fd;
    }

    @Override
    public int events(boolean reading, boolean pending) {
        return (reading ? Epoll.IN : 0) | (pending ? Epoll.OUT : 0);
    }

    @Override
    public MemorySegment buffer() {
        return output.buffer();
    }

    @Override
    public long nextFrame() {
        return output.nextFrame();
    }

    @Override
    public long free() {
        return output.free();
    }

    @Override
    public void append(FrameBuilder b) {
        output.append(b);
    }

    @Override
    public int chunk(int segment) {
        return segment;
    }

    @Override
    public boolean flush() {
        return output.flush();
    }

    @Override
    public int read(Frames frames) {
        int n = Libc.read(fd, in, inEnd, (int) in.byteSize() - inEnd);
        if (n <= 0) return n == 0 || (n != -Errno.EAGAIN && n != -Errno.EINTR) ? END : NOTHING;
        inEnd += n;
        int at = 0;
        boolean ackDue = false;
        while (inEnd - at >= QemuStream.PREFIX_LENGTH) {
            int length = QemuStream.frameLength(in, at);
            if (inEnd - at < QemuStream.PREFIX_LENGTH + length) break;
            ackDue |= frames.frame(in, at + QemuStream.PREFIX_LENGTH, length);
            at += QemuStream.PREFIX_LENGTH + length;
        }
        MemorySegment.copy(in, at, in, 0, inEnd - at);
        inEnd -= at;
        return ackDue ? ACK_DUE : READ;
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
