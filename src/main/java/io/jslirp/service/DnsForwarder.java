package io.jslirp.service;

import io.jslirp.nat.Family;
import io.jslirp.nat.Unreachable;
import io.jslirp.policy.Nameserver;
import io.jslirp.policy.NameserverTries;
import io.jslirp.policy.DnsServers;
import io.jslirp.policy.Nameservers;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.stack.GuestOutput;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The DNS addresses' service (port 53 of 10.0.2.3 and fd00::3): each guest query over UDP goes, unchanged (so with the
 * guest's query ID), to one nameserver of resolv.conf at a time through its own connected host
 * socket; when that nameserver refuses (ICMP error) or is silent for {@link Nameservers#ATTEMPT_TIMEOUT_NANOS},
 * the query goes to the next one. The nameserver that answered last is asked first next time.
 * TCP connections to the DNS address are ordinary TCP flows of {@code nat.TcpNat}
 * that take the nameservers in the same order ({@link NameserverTries}).
 */
public final class DnsForwarder {
    static final int PORT = Nameservers.PORT;
    /** Queries waiting for an answer at once; more are dropped, as a busy resolver would. */
    private static final int MAX_PENDING = 256;

    private final Reactor loop;
    private final Clock clock;
    private final HostSockets sockets;
    private final Counters counters;
    private final DnsServers nameservers;
    private final ArrayDeque<Query> idle = new ArrayDeque<>();
    private final List<Query> pending = new ArrayList<>();

    public DnsForwarder(Reactor loop, HostSockets sockets, Counters counters, DnsServers nameservers) {
        this.loop = loop;
        this.clock = loop.clock();
        this.sockets = sockets;
        this.counters = counters;
        this.nameservers = nameservers;
    }

    /** A query of len bytes at off in f, from guest:guestPort to family's DNS address. */
    public void query(Family family, MemorySegment f, long off, int len, int guest, int guestPort) {
        counters.dnsQueries++;
        if (nameservers.of(family.ipv6()).isEmpty() || pending.size() >= MAX_PENDING) {
            counters.dnsUnanswered++;
            return;
        }
        Query q = idle.isEmpty() ? new Query() : idle.pop();
        q.start(family, f, off, len, guest, guestPort);
    }

    /** Drops every pending query (shutdown). */
    public void closeAll() {
        for (Query q : List.copyOf(pending)) q.finish();
    }

    /** One guest query on its way through the nameservers; reused for later queries. */
    private final class Query implements Handler {
        private final Timer timer = new Timer(this::timedOut);
        /** The way through each version's nameservers; tries is the one of the query's version. */
        private final NameserverTries tries4 = new NameserverTries(nameservers.of(false)), tries6 = new NameserverTries(nameservers.of(true));
        private NameserverTries tries = tries4;
        private Family family;
        private MemorySegment message = MemorySegment.NULL;
        private int length, guest, guestPort;
        private int fd = -1;
        /** Why the latest nameserver failed (an errno), 0 for silence. */
        private int lastError;

        void start(Family family, MemorySegment f, long off, int len, int guest, int guestPort) {
            this.family = family;
            this.tries = family.ipv6() ? tries6 : tries4;
            if (message.byteSize() < len) message = Arena.ofAuto().allocate(Math.max(512, len));
            MemorySegment.copy(f, off, message, 0, len);
            this.length = len;
            this.guest = guest;
            this.guestPort = guestPort;
            family.retain(guest);
            tries.restart();
            lastError = 0;
            pending.add(this);
            tryNext();
        }

        /** Sends the query to the next nameserver not tried yet, or gives up after the last. */
        private void tryNext() {
            closeSocket();
            for (Nameserver ns = tries.next(); ns != null; ns = tries.next()) {
                if (tries.retrying()) counters.dnsRetries++;
                int s = ns.socket(sockets, false);
                if (s < 0) {
                    lastError = -s;
                    continue;
                }
                int r = ns.connect(sockets, s);
                if (r == 0) r = sockets.write(s, message, 0, length);
                if (r < 0) {
                    sockets.close(s);
                    lastError = -r;
                    Log.debug(() -> "dns: nameserver " + tries.current() + " failed: " + Errno.describe(lastError));
                    continue;
                }
                fd = s;
                loop.register(fd, Epoll.IN, this);
                loop.schedule(timer, clock.now() + Nameservers.ATTEMPT_TIMEOUT_NANOS);
                return;
            }
            giveUp();
        }

        @Override
        public void onEvents(int events) {
            GuestOutput out = family.output();
            int n = sockets.read(fd, out.frame(), out.udpPayloadOffset(), out.maxUdpPayload());
            if (n == -Errno.EAGAIN) return;
            if (n < 0) {
                lastError = -n; // the nameserver's ICMP error, e.g. port unreachable
                Log.debug(() -> "dns: nameserver " + tries.current() + " failed: " + Errno.describe(lastError));
                tryNext();
                return;
            }
            tries.answered();
            out.sendUdp(family.dns(), PORT, guest, guestPort, n);
            finish();
        }

        private void timedOut() {
            lastError = 0;
            Log.debug(() -> "dns: nameserver " + tries.current() + " did not answer in time");
            tryNext();
        }

        /**
         * Every nameserver failed: when the last one refused, the guest gets the ICMP error (its
         * resolver fails at once); after silence it gets nothing, as from a silent server.
         */
        private void giveUp() {
            counters.dnsUnanswered++;
            int code = Unreachable.code(lastError, true);
            if (code >= 0) {
                long udpHead = ((long) guestPort << 48) | ((long) PORT << 32) | ((long) (Udp.HEADER_LENGTH + length) << 16);
                family.sendUnreachable(code, Ipv4.PROTO_UDP, guest, family.dns(), udpHead);
            }
            finish();
        }

        void finish() {
            closeSocket();
            loop.schedule(timer, Long.MAX_VALUE);
            pending.remove(this);
            idle.push(this);
            family.release(guest);
        }

        private void closeSocket() {
            if (fd < 0) return;
            loop.unregister(fd);
            sockets.close(fd);
            fd = -1;
        }
    }
}
