package io.jslirp.nat;

import io.jslirp.policy.OutboundPolicy;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
import io.jslirp.stack.Counters;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.HostSockets;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.util.FlowTable;
import io.jslirp.util.Log;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;
import io.jslirp.wire.UdpDatagram;

import java.util.function.Consumer;

/**
 * The guest's UDP flows of both IP versions: one connected host socket of the flow's version per
 * (guest address and port, destination address and port), closed after an idle timeout. Replies
 * go back to the guest from the address it sent to. The flow limit holds for both versions together.
 */
public final class UdpNat {
    /** The flows' datagrams toward their host sockets, sent at the flush, and those received, many per system call. */
    private final DatagramBatch batch;

    /** End of the loop iteration: the guest's datagrams go to their host sockets. */
    public void flush() {
        if (batch.pending()) batch.flush();
    }


    private final Reactor loop;
    private final Clock clock;
    private final HostSockets sockets;
    private final Limits limits;
    private final Counters counters;
    private final LimitWarning flowLimit;
    private final LimitWarning noDescriptors = new LimitWarning("open files (ulimit -n) for UDP flows");
    private final FlowTable<Flow> flows = new FlowTable<>(64);
    /** What the flows share, made once. */
    private final DatagramFlow.Shared shared;

    public UdpNat(Reactor loop, HostSockets sockets, Counters counters, long idleTimeoutNanos, Limits limits) {
        this.loop = loop;
        this.clock = loop.clock();
        this.sockets = sockets;
        this.batch = new DatagramBatch(sockets);
        this.shared = new DatagramFlow.Shared(loop, sockets, batch, idleTimeoutNanos);
        this.limits = limits;
        this.flowLimit = new LimitWarning(limits.udpFlows() + " UDP flows (--max-udp-flows)");
        this.counters = counters;
    }

    public int size() {
        return flows.size();
    }

    /** Whether the guest has a flow from guestAddress:guestPort to address:port (e.g. the gateway's). */
    public boolean has(int guestAddress, int guestPort, int address, int port) {
        return flows.get(guestAddress, guestPort, address, port) != null;
    }

    /** A datagram from the guest by family, read once (see {@link io.jslirp.stack.Transport#udp}). */
    public void datagram(Family family, UdpDatagram d) {
        int src = d.source(), srcPort = d.sourcePort(), dst = d.destination(), dstPort = d.destinationPort();
        int len = d.payloadLength();
        Flow flow = flows.get(src, srcPort, dst, dstPort);
        if (flow == null) {
            int target = family.target(dst);
            if (target == OutboundPolicy.UNREACHABLE) {
                counters.unsupported++;
                return;
            }
            int refusal = OutboundPolicy.refusalCode(target);
            if (refusal >= 0) {
                counters.policyRefused++;
                family.sendUnreachable(refusal, Ipv4.PROTO_UDP, src, dst, udpHead(srcPort, dstPort, len));
                return;
            }
            LimitWarning limit = flows.size() >= limits.udpFlows() ? flowLimit : null;
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
            int r = family.connect(fd, target, dstPort);
            if (r < 0) {
                sockets.close(fd);
                counters.unsupported++;
                return;
            }
            flow = new Flow(family, fd, new FlowAddresses(src, srcPort, dst, dstPort), target);
            flows.put(src, srcPort, dst, dstPort, flow);
            loop.register(fd, Epoll.IN, flow);
            counters.udpFlows++;
            Flow opened = flow;
            Log.debug(() -> opened + " opened");
        }
        flow.lastLength = len;
        flow.send(d.frame(), d.payloadOffset(), len);
    }

    /** The first 8 bytes of a UDP header (checksum 0), as an ICMP error quotes them. */
    private static long udpHead(int sourcePort, int destinationPort, int payloadLength) {
        return ((long) sourcePort << 48) | ((long) destinationPort << 32) | ((long) (Udp.HEADER_LENGTH + payloadLength) << 16);
    }

    /** A snapshot of every flow. */
    public void statuses(Consumer<FlowStatus> sink) {
        long now = clock.now();
        flows.forEach(f -> sink.accept(new FlowStatus("udp", "open", false, f.family.format(f.guestAddress), f.guestPort,
                f.family.format(f.remoteAddress), f.remotePort, f.family.format(f.hostAddress), f.remotePort, f.fromGuest, f.toGuest,
                now - f.openedAt)));
    }

    public void closeAll() {
        java.util.List<Flow> all = new java.util.ArrayList<>();
        flows.forEach(all::add);
        all.forEach(Flow::close);
    }

    private final class Flow extends DatagramFlow {
        final int guestPort, remotePort;
        /** Where the host socket is connected (the remote, or the host's loopback for the gateway). */
        final int hostAddress;
        final long openedAt = clock.now();
        /** Payload bytes sent on the host socket, and received from it. */
        long fromGuest, toGuest;
        /** Payload length of the guest's latest datagram, for the header an ICMP error quotes. */
        int lastLength;

        /** A flow between the guest's and the remote's ends of addresses, its host socket fd connected to hostAddress. */
        Flow(Family family, int fd, FlowAddresses addresses, int hostAddress) {
            super(shared, family, fd, addresses.guestAddress(), addresses.remoteAddress());
            this.hostAddress = hostAddress;
            this.guestPort = addresses.guestPort();
            this.remotePort = addresses.remotePort();
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
        void sent(int n) {
            fromGuest += n;
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

        @Override
        void forget() {
            flows.remove(guestAddress, guestPort, remoteAddress, remotePort);
        }

        @Override
        public String toString() {
            return "udp " + family.format(guestAddress) + ":" + guestPort + " -> " + family.format(remoteAddress) + ":" + remotePort;
        }
    }
}
