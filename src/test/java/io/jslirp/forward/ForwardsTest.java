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

    /** The window credit's figures of h (tcp_window_holders, tcp_window_waiting, ...). */
    private static java.util.Map<String, Long> credit(NatHarness h) {
        java.util.Map<String, Long> figures = new java.util.HashMap<>();
        h.transport().figures(figures::put);
        return figures;
    }

    /** Opens the guest's own connections to the gateway (the host's loopback), each through its handshake; returns their SYN-ACKs' windows. */
    private static java.util.List<Integer> guestConnections(NatHarness h, int first, int count) {
        java.util.List<Integer> windows = new java.util.ArrayList<>();
        for (int port = first; port < first + count; port++) {
            FrameBuilder guest = FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(port, 9000);
            h.send(guest.flags(SYN).seq(1000).window(65535).mss(1460).bytes());
            h.sockets.last(Kind.TCP).completeConnect();
            h.settle();
            Packet synAck = h.receivedOne();
            windows.add(synAck.window);
            h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(port, 9000).flags(ACK).seq(1001).ack(synAck.seq + 1).bytes());
        }
        return windows;
    }

    /**
     * A forwarded connection's SYN goes through the window credit as the guest's own connections
     * do: with every unit held it offers no window, the handshake's ACK none either, and the
     * connection gets a window update when its turn comes.
     */
    @Test
    void aForwardedSynOffersNoWindowWhileEveryUnitOfTheCreditIsHeld() {
        NatHarness h = NatHarness.with().forward(tcp4()).build();
        h.guestAnnounces(4);
        assertThat(guestConnections(h, 30000, io.jslirp.tcp.WindowCredit.UNITS)).containsOnly(65535);
        long[] client = Packet.halves("127.0.0.1");
        listener(h).clientConnects(client[0], client[1], 50000);
        h.settle();
        Packet syn = h.receivedOne();
        assertThat(syn.flags).isEqualTo(SYN);
        assertThat(syn.window).as("no unit free").isZero();
        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, syn.sourcePort).flags(SYN | ACK).seq(500).ack(syn.seq + 1)
                .window(65535).mss(1460).bytes());
        Packet ack = h.receivedOne();
        assertThat(ack.flags).isEqualTo(ACK);
        assertThat(ack.window).as("the handshake's ACK").isZero();
        assertThat(credit(h)).containsEntry("tcp_window_holders", (long) io.jslirp.tcp.WindowCredit.UNITS)
                .containsEntry("tcp_window_waiting", 1L).containsEntry("tcp_window_waits", 1L);

        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(30000, 9000).flags(io.jslirp.engine.Packet.RST).seq(1001).bytes());
        Packet update = h.receivedOne();
        assertThat(update.destinationPort).as("its turn").isEqualTo(GUEST_PORT);
        assertThat(update.window).isPositive();
        assertThat(update.ack).isEqualTo(501);
        assertThat(credit(h)).containsEntry("tcp_window_waiting", 0L);
    }

    /**
     * With a unit free, a forwarded SYN offers its window and that unit is the connection's: the
     * guest's next connection beyond the credit waits, and the handshake's ACK never offers less
     * than the SYN did. A guest that has not answered by the first SYN timeout gives the unit back
     * (its SYN's window stays what it was), and so does a dial that ends.
     */
    @Test
    void aForwardedSynsWindowHoldsAUnitUntilTheGuestIsSlowToAnswer() {
        NatHarness h = NatHarness.with().forward(tcp4()).build();
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        listener(h).clientConnects(client[0], client[1], 50000);
        h.settle();
        Packet syn = h.receivedOne();
        assertThat(syn.window).as("the first buffer's").isPositive();
        assertThat(credit(h)).containsEntry("tcp_window_holders", 1L);
        int units = io.jslirp.tcp.WindowCredit.UNITS;
        assertThat(guestConnections(h, 30000, units)).as("the last one beyond the credit").endsWith(65535, 0)
                .filteredOn(w -> w == 0).hasSize(1);
        h.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, syn.sourcePort).flags(SYN | ACK).seq(500).ack(syn.seq + 1)
                .window(65535).mss(1460).bytes());
        Packet ack = h.receivedOne();
        assertThat(ack.flags).isEqualTo(ACK);
        assertThat(ack.window).as("never less than the SYN offered").isGreaterThanOrEqualTo(syn.window);
        assertThat(credit(h)).containsEntry("tcp_window_holders", (long) units).containsEntry("tcp_window_waiting", 1L);

        // A second client while every unit is held: its SYN offers none.
        listener(h).clientConnects(client[0], client[1], 50001);
        h.settle();
        assertThat(h.receivedOne().window).isZero();

        NatHarness slow = NatHarness.with().forward(tcp4()).build();
        slow.guestAnnounces(4);
        listener(slow).clientConnects(client[0], client[1], 50000);
        slow.settle();
        Packet first = slow.receivedOne();
        assertThat(first.window).isPositive();
        assertThat(credit(slow)).containsEntry("tcp_window_holders", 1L);
        slow.advance(NatHarness.SECOND + NatHarness.SECOND / 10);
        Packet again = slow.receivedOne();
        assertThat(again.flags).isEqualTo(SYN);
        assertThat(again.window).as("the same SYN").isEqualTo(first.window);
        assertThat(credit(slow)).as("given back at the first SYN timeout").containsEntry("tcp_window_holders", 0L);
        slow.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, again.sourcePort).flags(SYN | ACK).seq(500)
                .ack(again.seq + 1).window(65535).mss(1460).bytes());
        assertThat(slow.receivedOne().window).as("still not shrunk").isGreaterThanOrEqualTo(first.window);

        NatHarness refused = NatHarness.with().forward(tcp4()).build();
        refused.guestAnnounces(4);
        listener(refused).clientConnects(client[0], client[1], 50000);
        refused.settle();
        Packet offered = refused.receivedOne();
        assertThat(credit(refused)).containsEntry("tcp_window_holders", 1L);
        refused.send(FrameBuilder.ip(Version.V4.guest(), Version.V4.gateway()).tcp(GUEST_PORT, offered.sourcePort)
                .flags(io.jslirp.engine.Packet.RST | ACK).seq(0).ack(offered.seq + 1).bytes());
        assertThat(refused.flows()).isEmpty();
        assertThat(credit(refused)).as("the dial ended").containsEntry("tcp_window_holders", 0L);
    }

    /** A loopback client the splice cannot take (no descriptors left for it) reaches the guest through the link instead. */
    @Test
    void aLoopbackClientTheSpliceCannotTakeGoesThroughTheLink() {
        NatHarness h = NatHarness.with().build();
        java.util.List<Integer> offered = new java.util.ArrayList<>();
        h.transport().loopbackClients((fd, client, guestPort) -> offered.add(guestPort) && false);
        h.transport().forward(tcp4());
        h.guestAnnounces(4);
        long[] client = Packet.halves("127.0.0.1");
        FakeSockets.Socket accepted = listener(h).clientConnects(client[0], client[1], 50000);
        h.settle();
        assertThat(offered).as("offered to the splice first").containsExactly(GUEST_PORT);
        Packet syn = h.receivedOne();
        assertThat(syn.flags).isEqualTo(SYN);
        assertThat(syn.destinationPort).isEqualTo(GUEST_PORT);
        assertThat(accepted.closed).isFalse();
    }

    /**
     * A forwarded port at the descriptor limit: accept fails (EMFILE) while the client waits in the
     * kernel's queue. The listener rests instead of being tried again in every iteration (the loop
     * held a core at 100 %; the virtual loop fails a test whose handlers never settle), and takes
     * the client once it is watched again after the pause and a descriptor is free.
     */
    @Test
    void aForwardAtTheDescriptorLimitRestsAndTakesItsClientOnceItCan() {
        NatHarness h = NatHarness.with().forward(tcp4()).build();
        h.guestAnnounces(4);
        FakeSockets.Socket l = listener(h);
        long[] client = Packet.halves("127.0.0.1");
        h.sockets.acceptError = -Errno.EMFILE;
        l.clientConnects(client[0], client[1], 50000);
        h.settle();
        assertThat(h.received()).isEmpty();
        assertThat(h.loop.interest(l.fd)).as("not watched while it rests").isZero();
        h.sockets.acceptError = 0; // a flow ended
        h.advance(io.jslirp.loop.AcceptPause.PAUSE_NANOS);
        assertThat(h.receivedOne().flags).as("the client taken: our SYN toward the guest").isEqualTo(SYN);
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
