package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.tcp.FlowAddresses;

import io.jslirp.loop.Reactor;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.Log;
import io.jslirp.wire.Icmp;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;

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
    private final Flows flows;
    private boolean refusalLogged;

    public PingNat(NatContext context) {
        this.loop = context.loop();
        this.sockets = context.sockets();
        this.flows = context.flows();
        this.batch = new DatagramBatch(sockets);
        this.shared = new DatagramFlow.Shared(context, batch);
        this.counters = context.counters();
    }

    /**
     * An echo request (read once, see {@link io.jslirp.stack.Transport#icmpEcho}) for found, the
     * table's ping flow of its guest side (guest, identifier, destination): sent on.
     */
    public void echo(Flow found, IcmpEcho e) {
        if (!valid(e)) return;
        PingFlow flow = (PingFlow) found;
        flow.lastHead = head(e);
        flow.send(e.frame(), e.offset(), e.length());
    }

    /**
     * An echo request by family that no flow has: a new flow to where {@link Destinations} decided
     * it goes (a host address), or its refusal (silence, or ICMP for the rules' refusal).
     */
    public void open(Family family, IcmpEcho e, long destination) {
        if (!valid(e)) return;
        int src = e.source(), id = e.identifier(), dst = e.destination();
        long head = head(e);
        int what = Destinations.what(destination);
        if (what == Destinations.REFUSED) {
            counters.policyRefused++;
            family.sendUnreachable(Destinations.value(destination), family.icmpProtocol(), src, dst, echoHead(family, head));
            return;
        }
        if (what != Destinations.HOST) {
            counters.unsupported++;
            return;
        }
        int target = Destinations.value(destination);
        int fd = family.pingSocket();
        if (fd < 0) {
            counters.unsupported++;
            if (!refusalLogged) {
                refusalLogged = true;
                Log.warn("cannot ping " + family.format(dst) + " for the guest (" + Errno.describe(-fd) + "): only the gateway answers ping."
                        + (fd == -Errno.EACCES ? " Ping sockets need the group of jslirp's user in net.ipv4.ping_group_range,"
                        + " e.g. sysctl -w net.ipv4.ping_group_range='0 2147483647'" : ""));
            }
            return;
        }
        int r = sockets.connect(fd, family.addresses().hi(target), family.addresses().lo(target), 0);
        if (r < 0) { // no route: the guest hears it as from a router
            sockets.close(fd);
            unreachable(family, -r, src, dst, head);
            return;
        }
        PingFlow flow = new PingFlow(family, fd, new FlowAddresses(src, id, dst, 0), target);
        flows.add(flow, State.OPEN, loop.clock().now());
        loop.register(fd, Epoll.IN, flow);
        echo(flow, e);
    }

    /** Whether the kernel can send it: only code 0. */
    private boolean valid(IcmpEcho e) {
        if (e.code() == 0) return true;
        counters.unsupported++;
        return false;
    }

    /** Bytes 4-7 of the echo request: identifier and sequence, for an ICMP error's quote. */
    private static long head(IcmpEcho e) {
        return ((long) e.identifier() << 16) | e.sequence();
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

    /** Closes every flow of this NAT (shutdown). */
    public void closeAll() {
        for (Flow f : flows.all(Kind.PING)) ((PingFlow) f).close();
    }

    /** A ping flow: its guest side's ports are the guest's echo identifier and 0. */
    private final class PingFlow extends DatagramFlow {
        /** Bytes 4-7 of the guest's latest echo request (identifier, sequence). */
        long lastHead;

        /** A ping flow whose socket is connected to target (a handle). */
        PingFlow(Family family, int fd, FlowAddresses addresses, int target) {
            super(shared, Kind.PING, family, fd, addresses);
            this.hostAddress = target;
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
            Icmp.setEchoId(frame, at, guestPort);
            out.sendIcmp(remoteAddress, guestAddress, n);
            toGuest += n;
            return true;
        }

        /** The host's ICMP error (unreachable host or network) for an earlier request. */
        @Override
        void reportError(int errno) {
            unreachable(family, errno, guestAddress, remoteAddress, lastHead);
        }
    }
}
