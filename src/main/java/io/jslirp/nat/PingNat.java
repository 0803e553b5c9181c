package io.jslirp.nat;

import io.jslirp.policy.OutboundPolicy;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Clock;
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
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Icmpv4;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The guest's pings to hosts beyond the virtual network (the gateway and the DNS address answer
 * in {@code Stack} themselves): one unprivileged ICMP socket (a "ping socket", allowed by
 * net.ipv4.ping_group_range) per (guest address, echo identifier, destination), closed after an
 * idle timeout. The kernel gives each socket its own identifier; replies get the guest's back.
 * Addresses are handles of the stack's {@link io.jslirp.util.AddressBook}.
 */
public final class PingNat {
    private static final int READ_BUDGET = 64;
    private static final int MAX_MESSAGE = 65535 - Ipv4.MIN_HEADER_LENGTH;

    private final Reactor loop;
    private final Clock clock;
    private final Stack stack;
    private final OutboundPolicy policy;
    private final long idleTimeoutNanos;
    private final Counters counters;
    private final FlowTable<Flow> flows = new FlowTable<>(16);
    private boolean refusalLogged;

    public PingNat(Reactor loop, Stack stack, OutboundPolicy policy, long idleTimeoutNanos) {
        this.loop = loop;
        this.clock = loop.clock();
        this.stack = stack;
        this.policy = policy;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.counters = stack.counters();
    }

    /** An echo request of len bytes (ICMP header and data, checksum verified) at off, from src to dst. */
    public void echo(MemorySegment f, long off, int len, int src, int dst) {
        if (Icmpv4.code(f, off) != 0) { // the kernel sends only code 0
            counters.unsupported++;
            return;
        }
        int id = Icmpv4.echoId(f, off);
        Flow flow = flows.get(src, id, dst, 0);
        long head = Bytes.u32(f, off + 4) & 0xffffffffL; // identifier and sequence, for an ICMP error's quote
        if (flow == null) {
            flow = open(src, id, dst, head);
            if (flow == null) return;
        }
        flow.lastHead = head;
        int n = Libc.write(flow.fd, f, off, len); // a full socket buffer drops it, as a router would
        if (n < 0) flow.reportError(-n);
        flow.touch();
    }

    private Flow open(int src, int id, int dst, long head) {
        int target = policy.target(dst);
        if (target == OutboundPolicy.UNREACHABLE) {
            counters.unsupported++;
            return null;
        }
        int refusal = OutboundPolicy.refusalCode(target);
        if (refusal >= 0) {
            counters.policyRefused++;
            stack.sendUnreachable(refusal, Ipv4.PROTO_ICMP, src, dst, echoHead(head));
            return null;
        }
        int fd = Sockets.ping4();
        if (fd < 0) {
            counters.unsupported++;
            if (!refusalLogged) {
                refusalLogged = true;
                Log.warn("cannot ping " + stack.addresses().format(dst) + " for the guest (" + Errno.describe(-fd) + "): only the gateway answers ping."
                        + (fd == -Errno.EACCES ? " Ping sockets need the group of jslirp's user in net.ipv4.ping_group_range,"
                        + " e.g. sysctl -w net.ipv4.ping_group_range='0 2147483647'" : ""));
            }
            return null;
        }
        int r = Sockets.connect4(fd, stack.addresses().ipv4(target), 0);
        if (r < 0) { // no route: the guest hears it as from a router
            Libc.close(fd);
            unreachable(-r, src, dst, head);
            return null;
        }
        Flow flow = new Flow(fd, src, id, dst);
        flows.put(src, id, dst, 0, flow);
        stack.addresses().retain(src);
        stack.addresses().retain(dst);
        loop.register(fd, Epoll.IN, flow);
        counters.pingFlows++;
        Log.debug(() -> flow + " opened");
        return flow;
    }

    /**
     * Passes a host error for the guest's echo request on as a router would: ICMP destination
     * unreachable quoting the request's type, identifier and sequence (what ping matches it by).
     */
    private void unreachable(int errno, int guest, int remote, long head) {
        int code = Unreachable.code(errno, false);
        if (code < 0) return;
        stack.sendUnreachable(code, Ipv4.PROTO_ICMP, guest, remote, echoHead(head));
    }

    /** The first 8 bytes of an echo request (checksum 0), as an ICMP error quotes them. */
    private static long echoHead(long idAndSequence) {
        return ((long) Icmpv4.ECHO_REQUEST << 56) | idAndSequence;
    }

    public void closeAll() {
        List<Flow> all = new ArrayList<>();
        flows.forEach(all::add);
        all.forEach(Flow::close);
    }

    private final class Flow implements Handler {
        final int fd;
        final int guestAddress, guestId, remoteAddress;
        final Timer idle = new Timer(this::close);
        /** Bytes 4-7 of the guest's latest echo request (identifier, sequence). */
        long lastHead;

        Flow(int fd, int guestAddress, int guestId, int remoteAddress) {
            this.fd = fd;
            this.guestAddress = guestAddress;
            this.guestId = guestId;
            this.remoteAddress = remoteAddress;
        }

        void touch() {
            loop.schedule(idle, clock.now() + idleTimeoutNanos);
        }

        /** Echo replies (ICMP header and data, as the ping socket gives them), with the guest's identifier put back. */
        @Override
        public void onEvents(int events) {
            MemorySegment frame = stack.frame();
            long at = Stack.IP_PAYLOAD_OFFSET;
            for (int i = 0; i < READ_BUDGET; i++) {
                int n = Libc.read(fd, frame, at, MAX_MESSAGE);
                if (n == -Errno.EAGAIN) return;
                if (n < 0) {
                    reportError(-n);
                    continue;
                }
                if (n < Icmpv4.HEADER_LENGTH || Icmpv4.type(frame, at) != Icmpv4.ECHO_REPLY) continue;
                Icmpv4.setEchoId(frame, at, guestId);
                stack.sendIcmp(remoteAddress, guestAddress, n);
                touch();
            }
            loop.runAgain();
        }

        /** The host's ICMP error (unreachable host or network) for an earlier request. */
        void reportError(int errno) {
            unreachable(errno, guestAddress, remoteAddress, lastHead);
        }

        void close() {
            loop.unregister(fd);
            loop.schedule(idle, Long.MAX_VALUE);
            Libc.close(fd);
            flows.remove(guestAddress, guestId, remoteAddress, 0);
            Log.debug(() -> this + " closed");
            stack.addresses().release(guestAddress);
            stack.addresses().release(remoteAddress);
        }

        @Override
        public String toString() {
            return "ping " + stack.addresses().format(guestAddress) + " id " + guestId + " -> " + stack.addresses().format(remoteAddress);
        }
    }
}
