package io.jslirp.warmup;

import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.warmup.Warmup.Kind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The warm-up's host peer: the server on the host's loopback that its guest's connections reach
 * through the stack, one at a time. It answers as the connection's {@link Kind} asks: a download's
 * header, then (once the guest has it) the rest, then its FIN; it reads an upload, stopping now and
 * then (a slow server); it echoes a chat; it resets the RESET connection once the request is in.
 */
final class HostPeer {
    private final EventLoop loop;
    private final int listener;
    private final MemorySegment buffer = Arena.ofAuto().allocate(256 << 10, 64);
    private final Timer resume = new Timer(this::resume);
    private int fd = -1;
    private Kind kind;
    /** What of the answer's header is yet to be written, and what of the whole answer. */
    private int headerLeft;
    private long toSend;
    /** Waiting until the guest has the header before writing the rest, as a server that answers in two writes. */
    private boolean held;
    /** The guest's request is in (it answers only then); it stops reading now (a slow server); its epoll events. */
    private boolean requestIn, paused;
    private int reads, events;

    HostPeer(EventLoop loop, int listener) {
        this.loop = loop;
        this.listener = listener;
        loop.register(listener, Epoll.IN, e -> accept());
    }

    /** The next connection is of kind; it answers with header bytes first, toSend bytes in all. */
    void expect(Kind kind, int header, long toSend) {
        this.kind = kind;
        this.headerLeft = header;
        this.toSend = toSend;
        held = false;
    }

    /** The guest has the answer's header: the rest may go. */
    void release() {
        if (!held) return;
        held = false;
        interest();
    }

    private void accept() {
        int accepted = Sockets.accept4(listener, null);
        if (accepted < 0) return;
        if (fd >= 0) {
            loop.unregister(fd);
            Libc.close(fd);
        }
        fd = accepted;
        requestIn = paused = false;
        reads = 0;
        events = Epoll.IN;
        loop.register(fd, events, e -> ready());
    }

    private void ready() {
        while (fd >= 0 && !paused) {
            int n = Libc.read(fd, buffer, 0, (int) buffer.byteSize());
            if (n == 0) {
                close();
                return;
            }
            if (n < 0) break;
            requestIn = true;
            if (kind == Kind.CHAT) Libc.write(fd, buffer, 0, n); // an echo, as an interactive server answers
            if (kind == Kind.UPLOAD && ++reads % Warmup.PAUSE_EVERY == Warmup.PAUSE_EVERY / 2) { // a slow server
                paused = true;
                loop.schedule(resume, loop.clock().now() + Warmup.PAUSE_NANOS);
            }
        }
        if (fd < 0 || !requestIn) return; // a server answers once the request is in
        if (kind == Kind.RESET) {
            Sockets.setLingerZero(fd);
            close();
            return;
        }
        answer();
        interest();
    }

    /** The header, then (unless held) the rest, then (a download's) the FIN. */
    private void answer() {
        if (headerLeft > 0) {
            int n = Libc.write(fd, buffer, 0, headerLeft);
            if (n > 0) {
                headerLeft -= n;
                toSend -= n;
                held = headerLeft == 0 && toSend > 0;
            }
        }
        while (!held && headerLeft == 0 && toSend > 0) {
            int n = Libc.write(fd, buffer, 0, (int) Math.min(buffer.byteSize(), toSend));
            if (n <= 0) break;
            toSend -= n;
        }
        if (toSend == 0 && (kind == Kind.DOWNLOAD || kind == Kind.SHORT)) {
            toSend = -1;
            Sockets.shutdown(fd, Sockets.SHUT_WR);
        }
    }

    private void resume() {
        paused = false;
        if (fd < 0) return;
        interest();
        ready();
    }

    /** Reading unless paused; writing while there is more to answer with and nothing holds it back. */
    private void interest() {
        if (fd < 0) return;
        int wanted = (paused ? 0 : Epoll.IN) | (requestIn && !held && toSend > 0 ? Epoll.OUT : 0);
        if (wanted != events) {
            loop.modify(fd, wanted);
            events = wanted;
        }
    }

    /** Closes the connection, if any. */
    void close() {
        if (fd < 0) return;
        loop.unregister(fd);
        Libc.close(fd);
        fd = -1;
    }
}
