package io.jslirp.api;

import io.jslirp.loop.AcceptPause;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Timer;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixListener;
import io.jslirp.sys.UnixSocketFile;
import io.jslirp.util.Log;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * slirp4netns's API socket on the event loop: a unix stream socket where each connection carries
 * one JSON request and gets one reply, then is closed. Nothing blocks: a client is read as it
 * sends, answered once it has shut down its side or sent a complete JSON value, and dropped when
 * it takes longer than {@link #CLIENT_TIMEOUT_NANOS}.
 */
public final class ApiSocket {
    /** slirp4netns reads a request into a 4096-byte buffer, and one that fills it is too large. */
    static final int MAX_REQUEST = 4096;
    private static final int MAX_CLIENTS = 16;
    private static final long CLIENT_TIMEOUT_NANOS = 10_000_000_000L;

    private final Reactor loop;
    private final Clock clock;
    private final UnixSocketFile file;
    private final ApiRequests requests;
    private final int fd;
    private final AcceptPause pause;
    private int clients;

    /**
     * Listens at path, readable and writable by the owner only (set before it listens): taken as {@link UnixSocketFile}
     * takes a path (a stale socket replaced; anything else there, or a live instance's socket,
     * refused and left as it is). Throws IllegalArgumentException saying what failed.
     */
    public ApiSocket(Reactor loop, Path path, ApiRequests requests) {
        this(loop, listen(path), requests);
    }

    /** Serves on a listener made by {@link #listen}. */
    public ApiSocket(Reactor loop, UnixListener l, ApiRequests requests) {
        this.loop = loop;
        this.clock = loop.clock();
        this.requests = requests;
        this.file = l.file();
        this.fd = l.fd();
        this.pause = new AcceptPause(loop, fd, "API socket");
        loop.register(fd, Epoll.IN, events -> accept());
    }

    /** The API socket's listener at path, as the constructor takes it. */
    public static UnixListener listen(Path path) {
        return UnixListener.listen(path.toString(), "the API socket", true, MAX_CLIENTS);
    }

    private void accept() {
        for (int i = 0; i < MAX_CLIENTS; i++) {
            int client = Sockets.accept4(fd, null);
            if (client < 0) {
                pause.failed(-client);
                return;
            }
            if (clients >= MAX_CLIENTS) {
                Log.warn("API socket: more than " + MAX_CLIENTS + " clients at once, one dropped");
                Libc.close(client);
                continue;
            }
            clients++;
            new Client(client);
        }
    }

    /** Stops serving and removes the socket file. */
    public void close() {
        pause.cancel();
        loop.unregister(fd);
        Libc.close(fd);
        file.release();
    }

    /** One connection: its request as it arrives, then its reply as the socket takes it. */
    private final class Client implements Handler {
        final int fd;
        final byte[] request = new byte[MAX_REQUEST];
        final Timer timeout = new Timer(this::end);
        int length;
        byte[] reply;
        int written;

        Client(int fd) {
            this.fd = fd;
            loop.register(fd, Epoll.IN, this);
            loop.schedule(timeout, clock.now() + CLIENT_TIMEOUT_NANOS);
        }

        @Override
        public void onEvents(int events) {
            if (reply != null) {
                send();
                return;
            }
            MemorySegment buffer = MemorySegment.ofArray(request);
            while (length < MAX_REQUEST) {
                int n = Libc.read(fd, buffer, length, MAX_REQUEST - length);
                if (n == -Errno.EAGAIN) {
                    if (!ApiRequests.incomplete(request, length)) answer(requests.reply(request, length));
                    return;
                }
                if (n < 0) {
                    end();
                    return;
                }
                if (n == 0) { // the client has sent everything
                    answer(requests.reply(request, length));
                    return;
                }
                length += n;
            }
            answer(ApiRequests.tooLarge());
        }

        private void answer(String text) {
            reply = text.getBytes(StandardCharsets.UTF_8);
            send();
        }

        private void send() {
            while (written < reply.length) {
                int n = Sockets.send(fd, MemorySegment.ofArray(reply), written, reply.length - written, 0);
                if (n == -Errno.EAGAIN) {
                    loop.modify(fd, Epoll.OUT);
                    return;
                }
                if (n < 0) break;
                written += n;
            }
            Sockets.shutdown(fd, Sockets.SHUT_RDWR);
            end();
        }

        private void end() {
            loop.schedule(timeout, Long.MAX_VALUE);
            loop.unregister(fd);
            Libc.close(fd);
            clients--;
        }
    }
}
