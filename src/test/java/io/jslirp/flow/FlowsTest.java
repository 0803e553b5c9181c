package io.jslirp.flow;

import io.jslirp.util.AddressBook;
import io.jslirp.util.Log;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one table: lanes, states and their one transition, address ownership, slots reused, the status rows and figures. */
class FlowsTest {
    private final AddressBook book = new AddressBook();
    private final Flows flows = new Flows(book);
    private final int guest = book.acquire4(0x0a000264), gateway = book.acquire4(0x0a000202), loopback = book.acquire4(0x7f000001);

    /** A flow with nothing of its own: its host side is the loopback at the remote's port. */
    private final class TestFlow extends Flow {
        TestFlow(Kind kind, boolean forwarded, int guest, int guestPort, int remote, int remotePort) {
            super(kind, forwarded, guest, guestPort, remote, remotePort);
            this.hostAddress = loopback;
            this.hostPort = remotePort;
        }
    }

    private TestFlow flow(Kind kind, int guestPort) {
        return new TestFlow(kind, false, guest, guestPort, gateway, 80);
    }

    @Test
    void aFlowIsFoundByItsKindAndGuestSideOnly() {
        TestFlow tcp = flow(Kind.TCP, 40000), udp = flow(Kind.UDP, 40000);
        flows.add(tcp, State.OPENING, 5);
        flows.add(udp, State.OPEN, 6);
        assertThat(flows.find(Kind.TCP, guest, 40000, gateway, 80)).isSameAs(tcp);
        assertThat(flows.find(Kind.UDP, guest, 40000, gateway, 80)).isSameAs(udp);
        assertThat(flows.find(Kind.PING, guest, 40000, gateway, 80)).isNull();
        assertThat(flows.find(Kind.TCP, guest, 40001, gateway, 80)).isNull();
        assertThat(flows.find(Kind.TCP, gateway, 80, guest, 40000)).as("the other direction").isNull();
        assertThat(tcp.state()).isEqualTo(State.OPENING);
        assertThat(tcp.openedAt()).isEqualTo(5);
    }

    @Test
    void splicedFlowsAreListedButNeverLookedUp() {
        TestFlow spliced = flow(Kind.TCP_SPLICE, 40000);
        flows.add(spliced, State.OPEN, 0);
        assertThat(flows.find(Kind.TCP_SPLICE, guest, 40000, gateway, 80)).isNull();
        assertThat(flows.size(Kind.TCP_SPLICE)).isEqualTo(1);
        assertThat(flows.all(Kind.TCP_SPLICE)).containsExactly(spliced);
    }

    @Test
    void theTableHoldsTheGuestSidesAddressesWhileTheFlowIsInIt() {
        int before = book.size();
        int remote = book.acquire4(0xc0000201);
        TestFlow f = new TestFlow(Kind.UDP, false, guest, 5353, remote, 53);
        flows.add(f, State.OPEN, 0);
        book.release(remote); // the caller's reference: the table keeps its own
        assertThat(book.format(remote)).isEqualTo("192.0.2.1");
        assertThat(book.size()).isEqualTo(before + 1);
        flows.transition(f, State.CLOSED);
        assertThat(book.size()).as("the remote's handle is freed with the flow").isEqualTo(before);
        assertThat(flows.size()).isZero();
        assertThat(flows.find(Kind.UDP, guest, 5353, remote, 53)).isNull();
    }

    @Test
    void aSecondFlowWithTheSameGuestSideOrAFlowAddedTwiceIsAnError() {
        TestFlow f = flow(Kind.TCP, 1);
        flows.add(f, State.OPEN, 0);
        assertThatThrownBy(() -> flows.add(flow(Kind.TCP, 1), State.OPEN, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> flows.add(f, State.OPEN, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(flows.size()).isEqualTo(1);
    }

    @Test
    void transitionsAreOneWayToClosedAndLoggedWithDebug() {
        TestFlow f = flow(Kind.TCP, 40000);
        List<String> log = debugLog(() -> {
            flows.add(f, State.OPENING, 0);
            flows.transition(f, State.OPEN);
            flows.transition(f, State.OPEN); // no change, no line
            flows.transition(f, State.CLOSING);
            flows.transition(f, State.CLOSED);
            flows.transition(f, State.OPEN); // after its end: nothing
        });
        assertThat(log).containsExactly(
                "jslirp: tcp 10.0.2.100:40000 -> 10.0.2.2:80: opened, OPENING",
                "jslirp: tcp 10.0.2.100:40000 -> 10.0.2.2:80: OPENING -> OPEN",
                "jslirp: tcp 10.0.2.100:40000 -> 10.0.2.2:80: OPEN -> CLOSING",
                "jslirp: tcp 10.0.2.100:40000 -> 10.0.2.2:80: CLOSING -> CLOSED");
        assertThat(f.state()).isEqualTo(State.CLOSED);
        assertThat(flows.size(Kind.TCP)).isZero();
        assertThat(flows.opened(Kind.TCP)).isEqualTo(1);
    }

    @Test
    void aReplacementTakesTheFlowsPlaceAgeAndAddressesAndCountsOnce() {
        TestFlow dial = new TestFlow(Kind.TCP, true, guest, 8080, gateway, 32768);
        flows.add(dial, State.OPENING, 100);
        int handles = book.size();
        TestFlow connection = new TestFlow(Kind.TCP, true, guest, 8080, gateway, 32768);
        flows.replace(dial, connection, State.OPEN);
        assertThat(flows.find(Kind.TCP, guest, 8080, gateway, 32768)).isSameAs(connection);
        assertThat(connection.openedAt()).isEqualTo(100);
        assertThat(connection.state()).isEqualTo(State.OPEN);
        assertThat(dial.state()).isEqualTo(State.CLOSED);
        assertThat(flows.size()).isEqualTo(1);
        assertThat(flows.opened(Kind.TCP)).isEqualTo(1);
        assertThat(book.size()).isEqualTo(handles);
        assertThatThrownBy(() -> flows.replace(connection, flow(Kind.TCP, 1), State.OPEN))
                .as("another guest side").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void slotsAreReusedAndTheStatusListsEveryFlowInTheirOrder() {
        List<TestFlow> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TestFlow f = flow(Kind.UDP, 1000 + i);
            flows.add(f, State.OPEN, i);
            all.add(f);
        }
        for (int i = 0; i < 200; i += 2) flows.transition(all.get(i), State.CLOSED);
        TestFlow late = flow(Kind.PING, 7);
        late.carriedFromGuest(64);
        flows.add(late, State.OPEN, 1000);
        List<FlowStatus> rows = new ArrayList<>();
        flows.statuses(2000, rows::add);
        assertThat(rows).hasSize(101);
        assertThat(rows.getFirst().guestPort()).isEqualTo(1001);
        assertThat(rows.get(99)).as("in the slot freed last, not a new one").isEqualTo(new FlowStatus("ping", "icmp", "open", false,
                "10.0.2.100", 7, "10.0.2.2", 80, "127.0.0.1", 80, 64, 0, 0, 0, 1000));
        assertThat(rows.getLast().guestPort()).isEqualTo(1199);
    }

    @Test
    void theFiguresCountFlowsOpenedAndOpenByKind() {
        TestFlow a = flow(Kind.TCP, 1), b = flow(Kind.TCP, 2);
        flows.add(a, State.OPEN, 0);
        flows.add(b, State.OPEN, 0);
        flows.add(flow(Kind.TCP_SPLICE, 3), State.OPENING, 0);
        flows.transition(a, State.CLOSED);
        List<String> figures = new ArrayList<>();
        flows.figures((name, value) -> figures.add(name + "=" + value));
        assertThat(figures).contains("tcp_connections=2", "open_tcp_connections=1", "spliced_connections=1",
                "open_spliced_connections=1", "udp_flows=0", "open_ping_flows=0");
    }

    /** The debug lines run writes to stderr. */
    private static List<String> debugLog(Runnable run) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        boolean was = Log.debugEnabled();
        System.setErr(new PrintStream(captured, true));
        Log.enableDebug(true);
        try {
            run.run();
        } finally {
            Log.enableDebug(was);
            System.setErr(err);
        }
        return captured.toString().lines().filter(l -> l.startsWith("jslirp: tcp ")).toList();
    }
}
