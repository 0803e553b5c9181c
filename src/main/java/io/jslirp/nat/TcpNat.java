package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.policy.DnsServers;
import io.jslirp.policy.NameserverTries;
import io.jslirp.policy.Nameservers;
import io.jslirp.policy.OutboundPolicy;

import io.jslirp.loop.Clock;
import io.jslirp.loop.Pacing;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.stack.TxBatch;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.Resets;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.tcp.GuestSyn;
import io.jslirp.tcp.Outcome;
import io.jslirp.tcp.TcpConnection;
import io.jslirp.tcp.TcpContext;
import io.jslirp.tcp.WindowCredit;
import io.jslirp.util.BufferPool;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpSegment;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ObjLongConsumer;

/**
 * The guest's TCP connections of both IP versions, each re-originated as a non-blocking host
 * socket of its version (each flow keeps the {@link Family} it came by). The NAT is the one that
 * acts on what a connection and its flow leave to do (send now, forget a closed one): every
 * event, the guest's segments, the host sockets' readiness and the timers, comes here and is
 * settled after the flow handled it, never from inside. Flows touched in a loop iteration are
 * flushed once at its end ({@link #flush}, which the engine runs before the link's). The limits
 * and the buffer budget hold for both versions together.
 */
public final class TcpNat {
    private static final long FIRST_SYN_TIMEOUT_NANOS = 1_000_000_000L;
    /** How long the first SYN waits for the guest's answer to an ARP request (a guest that never sent a frame). */
    private static final long ARP_WAIT_NANOS = 20_000_000L;
    /** How often the buffer pool returns the free blocks that no connection took in the meantime. */
    static final long TRIM_NANOS = 10_000_000_000L;

    private final Reactor loop;
    private final Clock clock;
    private final HostSockets sockets;
    /** Where TCP to the DNS address goes, or null with --disable-dns. */
    private final DnsServers dns;
    private final Limits limits;
    private final Counters counters;
    /** Connections whose host connect has not completed. */
    private int halfOpen;
    private final LimitWarning connectionLimit, halfOpenLimit;
    private final LimitWarning noDescriptors = new LimitWarning("open files (ulimit -n) for TCP connections");
    /** The instance's one table of flows, where this NAT's connections and dials are. */
    private final Flows flows;
    private final List<TcpFlow> dirty = new ArrayList<>();
    /**
     * Flows whose last flush sent their burst with more due ({@link Outcome#more}), still
     * marked: the next flush takes them after the flows that something new touched; and the list
     * the flush fills for the one after.
     */
    private List<TcpFlow> continuing = new ArrayList<>(), continuingNext = new ArrayList<>();
    /**
     * Whether flows flush short bursts toward the guest: told when a flow wrote the host a small
     * request whose answer the guest awaits (an interactive exchange).
     */
    private final Pacing pacing;
    private final BufferPool buffers;
    /** How many connections may have a window open to the guest at once (admission of its sending: see {@link WindowCredit}). */
    private final WindowCredit credit = new WindowCredit(WindowCredit.UNITS);
    /** The flushes so far: the credit's iterations. */
    private long flushes;
    /** Where every flow's peeks at its host socket go (a loop iteration uses them at once): the one copy of bytes toward the guest. */
    private final PeekArea peekArea;
    /** Armed while the pool keeps free blocks: after a burst, what no connection reuses goes back within two rounds. */
    private final Timer trim = new Timer(this::trimBuffers);
    private final GatewayPorts gatewayPorts = new GatewayPorts();
    /** What the connections of each IP version are made with ({@link #tcpContext}). */
    private TcpContext tcp4, tcp6;

    /**
     * @param dns          where TCP to the DNS address goes, or null with --disable-dns
     * @param bufferBudget what all connections' buffers together may grow by (see {@link BufferPool})
     * @param batch        the frames the link has not written out yet, which own the payloads sent
     *                     from where they were peeked until its flush (see {@link PeekArea})
     */
    public TcpNat(NatContext context, DnsServers dns, long bufferBudget, TxBatch batch) {
        this.loop = context.loop();
        this.flows = context.flows();
        this.sockets = context.sockets();
        this.limits = context.limits();
        this.counters = context.counters();
        this.clock = loop.clock();
        this.pacing = loop.pacing();
        this.dns = dns;
        this.connectionLimit = new LimitWarning(limits.tcpConnections() + " TCP connections (--max-connections)");
        this.halfOpenLimit = new LimitWarning(limits.halfOpen() + " TCP connections being opened (--max-half-open)");
        this.buffers = new BufferPool(bufferBudget);
        this.peekArea = new PeekArea(batch);
    }

    /**
     * A segment from the guest by family (checked and read once, see {@link io.jslirp.stack.Transport#tcp})
     * for found, the table's TCP flow of its guest side or null: returns whether it was taken; not
     * when it opens a new connection (a SYN for no flow, or one that reopens a finished one), which
     * is then for {@link #open}.
     */
    public boolean segment(Family family, Flow found, TcpSegment seg) {
        if (found instanceof TcpFlow flow) {
            if (flow.conn.reopenedBy(seg)) {
                settle(flow, flow.connecting(), flow.conn.retire(), false);
                return false;
            }
            settle(flow, flow.connecting(), flow.segment(seg, clock.now()), true);
            return true;
        }
        if (found instanceof GuestDial dial) {
            dialAnswered(dial, seg);
            return true;
        }
        if ((seg.header().flags() & (Tcp.SYN | Tcp.ACK | Tcp.RST)) == Tcp.SYN) return false;
        Resets.answer(seg, family.output());
        return true;
    }

    /**
     * A connection for the guest's SYN by family to where {@link Destinations} decided it goes
     * (the host address, the nameservers), or its refusal: a reset, or ICMP for the rules' refusal.
     */
    public void open(Family family, TcpSegment seg, long destination) {
        TcpHeader h = seg.header();
        int src = seg.source(), srcPort = h.sourcePort(), dst = seg.destination(), dstPort = h.destinationPort();
        int what = Destinations.what(destination);
        if (what == Destinations.REFUSED) {
            counters.policyRefused++;
            long tcpHead = ((long) srcPort << 48) | ((long) dstPort << 32) | (h.seq() & 0xffffffffL);
            family.sendUnreachable(Destinations.value(destination), Ipv4.PROTO_TCP, src, dst, tcpHead);
            return;
        }
        boolean toNameservers = what == Destinations.NAMESERVERS;
        int target = what == Destinations.HOST ? Destinations.value(destination) : OutboundPolicy.UNREACHABLE;
        if (what != Destinations.HOST && !toNameservers) {
            counters.tcpRefused++;
            Resets.answer(seg, family.output());
            return;
        }
        LimitWarning limit = flows.size(Kind.TCP) >= limits.tcpConnections() ? connectionLimit
                : halfOpen >= limits.halfOpen() ? halfOpenLimit : null;
        int fd = limit != null || toNameservers ? -1 : family.tcpSocket(); // the nameservers' sockets come one by one
        if (limit != null || (!toNameservers && fd < 0)) {
            if (limit == null && !Errno.isDescriptorLimit(-fd)) {
                Log.warn("cannot open a TCP socket: " + Errno.describe(-fd));
            } else {
                counters.refusedAtLimit++;
                (limit != null ? limit : noDescriptors).refused(clock.now());
            }
            counters.tcpRefused++;
            Resets.answer(seg, family.output());
            return;
        }
        if (fd >= 0) sockets.setInt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        SocketStream stream = new SocketStream(sockets, peekArea);
        TcpConnection conn = new TcpConnection(new FlowAddresses(src, srcPort, dst, dstPort),
                new GuestSyn(h.seq(), h.window(), seg.options()), ThreadLocalRandom.current().nextInt(),
                tcpContext(family), stream);
        TcpFlow flow = new TcpFlow(this, family, loop, conn, stream, new HostPeer(fd, target, dstPort, null));
        flows.add(flow, State.OPENING, clock.now());
        keepTrimming();
        halfOpen++;
        Outcome r = toNameservers ? flow.connectNameservers(new NameserverTries(dns.of(family.ipv6()))) : flow.connect(family.connect(fd, target, dstPort));
        if (flow.connecting()) pacing.hostTurn(); // the guest waits for the host's answer
        settle(flow, true, r, true);
    }

    /**
     * A host client (clientAddress:clientPort) connected to a forwarded port: open a connection to
     * guestAddress:guestPort over family, coming from the gateway or the client (see
     * {@link Family#forwardSource}). The host socket is read only once the guest has answered.
     */
    public void forward(Family family, int fd, int guestAddress, int guestPort, int clientAddress, int clientPort) {
        if (flows.size(Kind.TCP) >= limits.tcpConnections()) {
            counters.refusedAtLimit++;
            connectionLimit.refused(clock.now());
            sockets.setLingerZero(fd);
            sockets.close(fd);
            return;
        }
        int source = family.forwardSource(clientAddress);
        int port = clientPort;
        if (source == family.gateway() || !free(guestAddress, guestPort, source, port)) {
            int gateway = family.gateway();
            source = gateway;
            port = gatewayPorts.take(p -> free(guestAddress, guestPort, gateway, p));
        }
        if (port < 0) {
            Log.warn("no free port left for a forwarded connection to " + family.format(guestAddress) + ":" + guestPort);
            sockets.setLingerZero(fd);
            sockets.close(fd);
            return;
        }
        sockets.setInt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        HostPeer client = new HostPeer(fd, OutboundPolicy.UNREACHABLE, clientPort, family.format(clientAddress));
        GuestDial dial = new GuestDial(family, new FlowAddresses(guestAddress, guestPort, source, port), client,
                ThreadLocalRandom.current().nextInt());
        dial.timer = new Timer(() -> dialTimedOut(dial));
        flows.add(dial, State.OPENING, clock.now());
        if (family.output().resolveGuestMac(guestAddress)) {
            sendSyn(dial);
        } else {
            loop.schedule(dial.timer, clock.now() + ARP_WAIT_NANOS); // the SYN goes once the guest's ARP answer is in
        }
    }

    /**
     * What a connection of family is made with: its TCP parameters and output, and this NAT's
     * buffer pool and window credit; made once per family, not for each connection.
     */
    private TcpContext tcpContext(Family family) {
        TcpContext c = family.ipv6() ? tcp6 : tcp4;
        if (c == null || c.config() != family.tcp() || c.out() != family.output()) {
            c = new TcpContext(family.tcp(), buffers, family.output(), credit);
            if (family.ipv6()) tcp6 = c;
            else tcp4 = c;
        }
        return c;
    }

    private boolean free(int guestAddress, int guestPort, int source, int port) {
        return flows.find(Kind.TCP, guestAddress, guestPort, source, port) == null;
    }

    private void sendSyn(GuestDial d) {
        long now = clock.now();
        TcpContext context = tcpContext(d.family);
        if (d.syns == 0) {
            d.window = TcpConnection.dialWindow(context);
            d.unit = d.window > 0;
        }
        TcpConnection.sendSyn(context, d.addresses(), d.iss, d.window, now);
        loop.schedule(d.timer, now + (FIRST_SYN_TIMEOUT_NANOS << d.syns));
        d.syns++;
    }

    private void dialTimedOut(GuestDial d) {
        returnUnit(d); // a guest this slow to answer keeps no one else waiting (its SYN's window stays open, uncounted)
        if (d.syns < GuestDial.MAX_SYNS) {
            sendSyn(d);
            return;
        }
        Log.debug(() -> flows.describe(d) + ": the guest did not answer");
        endDial(d, true);
    }

    /** The guest's answer to our SYN: a SYN-ACK makes the connection, a RST refuses it. */
    private void dialAnswered(GuestDial d, TcpSegment seg) {
        TcpHeader h = seg.header();
        int flags = h.flags();
        boolean acksOurSyn = (flags & Tcp.ACK) != 0 && h.ack() == d.iss + 1;
        if ((flags & Tcp.RST) != 0) {
            if (acksOurSyn) {
                Log.debug(() -> flows.describe(d) + ": refused by the guest");
                endDial(d, true);
            }
            return;
        }
        if ((flags & (Tcp.SYN | Tcp.ACK)) != (Tcp.SYN | Tcp.ACK) || !acksOurSyn) return;
        loop.schedule(d.timer, Long.MAX_VALUE);
        SocketStream stream = new SocketStream(sockets, peekArea);
        TcpConnection conn = TcpConnection.openedToGuest(d.addresses(), new GuestSyn(h.seq(), h.window(), seg.options()), d.iss,
                d.window, d.unit, tcpContext(d.family), stream);
        TcpFlow flow = new TcpFlow(this, d.family, loop, conn, stream,
                new HostPeer(d.fd, OutboundPolicy.UNREACHABLE, d.hostPort(), d.client));
        flows.replace(d, flow, State.OPEN);
        keepTrimming();
        markDirty(flow); // the handshake's last ACK goes at the flush
    }

    /** The credit's unit d's SYN took comes back, if it still has it. */
    private void returnUnit(GuestDial d) {
        if (!d.unit) return;
        d.unit = false;
        TcpConnection.dialUnitReturned(tcpContext(d.family));
    }

    /** Gives up a dial; the host client gets a RST when reset. */
    private void endDial(GuestDial d, boolean reset) {
        returnUnit(d);
        flows.transition(d, State.CLOSED);
        loop.schedule(d.timer, Long.MAX_VALUE);
        if (reset) sockets.setLingerZero(d.fd);
        sockets.close(d.fd);
    }

    // ---- the loop's events for a flow, which reach the NAT through it ----

    /** flow's host socket is ready (events). */
    void hostEvents(TcpFlow flow, int events) {
        boolean connecting = flow.connecting();
        settle(flow, connecting, flow.hostEvents(events), true);
    }

    /** flow's connection timer came due. */
    void timer(TcpFlow flow) {
        settle(flow, flow.connecting(), flow.onTimer(), true);
    }

    /** The nameserver flow tries did not answer its connect in time. */
    void nameserverSilent(TcpFlow flow) {
        settle(flow, flow.connecting(), flow.nameserverSilent(), true);
    }

    /**
     * Does what an event on flow left to do (r): the segments due
     * at once go out, a closed connection is forgotten, a live one is flushed at the end of the
     * iteration (when mark). wasConnecting: whether its host connect was in progress before the event.
     */
    private void settle(TcpFlow flow, boolean wasConnecting, Outcome r, boolean mark) {
        if (r.sendNow()) flow.conn.sendNow();
        if (r.closed()) remove(flow, r.resetHost());
        else if (mark && flow.markDirty()) dirty.add(flow);
        if (wasConnecting && !flow.connecting()) {
            halfOpen--;
            flows.transition(flow, State.OPEN); // not after its close
        }
    }

    private void markDirty(TcpFlow flow) {
        if (flow.markDirty()) dirty.add(flow);
    }

    /** Forgets a closed connection: its host socket (reset for the host peer when reset), its addresses. */
    private void remove(TcpFlow flow, boolean reset) {
        flow.close(reset);
        if (reset) Log.debug(() -> flow.describe() + ": reset");
        flows.transition(flow, State.CLOSED);
    }

    /**
     * End of the loop iteration: each flow touched writes toward the host once, then sends toward
     * the guest; flows that still had more for the guest at the last flush come after them.
     */
    public void flush() {
        long now = clock.now();
        credit.iteration(++flushes, pacing.linkBacklogged(), now);
        List<TcpFlow> carried = continuing;
        continuing = continuingNext;
        for (int i = 0; i < dirty.size(); i++) flushFlow(dirty.get(i), now);
        dirty.clear();
        for (int i = 0; i < carried.size(); i++) flushFlow(carried.get(i), now);
        carried.clear();
        continuingNext = carried;
        // Then the connections whose turn came, as the flushes above gave units back: a window update each.
        Object owner;
        for (int turns = credit.waiting(); turns > 0 && (owner = credit.serve()) != null; turns--) {
            TcpFlow flow = (TcpFlow) owner;
            if (flow.markDirty()) flushFlow(flow, now);
        }
        if (!continuing.isEmpty()) loop.runAgain();
    }

    private void flushFlow(TcpFlow flow, long now) {
        if (!flow.dirty()) return; // closed since it was listed, or flushed already by this pass
        Outcome r = flow.flush(now, pacing.shortBursts(now));
        if (flow.takeRequested()) pacing.requestWritten(now);
        settle(flow, flow.connecting(), r, false);
        if (flow.lingering()) flows.transition(flow, State.CLOSING);
        if (r.more() && !r.closed() && flow.markDirty()) continuing.add(flow);
    }

    /**
     * The pool's trim runs every {@link #TRIM_NANOS} while connections exist or blocks lie free:
     * armed when a connection opens, not looked at by every flush (a branch a VM's first flush took
     * the other way from the warm-up's, undoing C2's code of the loop's end).
     */
    private void keepTrimming() {
        if (trim.deadline() == Long.MAX_VALUE) loop.schedule(trim, clock.now() + TRIM_NANOS);
    }

    private void trimBuffers() {
        buffers.trim();
        if (buffers.freeBytes() > 0 || flows.size(Kind.TCP) > 0) loop.schedule(trim, clock.now() + TRIM_NANOS);
    }

    /** The window credit's figures, by name (see {@link WindowCredit#figures}). */
    public void figures(ObjLongConsumer<String> sink) {
        credit.figures(sink);
    }

    /** The connections' buffer memory (for tests and status): in use, and kept free for reuse. */
    public BufferPool buffers() {
        return buffers;
    }

    /** Resets every connection (shutdown): guests and host peers both see the reset. */
    public void resetAll() {
        for (Flow f : flows.all(Kind.TCP)) {
            if (f instanceof TcpFlow flow) settle(flow, flow.connecting(), flow.abort(), false);
            else endDial((GuestDial) f, true);
        }
    }
}
