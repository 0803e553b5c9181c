package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.FlowTable;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Forwarded host UDP ports. Each host client of a forwarded port gets a mapping: its datagrams
 * reach the guest from the gateway and a port of the gateway's own (32768–60999), or with
 * --preserve-source from the client's own address and port (see {@link ForwardSource}), and what
 * the guest sends back there goes to that client from the forwarded socket. A mapping ends after
 * the UDP idle timeout.
 */
final class UdpForwards {
    private static final int READ_BUDGET = 64;
    private static final int MAX_PAYLOAD = 65535 - Ipv4.MIN_HEADER_LENGTH - 8;
    private static final int FIRST_GATEWAY_PORT = 32768, LAST_GATEWAY_PORT = 60999;

    private final EventLoop loop;
    private final Stack stack;
    private final long idleTimeoutNanos;
    private final Counters counters;
    private final ForwardSource forwardSource;
    /** The guest's own UDP flows, whose gateway ports a mapping must not take. */
    private final UdpNat guestFlows;
    /** Mappings by what the guest's replies carry: (guest address, guest port, source, source port). */
    private final FlowTable<Mapping> byGuestSide = new FlowTable<>(16);
    private final int[] client = new int[2];
    private int nextGatewayPort = FIRST_GATEWAY_PORT;

    UdpForwards(EventLoop loop, Stack stack, UdpNat guestFlows, ForwardSource forwardSource, long idleTimeoutNanos) {
        this.loop = loop;
        this.forwardSource = forwardSource;
        this.guestFlows = guestFlows;
        this.stack = stack;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.counters = stack.counters();
    }

    /** Binds the forward's host port; throws IllegalArgumentException (e.g. the port is taken) saying what failed. */
    HostForward open(PortForward forward, IntSupplier guestAddress) {
        if (forward.ipv6()) throw new IllegalArgumentException("forward " + forward + ": UDP from an IPv6 host address is not supported yet");
        return new Socket(forward, guestAddress);
    }

    int size() {
        return byGuestSide.size();
    }

    /**
     * Takes a datagram the guest sent when it answers a forwarded client (returns true: sent on to
     * that client), else returns false.
     */
    boolean fromGuest(MemorySegment f, long off, int len, int src, int srcPort, int dst, int dstPort) {
        Mapping m = byGuestSide.get(src, srcPort, dst, dstPort);
        if (m == null) return false;
        Sockets.sendTo4(m.socket.fd, f, off, len, m.clientAddress, m.clientPort); // a full buffer drops it, as a router would
        m.touch();
        return true;
    }

    private int freeGatewayPort(int guestAddress, int guestPort, int gateway) {
        for (int i = 0; i <= LAST_GATEWAY_PORT - FIRST_GATEWAY_PORT; i++) {
            int port = nextGatewayPort;
            nextGatewayPort = port == LAST_GATEWAY_PORT ? FIRST_GATEWAY_PORT : port + 1;
            if (free(guestAddress, guestPort, gateway, port)) return port;
        }
        return -1;
    }

    private boolean free(int guestAddress, int guestPort, int source, int port) {
        return byGuestSide.get(guestAddress, guestPort, source, port) == null && !guestFlows.has(guestAddress, guestPort, source, port);
    }

    /** The bound host socket of one forwarded port and its clients' mappings. */
    private final class Socket implements HostForward, Handler {
        final PortForward forward;
        final IntSupplier guestAddress;
        final int fd;
        /** Mappings by host client (address, port, 0, 0). */
        final FlowTable<Mapping> clients = new FlowTable<>(8);

        Socket(PortForward forward, IntSupplier guestAddress) {
            this.forward = forward;
            this.guestAddress = guestAddress;
            int s = Sockets.udp4();
            if (s < 0) throw new IllegalArgumentException("cannot create a socket for forward " + forward + ": " + Errno.describe(-s));
            int r = Sockets.bind4(s, forward.hostAddress(), forward.hostPort());
            if (r < 0) {
                Libc.close(s);
                throw new IllegalArgumentException("cannot bind " + Ipv4.format(forward.hostAddress()) + ":" + forward.hostPort()
                        + " for forward " + forward + ": " + Errno.describe(-r));
            }
            this.fd = s;
            loop.register(fd, Epoll.IN, this);
        }

        @Override
        public PortForward forward() {
            return forward;
        }

        @Override
        public void onEvents(int events) {
            MemorySegment frame = stack.frame();
            for (int i = 0; i < READ_BUDGET; i++) {
                int n = Sockets.recvFrom4(fd, frame, Stack.UDP_PAYLOAD_OFFSET, MAX_PAYLOAD, client);
                if (n == -Errno.EAGAIN) return;
                if (n < 0) continue; // an ICMP error for an earlier reply to a client: nothing to tell the guest
                Mapping m = clients.get(client[0], client[1], 0, 0);
                if (m == null && (m = open(client[0], client[1])) == null) continue;
                if (!stack.resolveGuestMac(m.guestAddress)) {
                    counters.sendDropped++; // the guest's ARP answer teaches its MAC; the client's next datagram gets through
                    continue;
                }
                stack.sendUdp(m.source, m.sourcePort, m.guestAddress, m.guestPort, n);
                m.touch();
            }
            loop.runAgain();
        }

        private Mapping open(int clientAddress, int clientPort) {
            int guest = forward.guestAddress() != 0 ? forward.guestAddress() : guestAddress.getAsInt();
            int source = forwardSource.of(clientAddress);
            int port = clientPort;
            if (source == stack.config().gateway() || !free(guest, forward.guestPort(), source, port)) {
                source = stack.config().gateway();
                port = freeGatewayPort(guest, forward.guestPort(), source);
            }
            if (port < 0) {
                Log.warn("no free port left for a forwarded UDP client of " + forward);
                return null;
            }
            Mapping m = new Mapping(this, clientAddress, clientPort, guest, forward.guestPort(), source, port);
            clients.put(clientAddress, clientPort, 0, 0, m);
            byGuestSide.put(guest, forward.guestPort(), source, port, m);
            counters.udpFlows++;
            Log.debug(() -> m + " opened");
            return m;
        }

        @Override
        public void close() {
            List<Mapping> all = new ArrayList<>();
            clients.forEach(all::add);
            all.forEach(Mapping::close);
            loop.unregister(fd);
            Libc.close(fd);
        }
    }

    /** One host client of a forwarded UDP port, and the address and port the guest sees it at. */
    private final class Mapping {
        final Socket socket;
        final int clientAddress, clientPort, guestAddress, guestPort, source, sourcePort;
        final Timer idle = new Timer(this::close);

        Mapping(Socket socket, int clientAddress, int clientPort, int guestAddress, int guestPort, int source, int sourcePort) {
            this.socket = socket;
            this.clientAddress = clientAddress;
            this.clientPort = clientPort;
            this.guestAddress = guestAddress;
            this.guestPort = guestPort;
            this.source = source;
            this.sourcePort = sourcePort;
        }

        void touch() {
            loop.schedule(idle, EventLoop.now() + idleTimeoutNanos);
        }

        void close() {
            loop.schedule(idle, Long.MAX_VALUE);
            socket.clients.remove(clientAddress, clientPort, 0, 0);
            byGuestSide.remove(guestAddress, guestPort, source, sourcePort);
            Log.debug(() -> this + " closed");
        }

        @Override
        public String toString() {
            return "forwarded udp " + Ipv4.format(clientAddress) + ":" + clientPort + " as " + Ipv4.format(source) + ":" + sourcePort
                    + " -> " + Ipv4.format(guestAddress) + ":" + guestPort;
        }
    }
}
