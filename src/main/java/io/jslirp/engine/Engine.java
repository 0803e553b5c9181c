package io.jslirp.engine;

import io.jslirp.host.HostTransport;
import io.jslirp.host.OutboundPolicy;
import io.jslirp.host.TcpForward;
import io.jslirp.link.Link;
import io.jslirp.loop.EventLoop;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.EventFd;

/**
 * One jslirp instance: a link, the virtual network behind it, and the host sockets that carry
 * its flows, all driven by one event loop on the thread that calls {@link #run()}.
 */
public final class Engine {
    private final Link link;
    private final EventLoop loop = new EventLoop();
    private final Stack stack;
    private final HostTransport transport;
    private final EventFd wakeup = new EventFd();
    private volatile boolean stopRequested;

    public Engine(Link link, EngineConfig config) {
        this.link = link;
        this.stack = new Stack(config.network(), link, new Counters());
        this.transport = new HostTransport(loop, stack, new OutboundPolicy(config.network()), config.nameservers(),
                config.tcp(), config.udpIdleNanos());
        stack.setTransport(transport);
        for (TcpForward forward : config.tcpForwards()) transport.forwardTcp(forward);
        loop.atEndOfIteration(link::flush); // after the transport's flush, which produces frames
        new LinkReceiver(link, stack, loop);
        loop.register(wakeup.fd(), Epoll.IN, events -> {
            wakeup.drain();
            if (stopRequested) loop.stop();
        });
    }

    public Counters counters() {
        return stack.counters();
    }

    /** Registers an extra descriptor whose readiness (e.g. an exit fd) stops the engine. */
    public void stopWhenReadable(int fd) {
        loop.register(fd, Epoll.IN, events -> loop.stop());
    }

    /** Serves until {@link #stop()}; then resets open connections and closes everything. */
    public void run() {
        try {
            loop.run();
        } finally {
            transport.shutdown();
            loop.close();
            link.close();
            wakeup.close();
        }
    }

    /** Asks the loop to stop; safe from any thread. */
    public void stop() {
        stopRequested = true;
        wakeup.signal();
    }
}
