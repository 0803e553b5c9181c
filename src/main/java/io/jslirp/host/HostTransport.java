package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;

import java.lang.foreign.MemorySegment;

/** Carries the guest's TCP and UDP flows over host sockets. */
public final class HostTransport implements Transport {
    private final TcpNat tcp;
    private final UdpNat udp;

    public HostTransport(EventLoop loop, Stack stack, OutboundPolicy policy, TcpConfig tcpConfig, long udpIdleTimeoutNanos) {
        this.tcp = new TcpNat(loop, stack, policy, tcpConfig);
        this.udp = new UdpNat(loop, stack, policy, udpIdleTimeoutNanos);
    }

    @Override
    public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
        tcp.segment(frame, offset, length, source, destination);
    }

    @Override
    public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
        udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    /** Resets every TCP connection and closes every UDP flow. */
    public void shutdown() {
        tcp.resetAll();
        udp.closeAll();
    }
}
