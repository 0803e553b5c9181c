package io.jslirp.bypass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jslirp.loop.AcceptPause;
import io.jslirp.loop.Reactor;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FdMessages;
import io.jslirp.sys.Libc;
import io.jslirp.sys.SeccompNotify;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixListener;
import io.jslirp.util.Log;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The OCI runtime's seccomp agent: the socket a seccomp profile names as its {@code listenerPath}.
 * For each process that starts under such a profile (a container's first process, and each
 * {@code exec} into it), runc and crun connect, send the container process state (a JSON object
 * whose {@code fds} array names the descriptors that come with it, SCM_RIGHTS, in order; the
 * filter's listener is the one named {@code seccompFd}) and close. From then on the socket bypass
 * ({@link ConnectBypass#serve}) answers that filter's held connects, until no process is left
 * under it.
 *
 * <p>Bad input loses nothing but that client: a state over {@link #MAX_STATE} bytes, more
 * descriptors than {@link FdMessages#MAX_FDS}, a state that is not such JSON, a count of
 * descriptors other than its {@code fds} names, or a seccompFd the bypass does not take (one it
 * cannot watch, or beyond its limit), closes the client and every descriptor it sent,
 * with one line in the log. At most {@link #MAX_CLIENTS} clients are read at once; beyond, the
 * oldest is dropped. The socket is the user's alone (mode 0600).
 */
public final class SeccompAgent {
    /** The most bytes of one process state (runc's are a few KiB: the container's annotations make them grow). */
    static final int MAX_STATE = 1 << 20;
    static final int MAX_CLIENTS = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Reactor loop;
    private final Consumer<SeccompNotify> serve;
    private final UnixListener listener;
    private final AcceptPause pause;
    private final FdMessages messages = new FdMessages();
    private final MemorySegment chunk = Arena.ofAuto().allocate(1 << 16, 8);
    private final ArrayDeque<Client> clients = new ArrayDeque<>();
    /** Clients done with, served or dropped (for tests, on the loop's thread). */
    private int finished;

    private SeccompAgent(Reactor loop, Consumer<SeccompNotify> serve, UnixListener listener) {
        this.loop = loop;
        this.serve = serve;
        this.listener = listener;
        this.pause = new AcceptPause(loop, listener.fd(), "seccomp agent socket");
        loop.register(listener.fd(), Epoll.IN, events -> accept());
    }

    /**
     * Listens at path (role names it in errors) and serves its clients on loop, each filter's
     * listener handed to serve (the socket bypass's {@link ConnectBypass#serve}); IllegalArgumentException
     * when the path cannot be used.
     */
    public static SeccompAgent listen(Reactor loop, Consumer<SeccompNotify> serve, String path, String role) {
        return new SeccompAgent(loop, serve, UnixListener.listen(path, role, true, MAX_CLIENTS));
    }

    /** Clients done with so far, served or dropped; on the loop's thread. */
    int clientsFinished() {
        return finished;
    }

    /** Stops listening (the socket file stays, as the control socket's: an isolated instance cannot remove it). */
    public void close() {
        pause.cancel();
        loop.unregister(listener.fd());
        for (Client c : List.copyOf(clients)) c.drop(null);
        listener.close();
    }

    private void accept() {
        for (int i = 0; i < MAX_CLIENTS; i++) {
            int fd = Sockets.accept4(listener.fd(), null);
            if (fd < 0) {
                pause.failed(-fd);
                return;
            }
            if (clients.size() >= MAX_CLIENTS) clients.poll().drop("more than " + MAX_CLIENTS + " clients at once");
            Client c = new Client(fd);
            clients.add(c);
            loop.register(fd, Epoll.IN, events -> c.read());
        }
    }

    /** One runtime's connection: its bytes and descriptors until it closes. */
    private final class Client {
        private final int fd;
        private byte[] state = new byte[4096];
        private int length;
        private final List<Integer> fds = new ArrayList<>();

        Client(int fd) {
            this.fd = fd;
        }

        void read() {
            while (true) {
                int n = messages.receive(fd, chunk, 0, (int) chunk.byteSize());
                for (int i = 0; i < messages.fdCount(); i++) fds.add(messages.fd(i));
                if (messages.truncated() || fds.size() > FdMessages.MAX_FDS) {
                    drop("more descriptors than " + FdMessages.MAX_FDS);
                    return;
                }
                if (n == -Errno.EAGAIN || n == -Errno.EINTR) return;
                if (n < 0) {
                    drop("cannot read: " + Errno.describe(-n));
                    return;
                }
                if (n == 0) {
                    finish();
                    return;
                }
                if (length + n > MAX_STATE) {
                    drop("a process state of more than " + MAX_STATE + " bytes");
                    return;
                }
                if (length + n > state.length) state = java.util.Arrays.copyOf(state, Math.min(MAX_STATE, Math.max(2 * state.length, length + n)));
                MemorySegment.copy(chunk, ValueLayout.JAVA_BYTE, 0, state, length, n);
                length += n;
            }
        }

        /** The whole state is in: the listener it names served, every other descriptor closed. */
        private void finish() {
            JsonNode root;
            try {
                root = JSON.readTree(state, 0, length);
            } catch (IOException e) {
                drop("not a container process state: " + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j
                        ? j.getOriginalMessage() : e.getMessage()));
                return;
            }
            JsonNode names = root == null ? null : root.get("fds");
            if (names == null || !names.isArray() || names.size() != fds.size()) {
                drop("its fds names " + (names == null || !names.isArray() ? "no descriptors" : names.size() + " descriptors")
                        + ", and " + fds.size() + " came");
                return;
            }
            int served = -1;
            for (int i = 0; i < fds.size(); i++) {
                if (served < 0 && "seccompFd".equals(names.get(i).asText())) served = i;
            }
            if (served < 0) {
                drop("no seccompFd among its descriptors");
                return;
            }
            SeccompNotify notify = new SeccompNotify(fds.remove(served));
            try {
                serve.accept(notify);
            } catch (RuntimeException e) {
                notify.close();
                drop("its seccompFd is not served: " + e.getMessage());
                return;
            }
            JsonNode pid = root.get("pid"), id = root.path("state").get("id");
            Log.debug(() -> "seccomp agent: serving the connects of process " + (pid == null ? "?" : pid.asText())
                    + (id == null ? "" : " of container " + id.asText()));
            drop(null); // the other descriptors with it
        }

        /** Closes this client and the descriptors it sent and nobody took; why (if not null) in the log. */
        void drop(String why) {
            if (why != null) Log.warn("seccomp agent: a client dropped: " + why);
            for (int f : fds) Libc.close(f);
            fds.clear();
            loop.forget(fd);
            Libc.close(fd);
            clients.remove(this);
            finished++;
        }
    }
}
