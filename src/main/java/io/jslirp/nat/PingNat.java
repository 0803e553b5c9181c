package io.jslirp.nat;

import io.jslirp.policy.OutboundPolicy;

import io.jslirp.loop.Reactor;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.FlowTable;
import io.jslirp.util.Log;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The guest's pings to hosts beyond the virtual network, IPv4 and IPv6 (the gateway and the DNS
 * address answer in the stack themselves): one unprivileged ICMP or ICMPv6 socket (a "ping
 * socket", allowed for both versions by net.ipv4.ping_group_range) per (guest address, echo
 * identifier, destination), closed after an idle timeout. The kernel gives each socket its own
 * identifier; replies get the guest's back. ICMPv6's echo messages have ICMP's layout, so one
 * codec reads both. Addresses are handles of the engine's {@link io.jslirp.util.AddressBook}.
 */
public final class PingNat {
    /** The flows' datagrams toward their host sockets, sent at the flush, and those received, many per system call. */
    private final DatagramBatch batch;

    /** End of the loop iteration: the guest's datagrams go to their host sockets. */
    public void flush() {
        if (batch.pending()) batch.flush();
    }

    private final Reactor loop;
    private final HostSockets sockets;
    /** What the flows share, made once. */
    private final DatagramFlow.Shared shared;
    private final Counters counters;
    private final FlowTable<Flow> flows = new FlowTable<>(16);
    private boolean refusalLogged;

    public PingNat(Reactor loop, HostSockets sockets, Counters counters, long idleTimeoutNanos) {
        this.loop = loop;
        this.sockets = sockets;
        this.batch = new DatagramBatch(sockets);
        this.shared = new DatagramFlow.Shared(loop, sockets, batch, idleTimeoutNanos);
        this.counters = counters;
    }

    /** An echo request by family, read once (see {@link io.jslirp.stack.Transport#icmpEcho}). */
    public void echo(Family family, IcmpEcho e) {
        if (e.code() != 0) { // the kernel sends only code 0
            counters.unsupported++;
            return;
        }
        int src = e.source(), id = e.identifier(), dst = e.destination();
        Flow flow = flows.get(src, id, dst, 0);
        long head = ((long) id << 16) | e.sequence(); // identifier and sequence, for an ICMP error's quote
        if (flow == null) {
            flow = open(family, src, id, dst, head);
            if (flow == null) return;
        }
        flow.lastHead = head;
        flow.send(e.frame(), e.offset(), e.length());
    }

    private Flow open(Family family, int src, int id, int dst, long head) {
        int target = family.target(dst);
        if (target == OutboundPolicy.UNREACHABLE) {
            counters.unsupported++;
            return null;
        }
        int refusal = OutboundPolicy.refusalCode(target);
        if (refusal >= 0) {
            counters.policyRefused++;
            family.sendUnreachable(refusal, family.icmpProtocol(), src, dst, echoHead(family, head));
            return null;
        }
        int fd = family.pingSocket();
        if (fd < 0) {
            counters.unsupported++;
            if (!refusalLogged) {
                refusalLogged = true;
                Log.warn("cannot ping " + family.format(dst) + " for the guest (" + Errno.describe(-fd) + "): only the gateway answers ping."
                        + (fd == -Errno.EACCES ? " Ping sockets need the group of jslirp's user in net.ipv4.ping_group_range,"
                        + " e.g. sysctl -w net.ipv4.ping_group_range='0 2147483647'" : ""));
            }
            return null;
        }
        int r = sockets.connect(fd, family.addresses().hi(target), family.addresses().lo(target), 0);
        if (r < 0) { // no route: the guest hears it as from a router
            sockets.close(fd);
            unreachable(family, -r, src, dst, head);
            return null;
        }
        Flow flow = new Flow(family, fd, src, id, dst);
        flows.put(src, id, dst, 0, flow);
        loop.register(fd, Epoll.IN, flow);
        counters.pingFlows++;
        Log.debug(() -> flow + " opened");
        return flow;
    }

    /**
     * Passes a host error for the guest's echo request on as a router would: ICMP destination
     * unreachable quoting the request's type, identifier and sequence (what ping matches it by).
     */
    private static void unreachable(Family family, int errno, int guest, int remote, long head) {
        int code = Unreachable.code(errno, false);
        if (code < 0) return;
        family.sendUnreachable(code, family.icmpProtocol(), guest, remote, echoHead(family, head));
    }

    /** The first 8 bytes of an echo request (checksum 0), as an ICMP error quotes them. */
    private static long echoHead(Family family, long idAndSequence) {
        return ((long) family.echoRequestType() << 56) | idAndSequence;
    }

    public void closeAll() {
        List<Flow> all = new ArrayList<>();
        flows.forEach(all::add);
        all.forEach(Flow::close);
    }

    private final class Flow extends DatagramFlow {
        final int guestId;
        /** Bytes 4-7 of the guest's latest echo request (identifier, sequence). */
        long lastHead;

        Flow(Family family, int fd, int guestAddress, int guestId, int remoteAddress) {
            super(shared, family, fd, guestAddress, remoteAddress);
            this.guestId = guestId;
        }

        @Override
        long offset(GuestOutput out) {
            return out.icmpOffset();
        }

        /** The largest IP payload the frame takes. */
        @Override
        int room(GuestOutput out) {
            return out.maxUdpPayload() + Udp.HEADER_LENGTH;
        }

        /** An echo reply (ICMP header and data, as the ping socket gives it) goes on with the guest's identifier put back. */
        @Override
        boolean received(GuestOutput out, int n) {
            MemorySegment frame = out.frame();
            long at = out.icmpOffset();
            if (n < Icmp.HEADER_LENGTH || Icmp.type(frame, at) != family.echoReplyType()) return false;
            Icmp.setEchoId(frame, at, guestId);
            out.sendIcmp(remoteAddress, guestAddress, n);
            return true;
        }

        /** The host's ICMP error (unreachable host or network) for an earlier request. */
        @Override
        void reportError(int errno) {
            unreachable(family, errno, guestAddress, remoteAddress, lastHead);
        }

        @Override
        void forget() {
            flows.remove(guestAddress, guestId, remoteAddress, 0);
        }

        @Override
        public String toString() {
            return "ping " + family.format(guestAddress) + " id " + guestId + " -> " + family.format(remoteAddress);
        }
    }
}
