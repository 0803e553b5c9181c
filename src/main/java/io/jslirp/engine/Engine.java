package io.jslirp.engine;


import io.jslirp.capture.Capture;
import io.jslirp.flow.FlowStatus;
import io.jslirp.flow.Flows;
import io.jslirp.sys.HostSockets;
import io.jslirp.link.Link;
import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.stack.FrameSink;
import io.jslirp.stack.Stack;
import io.jslirp.stack.TxBatch;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.EventFd;
import io.jslirp.util.AddressBook;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/**
 * One jslirp instance: a link, the virtual network behind it, and the host sockets that carry
 * its flows, all driven by one event loop on the thread that calls {@link #run()}.
 */
public final class Engine {
    private static final long CAPTURE_WRITE_OUT_NANOS = 1_000_000_000L;

    private final Link link;
    private final EventLoop loop;
    private final Stack stack;
    /** Every flow of both versions. */
    private final HostTransport transport;
    private final EventFd wakeup = new EventFd();
    /** The one representation of addresses above the wire, both versions: handles shared by the stacks, the NAT and the forwards. */
    private final AddressBook addresses = new AddressBook();
    /** Null without --pcap. */
    private final Capture capture;
    private final Timer captureWriteOut = new Timer(this::writeOutCapture);
    private final List<Runnable> atShutdown = new ArrayList<>();
    private volatile boolean stopRequested;

    /** Throws UncheckedIOException when the capture file cannot be created. */
    public Engine(Link link, EngineConfig config) {
        this.link = link;
        this.loop = new EventLoop(config.busyPollNanos());
        this.capture = openCapture(config.capture());
        FrameSink sink = capture == null ? link : new CapturingSink(link, capture);
        VirtualNetwork network = new VirtualNetwork(config, sink, addresses, loop, HostSockets.SYSTEM);
        this.stack = network.stack();
        this.transport = network.transport();
        network.start(loop);
        // One end-of-iteration step, in this order whatever was built first: the transport's flush
        // produces frames, the link's writes them out (through the batch that owns their payloads).
        TxBatch batch = stack.transmitBatch();
        loop.atEndOfIteration(() -> {
            transport.flush();
            batch.flush();
        });
        new LinkReceiver(link, stack, loop, capture);
        if (capture != null) loop.schedule(captureWriteOut, loop.clock().now() + CAPTURE_WRITE_OUT_NANOS);
        loop.register(wakeup.fd(), Epoll.IN, events -> {
            wakeup.drain();
            if (stopRequested) loop.stop();
        });
    }


    private static Capture openCapture(Capture.Settings settings) {
        if (settings == null) return null;
        try {
            return Capture.open(settings);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write --pcap " + settings.file() + ": " + e.getMessage(), e);
        }
    }

    private void writeOutCapture() {
        capture.writeOut();
        loop.schedule(captureWriteOut, loop.clock().now() + CAPTURE_WRITE_OUT_NANOS);
    }

    public Counters counters() {
        return stack.counters();
    }

    /**
     * Every figure by name: the stack's counters, then the table's flows opened and open by kind,
     * then the TCP window credit's (from the loop's thread, or after it stopped; elsewhere they may
     * lag a little).
     */
    public void figures(ObjLongConsumer<String> sink) {
        stack.counters().forEach(sink);
        transport.figures(sink);
    }

    /** The figures as one line of name=value pairs, for logs. */
    public String figuresLine() {
        StringBuilder b = new StringBuilder();
        figures((name, value) -> b.append(b.isEmpty() ? "" : " ").append(name).append('=').append(value));
        return b.toString();
    }

    /** The one table of flows, every kind (from the loop's thread only). */
    public Flows flows() {
        return transport.flowTable();
    }

    /** The loop everything runs on: for handlers that serve this instance (e.g. its API socket), on its thread only. */
    public EventLoop loop() {
        return loop;
    }

    /** The host side: forwarded ports and flow counts (from the loop's thread only). */
    /** A snapshot of every open flow, IPv4 and IPv6 (from the loop's thread only). */
    public void flows(Consumer<FlowStatus> sink) {
        transport.flows(sink);
    }

    public HostTransport transport() {
        return transport;
    }

    /** The guest's address (the latest it sent from, else the configured one). */
    public int guestAddress() {
        return addresses.ipv4(stack.ipv4().guestAddress());
    }

    /** Runs task when the engine stops, before the loop closes (e.g. to remove a socket file). */
    public void atShutdown(Runnable task) {
        atShutdown.add(task);
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
            atShutdown.forEach(Runnable::run);
            transport.shutdown();
            loop.close();
            link.close();
            wakeup.close();
            if (capture != null) capture.close();
        }
    }

    /** Asks the loop to stop; safe from any thread. */
    public void stop() {
        stopRequested = true;
        wakeup.signal();
    }
}
