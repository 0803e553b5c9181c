package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.policy.DestinationRules;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.wire.build.FrameBuilder;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The UDP NAT on fake sockets and virtual time, over IPv4 and IPv6 alike: one connected host
 * socket per flow, replies from the address the guest sent to, the host's ICMP errors passed on as
 * a router would (a closed port: port unreachable), the idle timeout, the flow limit and the policy.
 */
class UdpNatTest {
    private static final int GUEST_PORT = 40000, PORT = 5353;

    static Stream<Version> versions() {
        return Stream.of(Version.V4, Version.V6);
    }

    /** The scenario's harness and the host socket of its first flow (see {@link #flowFrom}). */
    private NatHarness h;
    private FakeSockets.Socket s;

    /** A scenario of version v begins with the guest's datagram of text: h, and s, the flow's host socket. */
    private void flowFrom(Version v, String text) {
        h = with(v).build();
        h.send(datagram(v, text));
        s = h.sockets.last(Kind.UDP);
    }

    private static NatHarness.Builder with(Version v) {
        return v.ipv6() ? NatHarness.with().ipv6() : NatHarness.with();
    }

    private static byte[] datagram(Version v, String text) {
        return FrameBuilder.ip(v.guest(), v.gateway()).udp(GUEST_PORT, PORT).payload(text.getBytes()).bytes();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aDatagramGoesOutOnAConnectedSocketAndTheReplyComesBackFromWhereItWent(Version v) {
        flowFrom(v, "query");
        assertThat(s.ipv6).isEqualTo(v.ipv6());
        assertThat(Packet.halves(v.hostLoopback())).containsExactly(s.peerHi, s.peerLo);
        assertThat(s.peerPort).isEqualTo(PORT);
        assertThat(s.sent).singleElement().satisfies(d -> assertThat(new String(d.payload())).isEqualTo("query"));
        h.send(datagram(v, "again"));
        assertThat(h.sockets.of(Kind.UDP)).as("one socket per flow").hasSize(1);
        assertThat(s.sent).hasSize(2);

        s.receive("answer".getBytes());
        h.settle();
        Packet reply = h.receivedOne();
        assertThat(reply.version).isEqualTo(v.number());
        assertThat(reply.source).isEqualTo(v.gateway());
        assertThat(reply.sourcePort).isEqualTo(PORT);
        assertThat(reply.destination).isEqualTo(v.guest());
        assertThat(reply.destinationPort).isEqualTo(GUEST_PORT);
        assertThat(new String(reply.payload)).isEqualTo("answer");
        assertThat(h.flows()).singleElement().satisfies(f -> {
            assertThat(f.protocol()).isEqualTo("udp");
            assertThat(f.fromGuest()).isEqualTo(10);
            assertThat(f.toGuest()).isEqualTo(6);
        });
        assertThat(h.flowTable().opened(io.jslirp.flow.Kind.UDP)).isEqualTo(1);
    }

    /**
     * The guest's datagrams of one loop iteration go to the host socket in one system call, in
     * order; a socket's waiting datagrams come in as few as its batch takes, each to the guest whole.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void datagramsGoAndComeManyPerSystemCall(Version v) {
        flowFrom(v, "first");
        int calls = h.sockets.sendManyCalls;
        for (int i = 0; i < 10; i++) h.deliver(datagram(v, "datagram " + i)); // one iteration's frames
        assertThat(s.sent).as("nothing before the flush").hasSize(1);
        h.settle();
        assertThat(h.sockets.sendManyCalls - calls).as("one sendmmsg for the ten").isEqualTo(1);
        assertThat(s.sent.stream().skip(1).map(d -> new String(d.payload())))
                .containsExactly("datagram 0", "datagram 1", "datagram 2", "datagram 3", "datagram 4", "datagram 5",
                        "datagram 6", "datagram 7", "datagram 8", "datagram 9");

        int receives = h.sockets.receiveManyCalls;
        for (int i = 0; i < 100; i++) s.receive(("reply " + i).getBytes());
        h.settle();
        List<Packet> replies = h.received();
        assertThat(replies).hasSize(100);
        for (int i = 0; i < 100; i++) assertThat(new String(replies.get(i).payload)).isEqualTo("reply " + i);
        assertThat(h.sockets.receiveManyCalls - receives).as("16 of up to 64 KiB at a time, then the rest").isEqualTo(7);
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.fromGuest()).isEqualTo(5 + 10 * 10));
    }

    /**
     * Over a link that cuts UDP frames (a tap, USO), a socket's datagrams of one size reach the
     * guest several to a frame, each whole and in order (a shorter one ends a run); a larger one
     * and an empty one go alone; without the offload every datagram has its frame.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void runsOfEqualDatagramsReachTheGuestInOneFrameTheLinkCuts(Version v) {
        for (boolean offload : new boolean[] {true, false}) {
            NatHarness.Builder b = with(v);
            NatHarness h = (offload ? b.offloadsUdp() : b).build();
            h.send(datagram(v, "go"));
            FakeSockets.Socket s = h.sockets.last(Kind.UDP);
            List<byte[]> sent = new java.util.ArrayList<>();
            int[] sizes = new int[31];
            int k = 0;
            for (int i = 0; i < 20; i++) sizes[k++] = 1000;
            sizes[k++] = 700;  // shorter: ends the run (datagram 16 to 20 are one frame)
            for (int i = 0; i < 5; i++) sizes[k++] = 1000;
            sizes[k++] = 1400; // larger: alone
            sizes[k++] = 0;
            sizes[k++] = 1000; // with the first 200: a run of two
            sizes[k++] = 200;
            sizes[k++] = 200;
            for (int i = 0; i < sizes.length; i++) {
                byte[] d = new byte[sizes[i]];
                for (int j = 0; j < d.length; j++) d[j] = (byte) (i * 31 + j);
                sent.add(d);
                s.receive(d);
            }
            h.settle();
            List<Packet> got = h.received();
            List<byte[]> payloads = got.stream().map(p -> p.payload).toList();
            assertThat(payloads).as("offload %s", offload).hasSize(sent.size());
            for (int i = 0; i < sent.size(); i++) assertThat(payloads.get(i)).as("datagram %d, offload %s", i, offload).isEqualTo(sent.get(i));
            assertThat(h.cutFrames).as("16 | 4 + 700 | 5 | 1000 + 200; 1400, 0 and the last 200 alone").isEqualTo(offload ? 4 : 0);
            assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.toGuest()).isEqualTo(java.util.Arrays.stream(sizes).sum()));
        }
    }

    /** The host socket's ICMP error for a closed port reaches the guest as port unreachable (ICMPv6 code 4 over IPv6). */
    @ParameterizedTest
    @MethodSource("versions")
    void aClosedPortIsAnsweredWithPortUnreachable(Version v) {
        flowFrom(v, "anyone?");
        h.sockets.last(Kind.UDP).icmpError(Errno.ECONNREFUSED);
        h.settle();
        Packet icmp = h.receivedOne();
        assertThat(icmp.source).isEqualTo(v.gateway());
        assertThat(icmp.icmpType).isEqualTo(v.ipv6() ? 1 : 3);
        assertThat(icmp.icmpCode).isEqualTo(v.ipv6() ? 4 : 3);
        assertThat(icmp.quotedProtocol()).isEqualTo(Packet.UDP);
        ByteBuffer quoted = ByteBuffer.wrap(icmp.quotedTransport());
        assertThat(quoted.getShort(0) & 0xffff).as("the guest's port, which its kernel matches the error by").isEqualTo(GUEST_PORT);
        assertThat(quoted.getShort(2) & 0xffff).isEqualTo(PORT);
        assertThat(quoted.getShort(4) & 0xffff).as("the datagram's UDP length").isEqualTo(8 + "anyone?".length());
        assertThat(h.counters().unreachableSent).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void anIdleFlowClosesAfterTheTimeout(Version v) {
        flowFrom(v, "x");
        h.advance(59 * NatHarness.SECOND);
        h.send(datagram(v, "y")); // traffic keeps it
        h.advance(59 * NatHarness.SECOND);
        assertThat(s.closed).isFalse();
        h.advance(2 * NatHarness.SECOND);
        assertThat(s.closed).isTrue();
        assertThat(h.transport().udpFlows()).isZero();
        assertThat(h.flows()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theFlowLimitAndThePolicyRefuseNewFlowsAsARouter(Version v) {
        NatHarness h = with(v).limits(new Limits(10, 10, 1)).build();
        h.send(datagram(v, "first"));
        h.send(FrameBuilder.ip(v.guest(), v.gateway()).udp(GUEST_PORT + 1, PORT).payload("second".getBytes()).bytes());
        Packet refused = h.receivedOne();
        assertThat(refused.icmpCode).as("administratively prohibited").isEqualTo(v.ipv6() ? 1 : 13);
        assertThat(h.counters().refusedAtLimit).isEqualTo(1);
        assertThat(h.sockets.of(Kind.UDP)).hasSize(1);

        DestinationRules deny = new DestinationRules(List.of(), List.of(DestinationRules.Network.parse(v.ipv6() ? "::1" : "127.0.0.1")));
        NatHarness p = with(v).rules(deny).build();
        p.send(datagram(v, "no"));
        assertThat(p.receivedOne().icmpCode).isEqualTo(v.ipv6() ? 1 : 13);
        assertThat(p.counters().policyRefused).isEqualTo(1);
        assertThat(p.sockets.all()).isEmpty();

        NatHarness n = with(v).disableHostLoopback().build();
        n.send(datagram(v, "no"));
        assertThat(n.receivedOne().icmpCode).as("net unreachable (no route)").isZero();
        assertThat(n.sockets.all()).isEmpty();
    }
}
