package io.jslirp.engine;

import io.jslirp.stack.FrameSink;
import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.forward.PortForward;
import io.jslirp.loop.VirtualLoop;
import io.jslirp.flow.FlowStatus;
import io.jslirp.nat.Limits;
import io.jslirp.policy.DestinationRules;
import io.jslirp.policy.Nameserver;
import io.jslirp.stack.Counters;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.FakeSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The middle test tier: the real stacks and host side ({@link VirtualNetwork}) between a scripted
 * guest and fake host sockets ({@link FakeSockets}), on virtual time ({@link VirtualLoop}). The
 * test sends the guest's frames ({@link Packet}'s builders), plays the host peers through the
 * fake sockets, moves the clock, and reads the frames that reached the guest, parsed and with
 * their checksums verified. Each call runs the loop until nothing is left to do, as the real loop
 * would before it sleeps.
 */
public final class NatHarness {
    public static final long SECOND = 1_000_000_000L;
    /** The virtual clock starts far from zero so no code can take "time 0" for "unset". */
    public static final long START = 7 * 24 * 3600 * SECOND;
    /** The guest's addresses: --configure's IPv4 one, and an IPv6 one of the prefix as SLAAC would make. */
    public static final String GUEST = "10.0.2.100", GUEST6 = "fd00::5054:ff:fe12:3456";
    public static final String GATEWAY = "10.0.2.2", GATEWAY6 = "fd00::2", DNS = "10.0.2.3", DNS6 = "fd00::3";

    public final VirtualLoop loop = new VirtualLoop(START);
    public final FakeSockets sockets = new FakeSockets();
    private final VirtualNetwork network;
    private final List<byte[]> toGuest = new ArrayList<>();
    private final MemorySegment rx = Arena.ofAuto().allocate(65536 + 64);

    /** Frames of several datagrams the guest's side cut (a link that offloads UDP, see {@link Builder#offloadsUdp}). */
    public int cutFrames;

    /** With {@link Builder#gathersPayloads}: frames sent since the sink's last flush, each payload still where it was handed over. */
    private final List<Runnable> gathered = new ArrayList<>();

    private NatHarness(EngineConfig config, boolean offloadsUdp, boolean offloadsTcp, boolean gathersPayloads) {
        loop.readiness(sockets);
        LinkCapabilities capabilities = new LinkCapabilities(gathersPayloads, offloadsTcp, offloadsUdp, false);
        FrameSink sink = new FrameSink() {
            @Override
            public boolean send(MemorySegment frame, int length) {
                byte[] f = frame.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
                if (gathersPayloads) gathered.add(() -> toGuest.add(f));
                else toGuest.add(f);
                return true;
            }

            @Override
            public LinkCapabilities capabilities() {
                return capabilities;
            }

            /**
             * As a link that gathers, the headers taken at once and a payload from elsewhere read only at
             * the flush; as one that offloads, a TCP frame whole, its checksum completed, a UDP frame cut.
             */
            @Override
            public boolean send(TxFrame d) {
                if (d.segmentation() == TxFrame.Segmentation.UDP) {
                    cutFrames++;
                    cut(d.frame(), d.frameLength(), d.segmentSize());
                    return true;
                }
                byte[] headers = d.frame().asSlice(0, d.frameLength()).toArray(ValueLayout.JAVA_BYTE);
                MemorySegment payload = d.payload();
                long payloadOffset = d.payloadOffset();
                int payloadLength = d.payloadLength();
                boolean partial = d.partialChecksum();
                Runnable take = () -> {
                    byte[] f = java.util.Arrays.copyOf(headers, headers.length + payloadLength);
                    if (payloadLength > 0) MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, payloadOffset, f, headers.length, payloadLength);
                    toGuest.add(partial ? completedTcp(f) : f);
                };
                if (gathersPayloads) gathered.add(take);
                else take.run();
                return true;
            }

            @Override
            public void flush() {
                gathered.forEach(Runnable::run);
                gathered.clear();
            }
        };
        network = new VirtualNetwork(config, sink, new AddressBook(), loop, sockets);
        loop.atEndOfIteration(() -> {
            network.transport().flush();
            network.stack().transmitBatch().flush();
        });
    }

    /**
     * A large TCP frame (TSO) as one frame, its partial checksum completed as the guest's side
     * does: the tests see its whole payload in one packet rather than cut.
     */
    private static byte[] completedTcp(byte[] bytes) {
        MemorySegment f = MemorySegment.ofArray(bytes);
        int ip = Ethernet.HEADER_LENGTH;
        int l4 = ip + (Ethernet.type(f, 0) == Ethernet.TYPE_IPV6 ? Ipv6.HEADER_LENGTH : Ipv4.headerLength(f, ip));
        Bytes.u16(f, l4 + Tcp.CHECKSUM_OFFSET, Checksum.finish(Checksum.sum(f, l4, bytes.length - l4, 0)));
        return bytes;
    }

    /** As the guest's kernel cuts a UDP frame (USO): one datagram of segmentSize bytes (the last perhaps shorter) per frame, lengths and checksums filled. */
    private void cut(MemorySegment frame, int length, int segmentSize) {
        boolean v6 = Ethernet.type(frame, 0) == Ethernet.TYPE_IPV6;
        int ip = Ethernet.HEADER_LENGTH;
        int l4 = ip + (v6 ? Ipv6.HEADER_LENGTH : Ipv4.headerLength(frame, ip));
        int payload = l4 + Udp.HEADER_LENGTH;
        int sourcePort = Udp.sourcePort(frame, l4), destinationPort = Udp.destinationPort(frame, l4);
        for (int at = payload; at < length; at += segmentSize) {
            int n = Math.min(segmentSize, length - at);
            MemorySegment d = Arena.ofAuto().allocate(payload + n);
            MemorySegment.copy(frame, 0, d, 0, payload);
            MemorySegment.copy(frame, at, d, payload, n);
            int pseudo;
            if (v6) {
                Bytes.u16(d, ip + 4, Udp.HEADER_LENGTH + n);
                pseudo = Checksum.sum(d, ip + 8, 32, Ipv4.PROTO_UDP + Udp.HEADER_LENGTH + n);
            } else {
                Bytes.u16(d, ip + 2, l4 - ip + Udp.HEADER_LENGTH + n);
                Bytes.u16(d, ip + 10, 0);
                Bytes.u16(d, ip + 10, Checksum.finish(Checksum.sum(d, ip, l4 - ip, 0)));
                pseudo = Checksum.sum(d, ip + 12, 8, Ipv4.PROTO_UDP + Udp.HEADER_LENGTH + n);
            }
            Udp.write(d, l4, sourcePort, destinationPort, n, pseudo);
            toGuest.add(d.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    public static Builder with() {
        return new Builder();
    }

    /** How the network is configured: defaults as jslirp's (no DNS unless nameservers are given). */
    public static final class Builder {
        private boolean hostLoopback = true;
        private boolean ipv6;
        private List<Nameserver> nameservers;
        private final List<PortForward> forwards = new ArrayList<>();
        private Limits limits = Limits.DEFAULTS;
        private DestinationRules rules = DestinationRules.NONE;
        private boolean preserveSource;
        private boolean offloadsUdp;
        private boolean offloadsTcp;
        private boolean gathersPayloads;

        /** The link reads each payload only when it writes its frames out, at its flush (as the stream link to QEMU does). */
        public Builder gathersPayloads() {
            gathersPayloads = true;
            return this;
        }

        /** The link takes large TCP frames with partial checksums (TSO); each reaches the guest whole here, its checksum completed. */
        public Builder offloadsTcp() {
            offloadsTcp = true;
            return this;
        }

        /** The link takes UDP frames of several datagrams and cuts them as a tap's kernel does (USO). */
        public Builder offloadsUdp() {
            offloadsUdp = true;
            return this;
        }

        public Builder ipv6() {
            ipv6 = true;
            return this;
        }

        public Builder nameservers(String... addresses) {
            nameservers = java.util.Arrays.stream(addresses).map(Nameserver::parse).toList();
            return this;
        }

        public Builder forward(PortForward... f) {
            forwards.addAll(List.of(f));
            return this;
        }

        public Builder limits(Limits v) {
            limits = v;
            return this;
        }

        public Builder rules(DestinationRules v) {
            rules = v;
            return this;
        }

        public Builder preserveSource() {
            preserveSource = true;
            return this;
        }

        public Builder disableHostLoopback() {
            hostLoopback = false;
            return this;
        }

        public NatHarness build() {
            EngineConfig.Builder b = EngineConfig.builder(NetworkConfig.fromCidr("10.0.2.0/24", 1500, hostLoopback), nameservers)
                    .limits(limits).rules(rules).preserveSource(preserveSource).forwards(forwards).busyPollNanos(0);
            if (ipv6) b.ipv6();
            return new NatHarness(b.build(), offloadsUdp, offloadsTcp, gathersPayloads);
        }
    }

    /** Hands a frame from the guest to the stack, then runs the loop until it settles. */
    public void send(byte[] frame) {
        deliver(frame);
        loop.settle();
    }

    /** Hands a frame from the guest to the stack, as the link's receive does, without running the loop after it. */
    public void deliver(byte[] frame) {
        MemorySegment.copy(frame, 0, rx, ValueLayout.JAVA_BYTE, 0, frame.length);
        network.stack().receive(rx, frame.length);
        rx.fill((byte) 0x5a); // the receive buffer is reused: what was kept must have been copied
    }

    /** Runs the loop until nothing is left to do now (after the test played a host peer). */
    public void settle() {
        loop.settle();
    }

    /** Moves virtual time on, running what comes due. */
    public void advance(long nanos) {
        loop.advance(nanos);
    }

    /** The frames that reached the guest since the last look, parsed (checksums verified). */
    public List<Packet> received() {
        List<Packet> p = toGuest.stream().map(Packet::parse).toList();
        toGuest.clear();
        return p;
    }

    /** The one frame that reached the guest since the last look. */
    public Packet receivedOne() {
        List<Packet> p = received();
        assertThat(p).as("exactly one frame to the guest").hasSize(1);
        return p.getFirst();
    }

    public Counters counters() {
        return network.counters();
    }

    /** The family of a version, as the NATs are given it. */
    public io.jslirp.nat.Family family(Version v) {
        return network.transport().family(v.ipv6());
    }

    /** The one table of flows. */
    public io.jslirp.flow.Flows flowTable() {
        return network.transport().flowTable();
    }

    public HostTransport transport() {
        return network.transport();
    }

    /** The open flows as the status report lists them. */
    public List<FlowStatus> flows() {
        List<FlowStatus> f = new ArrayList<>();
        network.transport().flows(f::add);
        return f;
    }

    /** The guest makes itself known by a ping of the gateway (which answers it itself), from its address of version 4 or 6. */
    public void guestAnnounces(int version) {
        send(FrameBuilder.ip(version == 6 ? GUEST6 : GUEST, version == 6 ? GATEWAY6 : GATEWAY).echo(1, 1).payload(new byte[8]).bytes());
        assertThat(received()).as("the gateway's echo reply").hasSize(1);
    }

    /** The addresses a test uses over one IP version. */
    public record Version(int number, String guest, String gateway, String dns, String hostLoopback) {
        public static final Version V4 = new Version(4, GUEST, GATEWAY, DNS, "127.0.0.1");
        public static final Version V6 = new Version(6, GUEST6, GATEWAY6, DNS6, "::1");

        public boolean ipv6() {
            return number == 6;
        }

        @Override
        public String toString() {
            return "IPv" + number;
        }
    }
}
