package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.stack.Counters;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.HostSockets;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.util.Log;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;
import io.jslirp.wire.UdpDatagram;

/**
 * The guest's UDP flows of both IP versions: one connected host socket of the flow's version per
 * (guest address and port, destination address and port), closed after an idle timeout. Replies
 * go back to the guest from the address it sent to. The flow limit holds for both versions together.
 */
public final class UdpNat {
    /** The flows' datagrams toward their host sockets, sent at the flush, and those received, many per system call. */
    private final DatagramBatch batch;

    private final Reactor loop;
    private final Clock clock;
    private final HostSockets sockets;
    private final Limits limits;
    private final Counters counters;
    private final LimitWarning flowLimit;
    private final LimitWarning noDescriptors = new LimitWarning("open files (ulimit -n) for UDP flows");
    private final Flows flows;
    /** What the flows share, made once. */
    private final DatagramFlow.Shared shared;

    public UdpNat(NatContext context) {
        this.loop = context.loop();
        this.clock = loop.clock();
        this.sockets = context.sockets();
        this.flows = context.flows();
        this.batch = new DatagramBatch(sockets);
        this.shared = new DatagramFlow.Shared(context, batch);
        this.limits = context.limits();
        this.flowLimit = new LimitWarning(limits.udpFlows() + " UDP flows (--max-udp-flows)");
        this.counters = context.counters();
    }

    /** End of the loop iteration: the guest's datagrams go to their host sockets. */
    public void flush() {
        if (batch.pending()) batch.flush();
    }

    /**
     * A datagram from the guest (read once, see {@link io.jslirp.stack.Transport#udp}) for found,
     * the table's UDP flow of its guest side: returns whether it is one of this NAT's, and then sent.
     */
    public boolean fromGuest(Flow found, UdpDatagram d) {
        if (!(found instanceof UdpFlow flow)) return false;
        flow.lastLength = d.payloadLength();
        flow.send(d.frame(), d.payloadOffset(), d.payloadLength());
        return true;
    }

    /**
     * A datagram from the guest by family that no flow has: a new flow to where {@link Destinations}
     * decided it goes (a host address), or its refusal (silence, or ICMP for the rules' refusal).
     */
    public void open(Family family, UdpDatagram d, long destination) {
        int src = d.source(), srcPort = d.sourcePort(), dst = d.destination(), dstPort = d.destinationPort();
        int len = d.payloadLength();
        int what = Destinations.what(destination);
        if (what == Destinations.REFUSED) {
            counters.policyRefused++;
            family.sendUnreachable(Destinations.value(destination), Ipv4.PROTO_UDP, src, dst, udpHead(srcPort, dstPort, len));
            return;
        }
        if (what != Destinations.HOST) {
            counters.unsupported++;
            return;
        }
        LimitWarning limit = flows.size(Kind.UDP) >= limits.udpFlows() ? flowLimit : null;
        int fd = limit == null ? family.udpSocket() : -1;
        if (fd < 0) {
            if (limit == null && !Errno.isDescriptorLimit(-fd)) {
                Log.warn("cannot open a UDP socket: " + Errno.describe(-fd));
                return;
            }
            counters.refusedAtLimit++;
            (limit != null ? limit : noDescriptors).refused(clock.now());
            family.sendUnreachable(Icmpv4.CODE_ADMIN_PROHIBITED, Ipv4.PROTO_UDP, src, dst, udpHead(srcPort, dstPort, len));
            return;
        }
        int target = Destinations.value(destination);
        int r = family.connect(fd, target, dstPort);
        if (r < 0) {
            sockets.close(fd);
            counters.unsupported++;
            return;
        }
        UdpFlow flow = new UdpFlow(family, fd, new FlowAddresses(src, srcPort, dst, dstPort), target);
        flows.add(flow, State.OPEN, clock.now());
        loop.register(fd, Epoll.IN, flow);
        fromGuest(flow, d);
    }

    /** The first 8 bytes of a UDP header (checksum 0), as an ICMP error quotes them. */
    private static long udpHead(int sourcePort, int destinationPort, int payloadLength) {
        return ((long) sourcePort << 48) | ((long) destinationPort << 32) | ((long) (Udp.HEADER_LENGTH + payloadLength) << 16);
    }

    /** Closes every flow of this NAT (shutdown). */
    public void closeAll() {
        for (Flow f : flows.all(Kind.UDP)) {
            if (f instanceof UdpFlow flow) flow.close();
        }
    }

    private final class UdpFlow extends DatagramFlow {
        /** Payload length of the guest's latest datagram, for the header an ICMP error quotes. */
        int lastLength;

        /**
         * A flow between the guest's and the remote's ends of addresses, its host socket fd
         * connected to target (the remote, or the host's loopback for the gateway: a handle).
         */
        UdpFlow(Family family, int fd, FlowAddresses addresses, int target) {
            super(shared, Kind.UDP, family, fd, addresses);
            this.hostAddress = target;
            this.hostPort = remotePort;
        }

        @Override
        long offset(GuestOutput out) {
            return out.udpPayloadOffset();
        }

        @Override
        int room(GuestOutput out) {
            return out.maxUdpPayload();
        }

        @Override
        boolean coalesces(GuestOutput out) {
            return out.offloadsUdp();
        }

        @Override
        boolean receivedSegments(GuestOutput out, int total, int segmentSize) {
            if (!out.sendUdpSegments(remoteAddress, remotePort, guestAddress, guestPort, total, segmentSize)) return false;
            loop.moved(total);
            toGuest += total;
            return true;
        }

        @Override
        boolean received(GuestOutput out, int n) {
            loop.moved(n);
            out.sendUdp(remoteAddress, remotePort, guestAddress, guestPort, n);
            toGuest += n;
            return true;
        }

        /**
         * Passes an ICMP error the host socket reported on to the guest, as a router would: a
         * closed port gives port unreachable (the guest's socket sees "connection refused").
         */
        @Override
        void reportError(int errno) {
            int code = Unreachable.code(errno, true);
            if (code < 0) return;
            family.sendUnreachable(code, Ipv4.PROTO_UDP, guestAddress, remoteAddress, udpHead(guestPort, remotePort, lastLength));
        }
    }
}
