package io.jslirp.engine;

import io.jslirp.flow.FlowStatus;
import io.jslirp.forward.PortForward;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.build.FrameBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jslirp.wire.Tcp.ACK;
import static io.jslirp.wire.Tcp.SYN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kind of flow the stack carries is in the one table: the status report lists them all with
 * their kinds and states, the counters count them there, and when they end (or the instance shuts
 * down) they leave it with the address handles they held.
 */
class OneTableTest {
    private static final String REMOTE = "192.0.2.1";
    private static final PortForward TCP = new PortForward(PortForward.Protocol.TCP, Ipv4.parse("127.0.0.1"), 2222, 0, 22);
    private static final PortForward UDP = new PortForward(PortForward.Protocol.UDP, Ipv4.parse("127.0.0.1"), 5353, 0, 53);

    private final NatHarness h = NatHarness.with().forward(TCP, UDP).build();

    OneTableTest() {
        h.guestAnnounces(4); // the gateway learns the guest's address (which it keeps) and MAC
    }

    private static FakeSockets.Socket listener(NatHarness h) {
        return h.sockets.of(Kind.TCP).stream().filter(s -> s.listening).findFirst().orElseThrow();
    }

    /** The guest opens a connection, a UDP flow and a ping; host clients come through a forwarded TCP and a UDP port. */
    private void openOneOfEach() {
        h.send(FrameBuilder.ip(NatHarness.GUEST, NatHarness.GATEWAY).tcp(40000, 8080).flags(SYN).seq(1).window(65535).mss(1460).bytes());
        h.send(FrameBuilder.ip(NatHarness.GUEST, REMOTE).udp(40001, 9).payload(new byte[3]).bytes());
        h.send(FrameBuilder.ip(NatHarness.GUEST, REMOTE).echo(0x77, 1).payload(new byte[8]).bytes());
        long[] client = Packet.halves("127.0.0.1");
        listener(h).clientConnects(client[0], client[1], 50000);
        h.sockets.of(Kind.UDP).stream().filter(s -> s.boundPort == 5353).findFirst().orElseThrow()
                .receiveFrom(client[0], client[1], 42000, "question".getBytes());
        h.settle();
        h.received();
    }

    @Test
    void theStatusListsEveryKindFromTheOneTable() {
        openOneOfEach();
        List<FlowStatus> rows = h.flows();
        assertThat(rows).extracting(f -> f.kind() + " " + f.state() + " " + (f.forwarded() ? "in" : "out") + " "
                        + f.guestAddress() + ":" + f.guestPort() + " " + f.remoteAddress() + " " + f.hostAddress() + ":" + f.hostPort())
                .containsExactlyInAnyOrder(
                        "tcp CONNECTING out 10.0.2.100:40000 10.0.2.2 127.0.0.1:8080",
                        "udp open out 10.0.2.100:40001 192.0.2.1 192.0.2.1:9",
                        "ping open out 10.0.2.100:119 192.0.2.1 192.0.2.1:0",
                        "tcp SYN_SENT in 10.0.2.100:22 10.0.2.2 127.0.0.1:50000",
                        "udp open in 10.0.2.100:53 10.0.2.2 127.0.0.1:42000");
        assertThat(rows).filteredOn(f -> f.kind().equals("ping")).singleElement()
                .satisfies(f -> assertThat(f.protocol()).isEqualTo("icmp"));
        assertThat(h.transport().tcpConnections()).as("the forwarded SYN counts").isEqualTo(2);
        assertThat(h.transport().udpFlows()).as("the forwarded client counts").isEqualTo(2);
    }

    @Test
    void theFiguresComeFromTheTable() {
        openOneOfEach();
        java.util.Map<String, Long> figures = new java.util.LinkedHashMap<>();
        h.flowTable().figures(figures::put);
        assertThat(figures).containsEntry("tcp_connections", 2L).containsEntry("open_tcp_connections", 2L)
                .containsEntry("udp_flows", 2L).containsEntry("ping_flows", 1L).containsEntry("open_ping_flows", 1L)
                .containsEntry("spliced_connections", 0L);
    }

    @Test
    void aForwardedSynAnsweredBecomesItsConnectionInThePlaceItHad() {
        openOneOfEach();
        FlowStatus dial = h.flows().stream().filter(f -> f.state().equals("SYN_SENT")).findFirst().orElseThrow();
        h.advance(NatHarness.SECOND / 2);
        // the guest answers the SYN it got (resent after a second of silence, so take the one in flight now)
        h.advance(NatHarness.SECOND);
        Packet syn = h.received().stream().filter(p -> p.flags == SYN).findFirst().orElseThrow();
        h.send(FrameBuilder.ip(NatHarness.GUEST, NatHarness.GATEWAY).tcp(22, dial.remotePort()).flags(SYN | ACK).seq(500)
                .ack(syn.seq + 1).bytes());
        FlowStatus connection = h.flows().stream().filter(f -> f.guestPort() == 22).findFirst().orElseThrow();
        assertThat(connection.state()).isEqualTo("ESTABLISHED");
        assertThat(connection.ageNanos()).as("the dial's age goes on").isGreaterThanOrEqualTo(dial.ageNanos() + 3 * NatHarness.SECOND / 2);
        assertThat(h.flowTable().opened(io.jslirp.flow.Kind.TCP)).as("counted once").isEqualTo(2);
    }

    @Test
    void flowsLeaveTheTableWithTheAddressesTheyHeld() {
        int handles = h.flowTable().addresses().size();
        openOneOfEach();
        assertThat(h.flowTable().addresses().size()).as("the remote's, held by two flows").isEqualTo(handles + 1);
        h.advance(61 * NatHarness.SECOND); // the idle datagram flows end; the guest never answered the forwarded SYN
        assertThat(h.flows()).extracting(FlowStatus::kind).containsExactly("tcp");
        h.transport().shutdown();
        assertThat(h.flows()).isEmpty();
        assertThat(h.flowTable().size()).isZero();
        assertThat(h.flowTable().addresses().size()).isEqualTo(handles);
    }
}
