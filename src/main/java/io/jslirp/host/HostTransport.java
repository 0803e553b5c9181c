package io.jslirp.host;

import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.tcp.TcpConfig;
import io.jslirp.wire.Tftp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Carries the guest's TCP and UDP flows over host sockets, and the host ports forwarded to the guest. */
public final class HostTransport implements Transport {
    private final EventLoop loop;
    private final Stack stack;
    private final TcpNat tcp;
    private final UdpNat udp;
    /** Null unless a TFTP directory is served, when the gateway's TFTP port is answered here. */
    private TftpServer tftp;
    private final UdpForwards udpForwards;
    private final List<HostForward> forwards = new ArrayList<>();

    public HostTransport(EventLoop loop, Stack stack, OutboundPolicy policy, TcpConfig tcpConfig, long udpIdleTimeoutNanos,
                         Limits limits) {
        this.loop = loop;
        this.stack = stack;
        this.tcp = new TcpNat(loop, stack, policy, tcpConfig, limits);
        this.udp = new UdpNat(loop, stack, policy, udpIdleTimeoutNanos, limits);
        this.udpForwards = new UdpForwards(loop, stack, udp, udpIdleTimeoutNanos);
    }

    /**
     * Forwards a host port to the guest: TCP clients, or each UDP client's datagrams, reach the
     * forward's guest address (by default the one the guest last sent from) at its guest port,
     * from the gateway. Throws IllegalArgumentException when the host port cannot be bound.
     */
    public HostForward forward(PortForward forward) {
        HostForward f = forward.protocol() == PortForward.Protocol.TCP
                ? new ForwardListener(loop, tcp, forward, stack::guestAddress)
                : udpForwards.open(forward, stack::guestAddress);
        forwards.add(f);
        return f;
    }

    /** Closes a forwarded port: no new clients; TCP connections made through it carry on. */
    public void unforward(HostForward forward) {
        if (forwards.remove(forward)) forward.close();
    }

    /** Open TCP connections (also those through forwarded ports). */
    public int tcpConnections() {
        return tcp.size();
    }

    /** Open UDP flows: the guest's own and forwarded clients'. */
    public int udpFlows() {
        return udp.size() + udpForwards.size();
    }

    /**
     * Serves dir read-only over TFTP on the gateway's port 69, which then no longer leads to the
     * host's loopback. Throws UncheckedIOException when dir cannot be resolved.
     */
    public void serveTftp(Path dir) {
        try {
            tftp = new TftpServer(loop, stack, new TftpFiles(dir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve TFTP from " + dir, e);
        }
    }

    @Override
    public void tcp(MemorySegment frame, long offset, int length, int source, int destination) {
        tcp.segment(frame, offset, length, source, destination);
    }

    @Override
    public void udp(MemorySegment frame, long offset, int length, int source, int sourcePort, int destination, int destinationPort) {
        if (destination == stack.config().gateway()) {
            if (tftp != null && destinationPort == Tftp.PORT) {
                tftp.datagram(frame, offset, length, source, sourcePort);
                return;
            }
            if (udpForwards.fromGuest(frame, offset, length, source, sourcePort, destination, destinationPort)) return;
        }
        udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    /** Closes the forwarded ports, resets every TCP connection and closes every UDP flow. */
    public void shutdown() {
        forwards.forEach(HostForward::close);
        forwards.clear();
        tcp.resetAll();
        udp.closeAll();
        if (tftp != null) tftp.closeAll();
    }
}
