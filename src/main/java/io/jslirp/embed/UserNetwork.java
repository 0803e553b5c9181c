package io.jslirp.embed;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.policy.Nameserver;
import io.jslirp.forward.PortForward;
import io.jslirp.link.Link;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.wire.Ipv4;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * jslirp as a library: a user-mode network for one guest whose Ethernet frames an embedding
 * program carries (a {@link MemoryLink}, or any {@link Link}). The guest gets the same network as
 * {@code jslirp run} gives a namespace: by default 10.0.2.0/24, the gateway 10.0.2.2 leading to
 * the host's 127.0.0.1, DHCP, and every other TCP and UDP flow re-originated as a host socket.
 *
 * <pre>{@code
 * MemoryLink link = new MemoryLink(frame -> guest.deliver(frame));
 * try (UserNetwork net = UserNetwork.builder().mtu(1500).forwardTcp("8080:80").build(link)) {
 *     net.start();
 *     link.fromGuest(frameFromTheGuest);   // from any thread
 *     ...
 * }
 * }</pre>
 *
 * A network runs once: {@link #start()} runs its event loop on a thread of its own, and
 * {@link #stop()} (or {@link #close()}) resets its open connections, closes its host sockets and
 * waits for the thread to end.
 */
public final class UserNetwork implements AutoCloseable {
    private final Engine engine;
    private final NetworkConfig network;
    private Thread thread;
    private boolean stopped;

    private UserNetwork(Engine engine, NetworkConfig network) {
        this.engine = engine;
        this.network = network;
    }

    /** A builder with slirp4netns's defaults (10.0.2.0/24, MTU 1500, no DNS upstream). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the network's event loop on a new thread named "jslirp".
     *
     * @throws IllegalStateException when it was started before
     */
    public synchronized void start() {
        if (thread != null || stopped) throw new IllegalStateException("a UserNetwork starts once");
        thread = Thread.ofPlatform().name("jslirp").start(engine::run);
    }

    /**
     * Stops the network and waits for its thread to end: open connections are reset (host peers
     * and guest see a RST), host sockets and the link are closed. Does nothing the second time.
     */
    public synchronized void stop() {
        if (stopped) return;
        stopped = true;
        if (thread == null) {
            engine.stop();
            engine.run(); // never started: the loop sees the stop at once and closes everything
            return;
        }
        engine.stop();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /**
     * The network's counters by name (frames in and out, drops by reason, connections and flows
     * opened, refused at a limit), as {@code jslirp attach} prints them on exit. Read without
     * stopping the network, so figures may lag a little while it runs; exact after {@link #stop()}.
     */
    public Map<String, Long> counters() {
        Map<String, Long> figures = new LinkedHashMap<>();
        engine.figures(figures::put);
        return figures;
    }

    /** The gateway's address as text (e.g. "10.0.2.2"): the guest reaches the host's 127.0.0.1 there. */
    public String gateway() {
        return Ipv4.format(network.gateway());
    }

    /** The address the guest is expected to use (e.g. "10.0.2.100", as {@code --configure} gives it). */
    public String guestAddress() {
        return Ipv4.format(network.guest());
    }

    /** The configuration of a {@link UserNetwork}: each setter returns the builder. */
    public static final class Builder {
        private String cidr = "10.0.2.0/24";
        private int mtu = 1500;
        private boolean hostLoopback = true;
        private final List<Nameserver> nameservers = new ArrayList<>();
        private int outboundAddress;
        private final List<PortForward> forwards = new ArrayList<>();
        private Path tftpRoot;
        private String bootFile;

        private Builder() {
        }

        /**
         * The virtual network (default 10.0.2.0/24): the gateway is its .2, the DNS address .3,
         * DHCP leases start at .15, the guest's expected address is .100. Prefix length 1-25.
         */
        public Builder cidr(String cidr) {
            this.cidr = cidr;
            return this;
        }

        /** The guest's MTU, 68-65520 (default 1500); the TCP MSS toward the guest is MTU - 40. */
        public Builder mtu(int mtu) {
            this.mtu = mtu;
            return this;
        }

        /** Whether flows to the gateway reach the host's 127.0.0.1 (default true). */
        public Builder hostLoopback(boolean enabled) {
            this.hostLoopback = enabled;
            return this;
        }

        /**
         * Adds an upstream DNS server (an IPv4 or IPv6 address) for DNS queries to the network's .3
         * address; several are asked in turn, as resolv.conf's. By default there is none, and such
         * queries go unanswered.
         *
         * @throws IllegalArgumentException when address is not an IP address
         */
        public Builder nameserver(String address) {
            nameservers.add(Nameserver.parse(address));
            return this;
        }

        /**
         * The host address every outbound socket is bound to (default: the kernel's choice).
         *
         * @throws IllegalArgumentException when address is not an IPv4 address
         */
        public Builder outboundAddress(String address) {
            this.outboundAddress = Ipv4.parse(address);
            return this;
        }

        /**
         * Forwards host TCP ports to the guest, in jslirp's {@code -t} notation
         * {@code [ADDR/]PORT[-PORT][:GUESTPORT[-PORT]]} (host address 127.0.0.1 unless given).
         *
         * @throws IllegalArgumentException when spec is malformed
         */
        public Builder forwardTcp(String spec) {
            forwards.addAll(PortForward.parse(PortForward.Protocol.TCP, spec));
            return this;
        }

        /** Forwards host UDP ports to the guest, as {@link #forwardTcp} (jslirp's {@code -u}). */
        public Builder forwardUdp(String spec) {
            forwards.addAll(PortForward.parse(PortForward.Protocol.UDP, spec));
            return this;
        }

        /**
         * Serves dir read-only over TFTP on the gateway's port 69; bootFile, unless null, is the
         * boot file DHCP names (QEMU's {@code tftp=} and {@code bootfile=}).
         */
        public Builder tftp(Path dir, String bootFile) {
            this.tftpRoot = dir;
            this.bootFile = bootFile;
            return this;
        }

        /**
         * A network carried by link; not started yet.
         *
         * @throws IllegalArgumentException when the configuration is invalid (a CIDR or MTU out of
         *     range, a forwarded host port that cannot be bound)
         */
        public UserNetwork build(MemoryLink link) {
            return build(link.link());
        }

        /**
         * A network carried by any link, e.g. a tap device's ({@code io.jslirp.link.TapLink}); not
         * started yet. The network closes the link when it stops.
         *
         * @throws IllegalArgumentException when the configuration is invalid
         */
        public UserNetwork build(Link link) {
            NetworkConfig network = NetworkConfig.fromCidr(cidr, mtu, hostLoopback);
            EngineConfig config = EngineConfig.builder(network, nameservers)
                    .forwards(forwards)
                    .outboundAddress(outboundAddress)
                    .tftp(tftpRoot, bootFile)
                    .build();
            return new UserNetwork(new Engine(link, config), network);
        }
    }
}
