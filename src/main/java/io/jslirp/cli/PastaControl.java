package io.jslirp.cli;

import io.jslirp.loop.Handler;
import io.jslirp.loop.AcceptPause;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.pasta.ControlProtocol;
import io.jslirp.pasta.ForwardRule;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.pasta.PortSpec;
import io.jslirp.pasta.RuleTable;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixListener;
import io.jslirp.util.Log;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * -c/--conf-path: pasta's control socket, where passt's pesto lists the forwarding tables and
 * replaces them at run time ({@link ControlProtocol}). Served on the engine's loop, one client at a
 * time as pasta does (the next waits until the current one is done, so that a client's
 * read-modify-write of a table is not interleaved with another's); nothing blocks the loop: a
 * client is read as it sends, and dropped with a line in the log when it sends bytes that are no
 * update, more than an update can be, or takes longer than {@link #CLIENT_TIMEOUT_NANOS}.
 *
 * <p>Two tables: HOST, the -t/-u rules ({@link InboundRules}: host ports forwarded to the
 * namespace, a client keeping its own address as the guest sees it, a host-loopback client
 * spliced), and SPLICE, the -T/-U rules. An update is taken whole or not at all: every rule it
 * adds is checked first (pasta's fwd_rule_add checks, and what jslirp cannot do: a change to
 * SPLICE or to an "auto" rule, an IPv6 rule to another address than the namespace's own). Then the
 * rules it no longer has are closed, and the new ones opened; a rule untouched keeps its sockets.
 * A port of a new rule that cannot be bound leaves that rule out, with a line in the log (a best
 * effort rule keeps the ports it could bind).
 */
final class PastaControl implements PastaPorts {
    private static final int MAX_WAITING = 16;
    private static final long CLIENT_TIMEOUT_NANOS = 10_000_000_000L;

    @Override
    public void open(Context c) {
        String path = c.options().confPath();
        if (path == null) return;
        new Server(c, path);
    }

    private static final class Server {
        private final Context c;
        private final Reactor loop;
        private final AcceptPause pause;
        private final int fd;
        private final UnixListener listener;
        private final List<ForwardRule> splice;
        private final int caps;
        private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
        private Client current;

        Server(Context c, String path) {
            this.c = c;
            this.loop = c.engine().loop();
            PastaOptions o = c.options();
            InetAddress any = InboundRules.anyAddress(c.network());
            PortSpec.Ephemeral ephemeral = PortSpec.Ephemeral.read();
            // "auto" rules of -t and -u: listed with the HOST table, their ports followed by SplicePorts.
            for (ForwardRule r : RuleTable.of(o.tcp(), ForwardRule.TCP, any, ephemeral)) if (r.scan()) c.inbound().add(r, List.of());
            for (ForwardRule r : RuleTable.of(o.udp(), ForwardRule.UDP, any, ephemeral)) if (r.scan()) c.inbound().add(r, List.of());
            List<ForwardRule> out = new ArrayList<>(RuleTable.of(o.tcpNs(), ForwardRule.TCP, any, ephemeral));
            out.addAll(RuleTable.of(o.udpNs(), ForwardRule.UDP, any, ephemeral));
            this.splice = List.copyOf(out);
            this.caps = (c.network().ipv4() != null ? ControlProtocol.CAP_IPV4 : 0) | (c.network().ipv6() != null ? ControlProtocol.CAP_IPV6 : 0)
                    | ControlProtocol.CAP_TCP | ControlProtocol.CAP_UDP | ControlProtocol.CAP_IFNAME;
            try {
                this.listener = UnixListener.listen(path, "the control socket", true, MAX_WAITING);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Couldn't open control socket " + path + ": " + Main.oneLine(e));
            }
            this.fd = listener.fd();
            this.pause = new AcceptPause(loop, fd, "control socket");
            loop.register(fd, Epoll.IN, events -> accept());
            c.engine().atShutdown(this::close);
        }

        private void accept() {
            for (int i = 0; i < MAX_WAITING; i++) {
                int client = Sockets.accept4(fd, null);
                if (client < 0) {
                    pause.failed(-client);
                    break;
                }
                if (waiting.size() >= MAX_WAITING) {
                    Log.warn("control socket: more than " + MAX_WAITING + " clients waiting, one dropped");
                    Libc.close(client);
                    continue;
                }
                waiting.add(client);
            }
            next();
        }

        /** Serves the next waiting client, if none is being served (one gone already ends at once, and the next is served). */
        private void next() {
            while (current == null && !waiting.isEmpty()) {
                current = new Client(this, waiting.poll());
                current.greet();
            }
        }

        List<ControlProtocol.Table> tables() {
            return List.of(new ControlProtocol.Table(ControlProtocol.PIF_HOST, "HOST", caps, c.inbound().rules()),
                    new ControlProtocol.Table(ControlProtocol.PIF_SPLICE, "SPLICE", caps, splice));
        }

        void done(Client client) {
            if (current == client) current = null;
            next();
        }

        /** Applies a whole update, or nothing of it: a line in the log says what was refused. */
        void apply(Map<Integer, List<ForwardRule>> update) {
            List<ForwardRule> splice = update.get(ControlProtocol.PIF_SPLICE);
            if (splice != null && !splice.equals(this.splice)) {
                Log.warn("control socket: update refused: jslirp does not change -T/-U rules (SPLICE) at run time");
                return;
            }
            List<ForwardRule> host = update.get(ControlProtocol.PIF_HOST);
            if (host == null) return;
            List<ForwardRule> now = c.inbound().rules();
            String problem = check(host, now);
            if (problem != null) {
                Log.warn("control socket: update refused: " + problem);
                return;
            }
            for (ForwardRule r : now) {
                if (!host.contains(r)) {
                    c.inbound().remove(r, c);
                    Log.debug(() -> "control socket: rule deleted: " + r.toString().strip());
                }
            }
            for (ForwardRule r : host) {
                if (now.contains(r)) continue;
                try {
                    c.inbound().open(r, c);
                    Log.debug(() -> "control socket: rule added: " + r.toString().strip());
                } catch (IllegalArgumentException e) {
                    Log.warn("control socket: " + e.getMessage() + "; the rule is left out");
                }
            }
        }

        /** Why the HOST table next cannot replace now, or null. */
        private String check(List<ForwardRule> next, List<ForwardRule> now) {
            Set<ForwardRule> seen = new HashSet<>();
            for (ForwardRule r : next) if (!seen.add(r)) return "rule " + r.toString().strip() + " twice";
            for (ForwardRule r : now) {
                if (r.scan() && !next.contains(r)) return "jslirp does not change \"auto\" rules at run time (" + r.toString().strip() + ")";
            }
            for (int i = 0; i < next.size(); i++) {
                ForwardRule r = next.get(i);
                if (now.contains(r)) continue;
                if (r.scan()) return "jslirp does not add \"auto\" rules at run time (" + r.toString().strip() + ")";
                List<ForwardRule> others = new ArrayList<>(next);
                others.remove(i);
                String p = r.problem(caps, others);
                if (p != null) return p;
                if (r.targetAddress() != null && !(r.targetAddress() instanceof Inet4Address)) {
                    return "jslirp forwards IPv6 only to the namespace's own address (" + r.toString().strip() + ")";
                }
            }
            return null;
        }

        private void close() {
            pause.cancel();
            loop.unregister(fd);
            listener.close();
            for (int w : waiting) Libc.close(w);
            waiting.clear();
            if (current != null) current.end();
        }
    }

    /** The client being served: the tables written to it, then its update read as it comes. */
    private static final class Client implements Handler {
        private final Server server;
        private final int fd;
        private final Timer timeout = new Timer(this::timedOut);
        private final byte[] update = new byte[ControlProtocol.MAX_UPDATE];
        private int length;
        private byte[] greeting;
        private int written;
        private boolean ended;

        Client(Server server, int fd) {
            this.server = server;
            this.fd = fd;
        }

        /** Starts serving: the tables written as the socket takes them. */
        void greet() {
            greeting = ControlProtocol.greeting(server.tables());
            server.loop.register(fd, Epoll.OUT, this);
            server.loop.schedule(timeout, server.loop.clock().now() + CLIENT_TIMEOUT_NANOS);
            send();
        }

        @Override
        public void onEvents(int events) {
            if (greeting != null) {
                send();
                return;
            }
            MemorySegment buffer = MemorySegment.ofArray(update);
            while (true) {
                if (length == update.length) {
                    fail("more bytes than an update can have");
                    return;
                }
                int n = Libc.read(fd, buffer, length, update.length - length);
                if (n == -Errno.EAGAIN) return;
                if (n < 0) {
                    end();
                    return;
                }
                if (n == 0) {
                    if (length > 0) Log.warn("control socket: the client closed in the middle of an update, which is left out");
                    end(); // a client that only read the tables
                    return;
                }
                length += n;
                switch (ControlProtocol.parseUpdate(update, length, Set.of(ControlProtocol.PIF_HOST, ControlProtocol.PIF_SPLICE))) {
                    case ControlProtocol.Incomplete i -> { }
                    case ControlProtocol.Malformed m -> {
                        fail(m.why());
                        return;
                    }
                    case ControlProtocol.Complete u -> {
                        server.apply(u.tables());
                        end();
                        return;
                    }
                }
            }
        }

        /** Writes what is left of the greeting; a client gone is ended. */
        private void send() {
            while (written < greeting.length) {
                int n = Sockets.send(fd, MemorySegment.ofArray(greeting), written, greeting.length - written, Sockets.MSG_NOSIGNAL);
                if (n == -Errno.EAGAIN) return;
                if (n < 0) {
                    end();
                    return;
                }
                written += n;
            }
            greeting = null;
            server.loop.modify(fd, Epoll.IN);
        }

        private void fail(String why) {
            Log.warn("control socket: client dropped: " + why);
            end();
        }

        private void timedOut() {
            Log.warn("control socket: client dropped: no whole update within " + CLIENT_TIMEOUT_NANOS / 1_000_000_000L + " s");
            end();
        }

        void end() {
            if (ended) return;
            ended = true;
            server.loop.schedule(timeout, Long.MAX_VALUE);
            server.loop.unregister(fd);
            Libc.close(fd);
            server.done(this);
        }
    }
}
