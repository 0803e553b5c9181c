package io.jslirp.forward;

import static io.jslirp.engine.Packet.ACK;
import static io.jslirp.engine.Packet.SYN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.policy.HostAddress;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.sys.Sockets;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.build.FrameBuilder;
import org.junit.jupiter.api.Test;

/**
 * Forwarded host ports on fake sockets: a TCP listener's client becomes a connection the guest
 * answers (from the gateway and a port of its own, or with --preserve-source from the client);
 * a client of an IPv6 host address reaches the guest over IPv6 once its IPv6 address is known,
 * over IPv4 before; a UDP client's datagrams and the guest's replies go through a mapping.
 */
class ForwardsTest {
    private static final int HOST_PORT = 8080, GUEST_PORT = 80;

    private static PortForward tcp4() {
        return new PortForward(PortForward.Protocol.TCP, Ipv4.parse("127.0.0.1"), HOST_PORT, 0, GUEST_PORT);
    }

    private static PortForward tcp6() {
        return new PortForward(PortForward.Protocol.TCP, 0, HostAddress.LOOPBACK, HOST_PORT, 0, GUEST_PORT);
    }

    private static FakeSockets.Socket listener(NatHarness h) {
        return h.sockets.of(Kind.TCP).stream().filter(s -> s.listening).findFirst().orElseThrow();
    }

    @Test
    void aClientOfATcpForwardReachesTheGuestFromTheGateway() {
        NatHarness h = NatHarness.with().forward(tcp4()).build();
        FakeSockets.Socket l = listener(h);
        assertThat(l.ipv6).isFalse();
        assertThat(Packet.halves("127.0.0.1")).containsExactly(l.boundHi, l.boundLo);
        assertThat(l.boundPort).isEqualTo(HOST_PORT);
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        FakeSockets.Socket accepted = l.clientConnects(client[0], client[1], 50000);
        h.settle();
        Packet syn = h.receivedOne();
        assertThat(syn.flags).isEqualTo(SYN);
        assertThat(syn.source).isEqualTo(Version.V4.gateway());
        assertThat(syn.sourcePort).as("a port of the gateway's own").isBetween(32768, 60999);
        assertThat(syn.destination).isEqualTo(Version.V4.guest());
        assertThat(syn.destinationPort).isEqualTo(GUEST_PORT);
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.state()).isEqualTo("SYN_SENT"));

        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, syn.sourcePort).flags(SYN | ACK).seq(500).ack(syn.seq + 1).bytes());
        assertThat(h.receivedOne().flags).as("the handshake's last ACK").isEqualTo(ACK);
        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, syn.sourcePort).flags(ACK).seq(501).ack(syn.seq + 1)
                .payload("welcome".getBytes()).bytes());
        assertThat(new String(accepted.written())).isEqualTo("welcome");
        assertThat(h.flows()).singleElement().satisfies(f -> {
            assertThat(f.forwarded()).isTrue();
            assertThat(f.hostAddress()).isEqualTo("127.0.0.1");
            assertThat(f.hostPort()).isEqualTo(50000);
        });
    }

    @Test
    void aGuestThatNeverAnswersResetsTheClientAfterFourSyns() {
        NatHarness h = NatHarness.with().forward(tcp4()).build();
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        FakeSockets.Socket accepted = listener(h).clientConnects(client[0], client[1], 50000);
        h.settle();
        assertThat(h.receivedOne().flags).isEqualTo(SYN);
        h.advance(30 * NatHarness.SECOND);
        assertThat(h.received()).as("again after 1, 2 and 4 s").hasSize(3);
        assertThat(accepted.lingerZero).isTrue();
        assertThat(accepted.closed).isTrue();
        assertThat(h.flows()).isEmpty();
    }

    @Test
    void withPreserveSourceARemoteClientKeepsItsAddressAndALoopbackOneDoesNot() {
        NatHarness h = NatHarness.with().preserveSource().forward(tcp4()).build();
        h.guestAnnounces(4);
        long[] remote = Packet.halves("192.0.2.9");
        listener(h).clientConnects(remote[0], remote[1], 41000);
        h.settle();
        Packet syn = h.receivedOne();
        assertThat(syn.source).isEqualTo("192.0.2.9");
        assertThat(syn.sourcePort).isEqualTo(41000);
        long[] loopback = Packet.halves("127.0.0.1");
        listener(h).clientConnects(loopback[0], loopback[1], 41001);
        h.settle();
        assertThat(h.receivedOne().source).isEqualTo(Version.V4.gateway());
    }

    @Test
    void aClientOfAnIpv6ForwardReachesTheGuestOverIpv6OnceItsAddressIsKnownAndOverIpv4Before() {
        NatHarness h = NatHarness.with().ipv6().forward(tcp6()).build();
        FakeSockets.Socket l = listener(h);
        assertThat(l.ipv6).isTrue();
        assertThat(FakeSockets.has(l, Sockets.IPPROTO_IPV6, Sockets.IPV6_V6ONLY, 1)).as("IPv6 clients only").isTrue();
        h.guestAnnounces(4);
        long[] client = Packet.halves("::1");
        l.clientConnects(client[0], client[1], 50000);
        h.settle();
        Packet before = h.receivedOne();
        assertThat(before.version).isEqualTo(4);
        assertThat(before.source).isEqualTo(Version.V4.gateway());

        h.guestAnnounces(6);
        l.clientConnects(client[0], client[1], 50001);
        h.settle();
        Packet after = h.receivedOne();
        assertThat(after.version).isEqualTo(6);
        assertThat(after.source).isEqualTo(Version.V6.gateway());
        assertThat(after.destination).isEqualTo(Version.V6.guest());
    }

    @Test
    void aUdpClientsDatagramsAndTheGuestsRepliesGoThroughOneMapping() {
        PortForward udp = new PortForward(PortForward.Protocol.UDP, Ipv4.parse("127.0.0.1"), 5353, 0, 53);
        NatHarness h = NatHarness.with().forward(udp).build();
        FakeSockets.Socket bound = h.sockets.last(Kind.UDP);
        assertThat(bound.boundPort).isEqualTo(5353);
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        bound.receiveFrom(client[0], client[1], 42000, "question".getBytes());
        h.settle();
        Packet in = h.receivedOne();
        assertThat(in.source).isEqualTo(Version.V4.gateway());
        assertThat(in.destinationPort).isEqualTo(53);
        assertThat(new String(in.payload)).isEqualTo("question");

        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).udp(53, in.sourcePort).payload("answer".getBytes()).bytes());
        assertThat(bound.sent).singleElement().satisfies(d -> {
            assertThat(new String(d.payload())).isEqualTo("answer");
            assertThat(d.port()).isEqualTo(42000);
            assertThat(new long[] {d.hi(), d.lo()}).containsExactly(client);
        });
        bound.receiveFrom(client[0], client[1], 42000, "again".getBytes());
        h.settle();
        assertThat(h.receivedOne().sourcePort).as("the same mapping").isEqualTo(in.sourcePort);
        assertThat(h.transport().udpFlows()).isEqualTo(1);
        h.advance(61 * NatHarness.SECOND);
        assertThat(h.transport().udpFlows()).as("idle mappings end").isZero();
    }

    @Test
    void aPortThatCannotBeBoundSaysSo() {
        NatHarness h = NatHarness.with().build();
        h.sockets.bindResult = s -> -Errno.EADDRINUSE;
        assertThatThrownBy(() -> h.transport().forward(tcp4())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("127.0.0.1:8080").hasMessageContaining("EADDRINUSE");
        assertThat(h.sockets.openCount()).as("the socket is closed again").isZero();
    }

    @Test
    void removingAForwardClosesItsListenerAndLetsItsConnectionsCarryOn() {
        NatHarness h = NatHarness.with().build();
        HostForward f = h.transport().forward(tcp4());
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        listener(h).clientConnects(client[0], client[1], 50000);
        h.settle();
        Packet syn = h.receivedOne();
        h.transport().unforward(f);
        assertThat(listener(h).closed).isTrue();
        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, syn.sourcePort).flags(SYN | ACK).seq(500).ack(syn.seq + 1).bytes());
        assertThat(h.receivedOne().flags).isEqualTo(ACK);
        assertThat(h.transport().tcpConnections()).isEqualTo(1);
    }
}
