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

/** Carries the guest's TCP and UDP flows over host sockets. */
public final class HostTransport implements Transport {
    private final EventLoop loop;
    private final Stack stack;
    private final TcpNat tcp;
    private final UdpNat udp;
    /** Null unless a TFTP directory is served, when the gateway's TFTP port is answered here. */
    private TftpServer tftp;
    private final List<ForwardListener> forwards = new ArrayList<>();

    public HostTransport(EventLoop loop, Stack stack, OutboundPolicy policy, TcpConfig tcpConfig, long udpIdleTimeoutNanos,
                         Limits limits) {
        this.loop = loop;
        this.stack = stack;
        this.tcp = new TcpNat(loop, stack, policy, tcpConfig, limits);
        this.udp = new UdpNat(loop, stack, policy, udpIdleTimeoutNanos, limits);
    }

    /**
     * Forwards a host TCP port to the guest: its clients reach the guest's address (the one it
     * last sent from) at the forward's guest port, from the gateway. Throws
     * IllegalArgumentException when the host port cannot be listened on.
     */
    public void forwardTcp(TcpForward forward) {
        forwards.add(new ForwardListener(loop, tcp, forward, stack::guestAddress));
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
        if (tftp != null && destinationPort == Tftp.PORT && destination == stack.config().gateway()) {
            tftp.datagram(frame, offset, length, source, sourcePort);
            return;
        }
        udp.datagram(frame, offset, length, source, sourcePort, destination, destinationPort);
    }

    /** Closes the forwarded ports, resets every TCP connection and closes every UDP flow. */
    public void shutdown() {
        forwards.forEach(ForwardListener::close);
        tcp.resetAll();
        udp.closeAll();
        if (tftp != null) tftp.closeAll();
    }
}
