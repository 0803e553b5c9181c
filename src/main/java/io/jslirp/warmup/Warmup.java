package io.jslirp.warmup;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.StreamLink;
import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.Log;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * The data path compiled before the VM's first transfer. A VM takes seconds to boot before it
 * sends its first frame, and a JVM that meets its data path only then spends the VM's first
 * transfer interpreting it and compiling it (on the cores the VM's emulation needs): the first
 * 20 MiB to a busybox VM went at less than half the rate of the ones after. So, while the VM boots,
 * {@code jslirp qemu} moves data both ways through a private engine of its own: the same stack,
 * TCP, NAT and link at the same MTU, a scripted guest on the link's other end and a peer on the
 * host's loopback. The JIT compiles what that runs, and the VM's engine runs the compiled code. The
 * link is the VM's kind ({@link GuestLink}): a {@link StreamLink} over a socket pair, or, for
 * {@code --vhost-user}, a VhostUserLink whose guest side is a front-end and a virtio-net driver of the
 * warm-up's own ({@link VhostGuest}), so the rings' code (chains, translation, mergeable buffers,
 * offload headers) is compiled as well as the stack's.
 *
 * <p>It runs on a thread of its own, on its own loop, for at most {@link #BUDGET_NANOS}, in rounds of
 * {@link #FRAMES} frames each way, until the JIT has settled ({@link #SETTLED_SHARE}: the compiler
 * threads' CPU time, measured, not a guessed number of rounds); anything going wrong ends it quietly (it is only a
 * warm-up). Its guest is the plainest TCP: one connection each way, options as Linux sends them
 * (MSS, window scaling, timestamps, SACK permitted), a cumulative ACK per batch of frames read, no loss;
 * and it does what a VM does that C2's code must not meet for the first time in the VM's own
 * transfers (see {@link #PAUSE_EVERY}): a branch the warm-up never took is compiled as a trap, and
 * the VM that takes it sends the per-frame path back to the interpreter for most of its first 20 MiB.
 */
public final class Warmup implements Runnable {
    /** Frames of data each way: past the JIT's thresholds for every per-frame method (C2 at 5,000 to 15,000 calls). */
    static final int FRAMES = 20_000;
    /** Rounds of a download and an upload (each at two sizes above MTU 1500): at least, and at most. */
    static final int MIN_ROUNDS = 2, MAX_ROUNDS = 60;
    /**
     * The JIT has settled when its compiler threads were busy for less than this share of a round.
     * It is not done after a fixed number of rounds: on 2 busy cores C2 falls behind at start-up, the
     * per-frame methods are compiled at tier 2 meanwhile (C1, no profiles: HotSpot's way of waiting
     * for a long C2 queue), and the warm-up that stopped there left them to be profiled and compiled
     * again during the VM's first transfers, when C2 took much of the stack's CPU (docs/benchmarks.md).
     */
    static final double SETTLED_SHARE = 0.1;
    /**
     * Frames of the VM's own that say its transfers have begun (its DHCP and ARP are a dozen). Few:
     * at MTU 65520, 256 frames were two thirds of the VM's first 20 MiB, during which the warm-up
     * and its compilations took the CPU the VM's emulation and its engine needed (docs/benchmarks.md).
     */
    static final long VM_BUSY_FRAMES = 64;
    /** The MSS of the small-frame connections above MTU 1500 (Ethernet's). */
    static final int SMALL_MSS = 1460;
    /** Bytes each way and round at most (at MTU 65520, 500 frames: the per-byte loops are compiled long before, and the VM sees few frames too). */
    static final long MAX_BYTES = 32L << 20;
    /**
     * A download's guest closes its window every this many ACKs, and opens it again
     * {@link #REOPEN_NANOS} later, as a VM's wget that reads slower than the stack sends does. The
     * stack's zero-window paths and its loop's wake-ups by a timer then run here too: a warm-up
     * without them left C2's code to be undone by the VM's first transfer (uncommon traps in
     * TcpConnection.flush and EventLoop.iterate, which then ran interpreted for most of a 20 MiB
     * download at MTU 65520).
     */
    static final int ZERO_WINDOW_EVERY = 64;
    static final long REOPEN_NANOS = 2_000_000L;
    /**
     * What the VM's first seconds did that the warm-up's guest did not, each a trap in C2's code of
     * the per-frame path (-Xlog:deoptimization=debug of a VM's boot and first transfers, which then
     * ran interpreted and profiled for most of the first 20 MiB): DHCP from 0.0.0.0 and ARP before
     * each connection (an address the stack has no handle for, one whose last reference goes, a
     * lease just bound); a first segment each way the size of a request or of a response's header,
     * 1 to 300 bytes (small copies), and transfers of odd lengths; a download answers the guest's
     * request, in two writes (a header, then the body), as an HTTP server does; a reader that stops
     * for PAUSE_NANOS every PAUSE_EVERY reads, the guest in a download (QEMU under TCG: the stream link's output waits while the guest still sends) and the host peer
     * in an upload (a slow server: the guest's bytes wait in the stack's buffer); frames written to
     * the link in two pieces now and then (a frame's head read before its tail); every connection
     * closed to the end (the guest acknowledges the stack's FIN); and in each round one connection
     * that the host peer resets (the reset goes to the guest: the warm-up's end resets what is
     * left, and must not meet that path for the first time then) and one of CHAT_ROUNDS 1-byte
     * exchanges, THINK_NANOS apart (an interactive session: short loop iterations, with --busy-poll
     * busy polling that finds nothing, REQUEST_DELAY_NANOS between the handshake and the first
     * request, so the handshake's ACK is met alone).
     */
    static final int PAUSE_EVERY = 128;
    static final long PAUSE_NANOS = 2_000_000L;
    /** Every this many writes toward the stack, the guest writes only a part (the rest at the next turn). */
    static final int SPLIT_EVERY = 64;
    static final int CHAT_ROUNDS = 32;
    /**
     * Short connections a round (a request, a small answer, the close): the VM's first connection
     * had gone through the stack's connection set-up interpreted (the warm-up's few dozen connections
     * leave it below C1's threshold of 200 calls), a millisecond from its SYN to the SYN-ACK against
     * passt's 0.3-0.5.
     */
    static final int SHORT_CONNECTIONS = 32;
    static final long THINK_NANOS = 100_000L, REQUEST_DELAY_NANOS = 200_000L;

    /** What a connection of the warm-up's guest does; SHORT is a download of nothing but the answer's header. */
    enum Kind { DOWNLOAD, UPLOAD, RESET, CHAT, SHORT }
    /** The longest it runs, both ways together. */
    static final long BUDGET_NANOS = 10_000_000_000L;
    private static final long GUEST_MAC = 0x5254_0012_3456L;
    private static final int GUEST_PORT = 40_000;
    /** The guest's receive window (scaled by 2^7) and the most it keeps in flight. */
    private static final int GUEST_WINDOW = 1 << 20, GUEST_SHIFT = 7, IN_FLIGHT = 256 << 10;

    private final int mtu;
    private final long busyPollNanos;
    /** The guest's frames go through a {@code VhostUserLink}'s rings, else over a {@link StreamLink}. */
    private final boolean vhostUser;
    private final LongSupplier vmFrames;
    private final long vmFramesAtStart;
    private volatile boolean finished;
    /** Frames of data that went each way (for the test). */
    volatile int framesDown, framesUp;
    /** Times its guest closed its window in a download (for the test). */
    volatile int windowsClosed;
    /** Times its guest stopped reading in a download, connections from its DHCP lease, resets it got, echoes of its chat (for the test). */
    volatile int pauses, dhcpConnections, resets, chatEchoes;
    /** Bytes of data that went each way (for the test: a frame toward a vhost-user guest may carry many segments). */
    volatile long bytesDown, bytesUp;
    /** Frames the engine's vhost-user link read from its transmit ring, and guest frames that found no room there or that it refused (for the test). */
    volatile long vhostChains, vhostDropped;

    public Warmup(int mtu, long busyPollNanos) {
        this(mtu, busyPollNanos, () -> 0, false);
    }

    /**
     * A warm-up that also ends early once vmFrames (frames the VM's own engine has moved, read from
     * the warm-up's thread: a hint, read without synchronisation) grew by {@link #VM_BUSY_FRAMES}: the VM's
     * transfers have begun, and the warm-up would take their CPU (the JIT compiles from their traffic then).
     */
    public Warmup(int mtu, long busyPollNanos, LongSupplier vmFrames, boolean vhostUser) {
        this.mtu = mtu;
        this.vhostUser = vhostUser;
        this.busyPollNanos = busyPollNanos;
        this.vmFrames = vmFrames;
        this.vmFramesAtStart = vmFrames.getAsLong();
    }

    /** Starts it on a daemon thread of its own; returns the thread. */
    public static Thread start(int mtu, long busyPollNanos, LongSupplier vmFrames, boolean vhostUser) {
        Thread t = new Thread(new Warmup(mtu, busyPollNanos, vmFrames, vhostUser), "jslirp-warm-up");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Whether both directions ran to the end (not cut short by the budget or an error). */
    public boolean finished() {
        return finished;
    }

    @Override
    public void run() {
        long started = System.nanoTime();
        GuestLink guest = null;
        int listener = -1;
        try {
            listener = Sockets.tcp4();
            if (listener < 0 || Sockets.bind4(listener, Ipv4.parse("127.0.0.1"), 0) < 0 || Sockets.listen(listener, 4) < 0) return;
            int port = Sockets.localPort(listener);
            guest = vhostUser ? VhostGuest.open() : StreamGuest.open();
            NetworkConfig network = NetworkConfig.fromCidr("10.0.2.0/24", mtu, true);
            EngineConfig config = EngineConfig.builder(network, null).busyPollNanos(busyPollNanos).build();
            Engine engine = new Engine(guest.link(), config);
            Run run = new Run(engine.loop(), network, guest, listener, port);
            run.begin();
            try {
                engine.run();
            } finally {
                framesDown = run.framesDown;
                framesUp = run.framesUp;
                windowsClosed = run.windowsClosed;
                pauses = run.pauses;
                dhcpConnections = run.dhcpConnections;
                resets = run.resets;
                chatEchoes = run.chatEchoes;
                bytesDown = run.bytesDown;
                bytesUp = run.bytesUp;
                if (guest instanceof VhostGuest v) {
                    vhostChains = v.chainsRead();
                    vhostDropped = v.dropped + v.badChains();
                }
            }
            finished = run.done;
            long took = System.nanoTime() - started;
            Log.debug(() -> "warm-up: " + framesDown + " frames down, " + framesUp + " up in " + took / 1_000_000 + " ms");
        } catch (RuntimeException | Error e) {
            Log.debug(() -> "warm-up ended early: " + e);
        } finally {
            if (guest != null) guest.close();
            if (listener >= 0) Libc.close(listener);
        }
    }

    /** One warm-up on its engine's loop: the guest on the socket pair, the host peer on the listener. */
    private final class Run {
        private final EventLoop loop;
        private final NetworkConfig network;
        private final int hostPort;
        private final long deadline;
        private final Timer timeout = new Timer(this::end);
        private final Timer reopen = new Timer(this::reopenWindow);
        private final GuestLink output;
        private final GuestLink.Frames frames = this::frame;
        private final TcpOptions options = new TcpOptions();
        /** The guest's frames: its TCP segments, its DHCP messages from 0.0.0.0, its ARP request for the gateway. */
        private final FrameBuilder tcp, arp;
        private final GuestDhcp dhcp;
        /** The MTU's MSS, and the MSS of the connection now (the MTU's, or {@link #SMALL_MSS}). */
        private final int fullMss;
        private int mss;
        /** The payload of a full segment: the MSS less the timestamps option, as Linux sends it. */
        private int segment;
        /** The data of one frame toward the host ({@link GuestLink#chunk}). */
        private int chunk;
        /** Connections so far, and this round's step (which of {@link #kindOf} comes next), and when this round began. */
        private int connections, step;
        private long roundStarted, roundCompilerNanos;
        private int rounds;
        // The guest's one connection at a time.
        private Kind kind;
        private final Timer request = new Timer(this::request);
        private int echoes;
        private int guestPort = GUEST_PORT;
        /**
         * The guest's address: its DHCP lease once it has one, as a VM's, from the connection after
         * the lease came (a connection keeps its address); the network's guest address until then.
         */
        private int guestAddress;
        /** The first segment's payload toward the host (a request). */
        private int header;
        /** The connection is over: the next one is due. */
        private boolean over;
        /** The guest reads no frame now (a slow VM); reads so far in this connection; its descriptor's epoll events. */
        private boolean paused;
        private int reads;
        private int guestEvents = Epoll.IN;
        private final Timer resume = new Timer(this::resume);
        private final Timer nudge = new Timer(this::nudge);
        /** Pauses so far, connections from the address the guest leased, resets the guest got, 1-byte echoes (for the test). */
        int pauses, dhcpConnections, resets, chatEchoes;
        private int sndNxt, sndUna, rcvNxt, peerWindow, peerShift, tsRecent, ipId;
        private boolean established, finSent, finReceived;
        /** ACKs the guest sent on this connection; whether its window is closed now (see {@link #ZERO_WINDOW_EVERY}). */
        private int acks;
        private boolean windowClosed;
        /** Times the guest closed its window (for the test). */
        int windowsClosed;
        private long toSend;
        private int framesDown, framesUp;
        private long bytesDown, bytesUp;
        private final HostPeer host;
        private boolean done, ended;

        Run(EventLoop loop, NetworkConfig network, GuestLink guest, int listener, int hostPort) {
            this.loop = loop;
            this.network = network;
            this.output = guest;
            this.host = new HostPeer(loop, listener);
            this.hostPort = hostPort;
            this.fullMss = network.mtu() - Ipv4.MIN_HEADER_LENGTH - Tcp.MIN_HEADER_LENGTH;
            this.guestAddress = network.guest();
            this.tcp = FrameBuilder.v4(guestAddress, network.gateway()).macs(GUEST_MAC, network.gatewayMac()).tcp(GUEST_PORT, hostPort);
            this.dhcp = new GuestDhcp(network, GUEST_MAC);
            this.arp = FrameBuilder.arp(Arp.REQUEST, guestAddress, 0, network.gateway());
            this.deadline = loop.clock().now() + BUDGET_NANOS;
        }

        void begin() {
            guestEvents = output.events(true, false);
            loop.register(output.fd(), guestEvents, this::guestReady);
            loop.schedule(timeout, deadline);
            startRound();
            connect(kindOf(0));
        }

        /**
         * Data connections per round: a download and an upload at the MTU's MSS; above MTU 1500 the same again at
         * {@link #SMALL_MSS}. A 64 KiB frame is 45 of 1500 bytes: the frames of a few MiB bring the per-byte loops to
         * the JIT's thresholds, but not the per-frame methods (parsing, TCP, the link), which only many frames do.
         */
        private int connections() {
            return fullMss > SMALL_MSS ? 4 : 2;
        }

        /** A round: its data connections, then one the host peer resets, an interactive one, and short ones. */
        private Kind kindOf(int step) {
            if (step < connections()) return step % 2 == 0 ? Kind.DOWNLOAD : Kind.UPLOAD;
            if (step == connections()) return Kind.RESET;
            return step == connections() + 1 ? Kind.CHAT : Kind.SHORT;
        }

        private boolean upload() {
            return kind == Kind.UPLOAD;
        }

        private int steps() {
            return connections() + 2 + SHORT_CONNECTIONS;
        }

        private void startRound() {
            roundStarted = System.nanoTime();
            roundCompilerNanos = CompilerThreads.cpuNanos();
        }


        private void end() {
            ended = true;
            host.close();
            loop.stop();
        }

        // ---- the guest ----

        private void connect(Kind kind) {
            this.kind = kind;
            mss = step < 2 || step >= connections() ? fullMss : Math.min(fullMss, SMALL_MSS);
            connections++;
            segment = mss - Tcp.TIMESTAMPS_LENGTH;
            chunk = output.chunk(segment);
            guestPort++;
            sndUna = sndNxt = 0x1000_0000 + guestPort;
            rcvNxt = 0;
            established = finSent = finReceived = windowClosed = false;
            acks = 0;
            reads = 0;
            echoes = 0;
            loop.schedule(request, Long.MAX_VALUE); // a request due belonged to the connection before
            if (dhcp.leased() != 0) {
                guestAddress = dhcp.leased();
                dhcpConnections++;
            }
            append(dhcp.message(output, Dhcp.RELEASE)); // the lease is bound afresh, and the first frame from it finds it so
            append(dhcp.message(output, Dhcp.DISCOVER));
            append(dhcp.message(output, Dhcp.REQUEST));
            append(arp.source4(guestAddress)); // who has the gateway's address: what a VM asks once it has its own
            header = 1 + connections * 37 % 300;
            long bytes = kind == Kind.UPLOAD || kind == Kind.DOWNLOAD ? Math.min((long) FRAMES * segment, MAX_BYTES) + connections * 13 % 64 : 0;
            toSend = upload() ? bytes : 0; // the others' requests come a little after the handshake (request())
            int answerHeader = kind == Kind.DOWNLOAD || kind == Kind.SHORT ? 1 + connections * 53 % 300 : 0;
            host.expect(kind, answerHeader, upload() ? 0 : kind == Kind.SHORT ? answerHeader : bytes);
            tsRecent = 0;
            tcp.source4(guestAddress).ports(guestPort, hostPort).clearOptions().mss(mss).windowScale(GUEST_SHIFT)
                    .sackPermitted(); // as Linux offers it: the VM's connections take SACK's paths
            segment(Tcp.SYN, Math.min(GUEST_WINDOW, 0xffff), 0);
            tcp.clearOptions();
            sndNxt++;
            flushGuest();
        }

        private int tsVal() {
            return (int) (loop.clock().now() / 1_000_000L);
        }

        /** Appends a segment from sndNxt with the timestamps option and payload bytes of data: what the buffer held. */
        private void segment(int flags, int window, int payload) {
            append(tcp.flags(flags).seq(sndNxt).ack(rcvNxt).window(window).timestamps(tsVal(), tsRecent).payloadInPlace(payload));
        }

        /** Appends the frame b describes (its payload, if any, is in place), with the next IP identification. */
        private void append(FrameBuilder b) {
            output.append(b.id(ipId++ & 0xffff));
        }

        /** An ACK (with flags) carrying payload bytes of data from seq; the payload is what the buffer held. */
        private void send(int flags, int payload) {
            segment(Tcp.ACK | flags, windowClosed ? 0 : GUEST_WINDOW >>> GUEST_SHIFT, payload);
        }

        /**
         * The guest's request (a download's, the reset connection's), or the chat's next byte, or its
         * FIN after the last echo: a little after what came before it, in a loop iteration of its own.
         */
        private void request() {
            if (!established || over || finSent) return;
            if (kind == Kind.CHAT && echoes >= CHAT_ROUNDS) {
                send(Tcp.FIN, 0);
                sndNxt++;
                finSent = true;
            } else {
                toSend = kind == Kind.CHAT ? 1 : header;
                sendData();
            }
            flushGuest();
        }

        /** The closed window opens again: a window update, as a guest's reader that caught up sends. */
        private void reopenWindow() {
            if (!windowClosed) return;
            windowClosed = false;
            if (!established || finSent) return;
            send(0, 0);
            flushGuest();
        }

        private void guestReady(int events) {
            if (vmBusy()) return;
            if ((events & Epoll.IN) != 0 && !paused) guestReadable();
            sendData();
            flushGuest();
        }

        /** A download's reader stops for a while now and then, as a VM under TCG does (see {@link #PAUSE_EVERY}). */
        private void maybePause() {
            if (upload() || ++reads % PAUSE_EVERY != PAUSE_EVERY / 2) return;
            paused = true;
            pauses++;
            long now = loop.clock().now();
            loop.schedule(nudge, now + PAUSE_NANOS / 2);
            loop.schedule(resume, now + PAUSE_NANOS);
        }

        /** Midway through a pause the guest still sends (its ACK again): a frame for the stack while its output waits. */
        private void nudge() {
            if (!paused || !established || finSent) return;
            send(0, 0);
            flushGuest();
        }

        private void resume() {
            paused = false;
            flushGuest();
        }

        private void guestReadable() {
            int r = output.read(frames);
            if (r == GuestLink.END) end();
            if (r == GuestLink.END || r == GuestLink.NOTHING) return;
            boolean ackDue = r == GuestLink.ACK_DUE;
            maybePause();
            if (ackDue && established && !over) {
                if (finReceived && !upload() && !finSent) { // the download is over: our FIN with the ACK of the host's
                    send(Tcp.FIN, 0);
                    sndNxt++;
                    finSent = true;
                } else {
                    if (!upload() && !windowClosed && ++acks % ZERO_WINDOW_EVERY == 0) {
                        windowClosed = true;
                        windowsClosed++;
                        loop.schedule(reopen, loop.clock().now() + REOPEN_NANOS);
                    }
                    send(0, 0);
                }
            } else if (ackDue && over && finReceived) {
                send(0, 0); // the ACK of the stack's FIN, the connection's last segment
            }
            if (over) {
                over = false;
                next();
            }
        }

        /** One frame toward the guest; returns whether it asks for an ACK. */
        private boolean frame(MemorySegment in, long f, int length) {
            long ipOff = f + Ethernet.HEADER_LENGTH;
            if (length < Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH + Tcp.MIN_HEADER_LENGTH
                    || Ethernet.type(in, f) != Ethernet.TYPE_IPV4) return false;
            if (Ipv4.protocol(in, ipOff) == Ipv4.PROTO_UDP) {
                dhcp.received(in, ipOff, length - Ethernet.HEADER_LENGTH); // its lease, for its next connections
                return false;
            }
            if (Ipv4.protocol(in, ipOff) != Ipv4.PROTO_TCP) return false;
            long off = ipOff + Ipv4.headerLength(in, ipOff);
            if (Tcp.destinationPort(in, off) != guestPort) return false;
            int flags = Tcp.flags(in, off);
            int hdr = Tcp.headerLength(in, off);
            int payload = Ipv4.totalLength(in, ipOff) - Ipv4.headerLength(in, ipOff) - hdr;
            int seq = Tcp.seq(in, off);
            if (!Tcp.parseOptions(in, off, options)) return false;
            if (options.hasTimestamp) tsRecent = options.tsVal;
            if ((flags & Tcp.RST) != 0) {
                if (kind != Kind.RESET) {
                    end();
                    return false;
                }
                resets++;
                over = true;
                return false;
            }
            if ((flags & Tcp.SYN) != 0) {
                peerShift = options.windowScale;
                rcvNxt = seq + 1;
                sndUna = Tcp.ack(in, off);
                peerWindow = Tcp.window(in, off);
                established = true;
                if (!upload()) loop.schedule(request, loop.clock().now() + REQUEST_DELAY_NANOS);
                return true;
            }
            if ((flags & Tcp.ACK) != 0) {
                int ack = Tcp.ack(in, off);
                if (ack - sndUna > 0) sndUna = ack;
                peerWindow = Tcp.window(in, off) << peerShift;
            }
            boolean ackDue = false;
            if (payload > 0 && seq == rcvNxt) {
                rcvNxt += payload;
                framesDown++;
                bytesDown += payload;
                ackDue = true;
                host.release();
                if (kind == Kind.CHAT) {
                    echoes++;
                    chatEchoes++;
                    loop.schedule(request, loop.clock().now() + THINK_NANOS);
                }
            } else if (payload > 0) {
                ackDue = true; // out of order: say where we are
            }
            if ((flags & Tcp.FIN) != 0 && seq + payload == rcvNxt) {
                rcvNxt++;
                finReceived = true;
                ackDue = true;
            }
            if (finSent && sndUna == sndNxt && finReceived) over = true;
            return ackDue;
        }

        /** The upload's data, or the request of another kind (as far as the window and IN_FLIGHT allow), then an upload's FIN. */
        private void sendData() {
            if (!established || finSent || over) return;
            while (toSend > 0) {
                int inFlight = sndNxt - sndUna;
                int room = Math.min(peerWindow, IN_FLIGHT) - inFlight;
                int len = (int) Math.min(Math.min(header > 0 ? header : chunk, toSend), room);
                if (len <= 0 || output.free() < 100 + len) break; // as much as the window takes, as a guest does
                send(Tcp.PSH, len);
                sndNxt += len;
                toSend -= len;
                if (upload()) {
                    framesUp++;
                    bytesUp += len;
                }
                header = 0;
            }
            if (toSend == 0 && upload()) {
                send(Tcp.FIN, 0);
                sndNxt++;
                finSent = true;
            }
        }

        /**
         * One direction is over: the next connection of the round, the next round, or the end: after
         * {@link #MIN_ROUNDS}, once a round kept the JIT's compiler threads busy for less than
         * {@link #SETTLED_SHARE} of its time (what the data path needs is compiled), or after {@link #MAX_ROUNDS}.
         */
        private void next() {
            if (vmBusy()) return;
            if (++step < steps()) {
                connect(kindOf(step));
                return;
            }
            rounds++;
            long took = System.nanoTime() - roundStarted;
            long compiling = CompilerThreads.cpuNanos() - roundCompilerNanos;
            int round = rounds;
            Log.debug(() -> "warm-up: round " + round + " took " + took / 1_000_000 + " ms, the compilers "
                    + compiling / 1_000_000 + " ms of CPU");
            boolean settled = compiling >= 0 && compiling < took * SETTLED_SHARE;
            if (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || !settled)) {
                startRound();
                step = 0;
                connect(kindOf(0));
            } else {
                done = true;
                end();
            }
        }

        /**
         * Whether the VM's transfers have begun, and if so ends the warm-up there, in the middle of a
         * connection if need be: a connection at MTU 65520 moves up to {@link #MAX_BYTES}, and the
         * VM's first 20 MiB take a fifth of a second.
         */
        private boolean vmBusy() {
            if (vmFrames.getAsLong() - vmFramesAtStart < VM_BUSY_FRAMES) return false;
            if (ended) return true;
            Log.debug(() -> "warm-up: the VM's traffic has begun: ended in round " + (rounds + 1));
            end();
            return true;
        }

        /** Writes the guest's frames; reading unless paused, writing while some wait. */
        private void flushGuest() {
            boolean pending = output.flush();
            int events = output.events(!paused, pending);
            if (events != guestEvents) {
                loop.modify(output.fd(), events);
                guestEvents = events;
            }
        }
    }
}
