package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.policy.DestinationRules;
import io.jslirp.nat.Limits;
import io.jslirp.policy.Nameserver;
import io.jslirp.policy.AddressPlan;
import io.jslirp.policy.HostAddress;
import io.jslirp.forward.PortForward;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network        the virtual network
 * @param nameservers    where DNS sent to the DNS address goes (resolv.conf's, in order); null
 *                       when the DNS address is disabled
 * @param tcp            guest-facing TCP parameters
 * @param udpIdleNanos   how long a UDP or ping flow lives without traffic
 * @param forwards       host TCP and UDP ports forwarded to the guest
 * @param outboundAddress host address outbound sockets are bound to, or 0 for the kernel's choice
 * @param limits         how many flows the guest may have at once
 * @param tftpRoot       directory served read-only over TFTP on the gateway, or null
 * @param bootFile       boot file name DHCP offers (with the gateway as TFTP server), or null
 * @param capture        frames to record in a pcap file, or null
 * @param busyPollNanos  how long the loop polls without sleeping while exchanges are interactive (0: never)
 * @param rules          host destinations the guest may reach (--allow, --deny)
 * @param preserveSource whether forwarded clients reach the guest from their own addresses
 * @param ipv6           the IPv6 network (with --enable-ipv6), or null for IPv4 only
 * @param outboundAddress6 host address outbound IPv6 sockets are bound to, or null for the kernel's choice
 * @param plan4          where IPv4 flows go, or null for the virtual network's plan ({@link AddressPlan#of(NetworkConfig)});
 *                       pasta's model gives its own ({@link AddressPlan#proxied})
 * @param plan6          the same for IPv6
 * @param nameservers6   where DNS sent to the IPv6 DNS address goes, when it is not {@code nameservers}
 *                       (pasta's model: each version's host nameserver first); null: the same
 */
public record EngineConfig(NetworkConfig network, List<Nameserver> nameservers, TcpConfig tcp, long udpIdleNanos, List<PortForward> forwards,
                           int outboundAddress, Limits limits, Path tftpRoot, String bootFile, Capture.Settings capture,
                           long busyPollNanos, DestinationRules rules, boolean preserveSource, Ipv6Network ipv6,
                           HostAddress outboundAddress6, AddressPlan plan4, AddressPlan plan6, List<Nameserver> nameservers6) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;
    /**
     * No busy polling by default: a loop that spins for the answer takes a core that the
     * exchange's own ends and the machine's other work need, once per container: on 2 cores it
     * made fewer round trips a second, each costing the stack more CPU (docs/benchmarks.md, Why the
     * code is as it is).
     */
    public static final long DEFAULT_BUSY_POLL_NANOS = 0L;

    /** The defaults for network, forwarding DNS to nameservers (null: no DNS service). */
    public static EngineConfig of(NetworkConfig network, List<Nameserver> nameservers) {
        return builder(network, nameservers).build();
    }

    public static Builder builder(NetworkConfig network, List<Nameserver> nameservers) {
        return new Builder(network, nameservers);
    }

    /** An engine configuration with defaults for everything not set. */
    public static final class Builder {
        private final NetworkConfig network;
        private final List<Nameserver> nameservers;
        private TcpConfig tcp;
        private long udpIdleNanos = DEFAULT_UDP_IDLE_NANOS;
        private List<PortForward> forwards = List.of();
        private int outboundAddress;
        private Limits limits = Limits.DEFAULTS;
        private Path tftpRoot;
        private String bootFile;
        private Capture.Settings capture;
        private long busyPollNanos = DEFAULT_BUSY_POLL_NANOS;
        private DestinationRules rules = DestinationRules.NONE;
        private boolean preserveSource;
        private Ipv6Network ipv6;
        private HostAddress outboundAddress6;
        private AddressPlan plan4, plan6;
        private List<Nameserver> nameservers6;

        private Builder(NetworkConfig network, List<Nameserver> nameservers) {
            this.network = network;
            this.nameservers = nameservers;
            this.tcp = TcpConfig.forMtu(network.mtu());
        }

        public Builder tcp(TcpConfig v) {
            tcp = v;
            return this;
        }

        public Builder forwards(List<PortForward> v) {
            forwards = List.copyOf(v);
            return this;
        }

        public Builder outboundAddress(int v) {
            outboundAddress = v;
            return this;
        }

        public Builder limits(Limits v) {
            limits = v;
            return this;
        }

        public Builder tftp(Path root, String file) {
            tftpRoot = root;
            bootFile = file;
            return this;
        }

        public Builder capture(Capture.Settings v) {
            capture = v;
            return this;
        }

        public Builder busyPollNanos(long v) {
            busyPollNanos = v;
            return this;
        }

        public Builder rules(DestinationRules v) {
            rules = v;
            return this;
        }

        public Builder preserveSource(boolean v) {
            preserveSource = v;
            return this;
        }

        /** IPv6 too, on slirp4netns's default network (fd00::/64). */
        public Builder outboundAddress6(HostAddress v) {
            outboundAddress6 = v;
            return this;
        }

        public Builder ipv6() {
            ipv6 = Ipv6Network.defaults(network);
            return this;
        }

        /** IPv6 on this network (pasta's model: the host's). */
        public Builder ipv6(Ipv6Network v) {
            ipv6 = v;
            return this;
        }

        /** Where each version's flows go, instead of the virtual network's plans (null: that plan). */
        public Builder plans(AddressPlan ipv4, AddressPlan ipv6) {
            plan4 = ipv4;
            plan6 = ipv6;
            return this;
        }

        /** Where DNS to the IPv6 DNS address goes, when not where the IPv4 one's goes (with DNS enabled). */
        public Builder nameservers6(List<Nameserver> v) {
            nameservers6 = v == null ? null : List.copyOf(v);
            return this;
        }

        public EngineConfig build() {
            return new EngineConfig(network, nameservers, tcp, udpIdleNanos, forwards, outboundAddress, limits, tftpRoot, bootFile, capture,
                    busyPollNanos, rules, preserveSource, ipv6, outboundAddress6, plan4, plan6, nameservers == null ? null : nameservers6);
        }
    }

    /** TCP parameters for IPv6 flows: the MSS is 20 bytes smaller, for the larger IP header. */
    public TcpConfig tcp6() {
        return new TcpConfig(tcp.mss() - 20, tcp.receiveBuffer(), tcp.sendBuffer(), tcp.initialBuffer(), tcp.timeWaitNanos(), tcp.bufferBudget());
    }
}
