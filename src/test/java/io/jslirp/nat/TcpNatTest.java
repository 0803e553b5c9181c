package io.jslirp.nat;

import static io.jslirp.engine.Packet.ACK;
import static io.jslirp.engine.Packet.FIN;
import static io.jslirp.engine.Packet.PSH;
import static io.jslirp.engine.Packet.RST;
import static io.jslirp.engine.Packet.SYN;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.loop.Pacing;
import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.policy.DestinationRules;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.sys.Sockets;
import io.jslirp.tcp.WindowCredit;
import io.jslirp.wire.build.FrameBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The TCP NAT between a scripted guest and fake host sockets on virtual time, the same scenarios
 * over IPv4 and IPv6: the guest's connection becomes a host connect, and only a completed connect
 * gets the SYN-ACK; data goes both ways through the flush; closes, resets and refusals reach the
 * other side; limits and the policy refuse as a router would.
 */
class TcpNatTest {
    private static final int GUEST_PORT = 40000, PORT = 8080;
    private static final long GUEST_ISN = 1000;

    static Stream<Version> versions() {
        return Stream.of(Version.V4, Version.V6);
    }

    /** The scenario's harness, and for one through the handshake (see {@link #establish}) our ISN and the host socket. */
    private NatHarness h;
    private long iss;
    private FakeSockets.Socket s;

    /** A scenario of version v begins: h. */
    private void start(Version v) {
        h = harness(v);
    }

    /** A scenario of version v begins with a connection through the handshake: h, iss, s. */
    private void establish(Version v) {
        start(v);
        iss = established(h, v);
        s = h.sockets.last(Kind.TCP);
    }

    private static NatHarness harness(Version v) {
        return v.ipv6() ? NatHarness.with().ipv6().build() : NatHarness.with().build();
    }

    private static FrameBuilder fromGuest(Version v) {
        return FrameBuilder.ip(v.guest(), v.gateway()).tcp(GUEST_PORT, PORT);
    }

    private static byte[] syn(Version v) {
        return fromGuest(v).flags(SYN).seq(GUEST_ISN).window(65535).mss(1460).bytes();
    }

    /** A connection through the handshake: the host socket connected, the SYN-ACK answered; returns our ISN. */
    private static long established(NatHarness h, Version v) {
        h.send(syn(v));
        h.sockets.last(Kind.TCP).completeConnect();
        h.settle();
        Packet synAck = h.receivedOne();
        h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(synAck.seq + 1).bytes());
        assertThat(h.received()).as("nothing to answer the handshake's ACK").isEmpty();
        return synAck.seq;
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aSynBecomesAHostConnectAndOnlyItsSuccessIsAnsweredWithASynAck(Version v) {
        start(v);
        h.send(syn(v));
        FakeSockets.Socket s = h.sockets.last(Kind.TCP);
        assertThat(s.ipv6).isEqualTo(v.ipv6());
        assertThat(s.peerPort).isEqualTo(PORT);
        assertThat(Packet.halves(v.hostLoopback())).as("the gateway is the host's loopback").containsExactly(s.peerHi, s.peerLo);
        assertThat(FakeSockets.has(s, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1)).isTrue();
        assertThat(h.received()).as("no SYN-ACK while the host connect is in progress").isEmpty();
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.state()).isEqualTo("CONNECTING"));

        s.completeConnect();
        h.settle();
        Packet synAck = h.receivedOne();
        assertThat(synAck.version).isEqualTo(v.number());
        assertThat(synAck.source).isEqualTo(v.gateway());
        assertThat(synAck.destination).isEqualTo(v.guest());
        assertThat(synAck.flags).isEqualTo(SYN | ACK);
        assertThat(synAck.ack).isEqualTo(GUEST_ISN + 1);
        assertThat(synAck.mss).as("MTU - 40, or - 60 over IPv6").isEqualTo(v.ipv6() ? 1440 : 1460);
        assertThat(h.flowTable().opened(io.jslirp.flow.Kind.TCP)).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void bytesGoBothWaysAndAreAcknowledged(Version v) {
        establish(v);
        h.send(fromGuest(v).flags(ACK | PSH).seq(GUEST_ISN + 1).ack(iss + 1).payload("hello".getBytes()).bytes());
        assertThat(new String(s.written())).as("written to the host socket at the flush").isEqualTo("hello");
        Packet ack = h.receivedOne();
        assertThat(ack.flags).isEqualTo(ACK);
        assertThat(ack.ack).isEqualTo(GUEST_ISN + 6);

        Packet data = hostSends(h, s, "world");
        assertThat(data.seq).isEqualTo(iss + 1);
        assertThat(data.has(ACK | PSH)).isTrue();
        assertThat(s.unread()).as("kept in the host socket until the guest acknowledges it").isEqualTo(5);
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.queuedToGuest()).isEqualTo(5));
        h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 6).ack(iss + 6).bytes());
        assertThat(s.unread()).as("acknowledged: dropped from the socket at the flush").isZero();
        assertThat(h.flows()).singleElement().satisfies(f -> {
            assertThat(f.queuedToGuest()).isZero();
            assertThat(f.fromGuest()).isEqualTo(5);
            assertThat(f.toGuest()).isEqualTo(5);
            assertThat(f.state()).isEqualTo("ESTABLISHED");
        });
    }

    /**
     * Lesson 3 toward the guest: a bulk flow whose guest window is megabytes sends one burst per
     * loop iteration, and a reply that arrives meanwhile on another connection goes out ahead of
     * the bulk flow's next burst, not after its whole window.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void aBulkFlowSendsABurstAnIterationAndAReplyGoesAheadOfItsNext(Version v) {
        start(v);
        int bulkPort = GUEST_PORT, replyPort = GUEST_PORT + 1;
        long bulkIss = established(h, v, bulkPort);
        FakeSockets.Socket bulk = h.sockets.last(Kind.TCP);
        established(h, v, replyPort);
        FakeSockets.Socket reply = h.sockets.last(Kind.TCP);
        int mss = v.ipv6() ? 1440 : 1460;
        int burst = 65536 / mss * mss;
        int total = 400_000;

        bulk.peerSends(new byte[total]);
        h.loop.iterate();
        List<Packet> first = h.received();
        assertThat(first).allSatisfy(p -> assertThat(p.destinationPort).isEqualTo(bulkPort));
        assertThat(first.stream().mapToInt(p -> p.payload.length).sum()).as("one burst").isEqualTo(burst);

        reply.peerSends("pong".getBytes());
        h.loop.iterate();
        List<Packet> second = h.received();
        assertThat(second.getFirst().destinationPort).as("the reply goes first").isEqualTo(replyPort);
        assertThat(new String(second.getFirst().payload)).isEqualTo("pong");
        assertThat(second.subList(1, second.size())).allSatisfy(p -> assertThat(p.destinationPort).isEqualTo(bulkPort));
        assertThat(second.stream().skip(1).mapToInt(p -> p.payload.length).sum()).as("then the bulk flow's next burst").isEqualTo(burst);
        assertThat(second.get(1).seq).isEqualTo(bulkIss + 1 + burst);

        h.settle(); // the loop runs again by itself until the window or the data ends
        int rest = h.received().stream().mapToInt(p -> p.payload.length).sum();
        assertThat(2 * burst + rest).isEqualTo(total);
    }

    /**
     * With a link that reads payloads only when it writes its frames out (QEMU's stream), each
     * flow's peek goes to a window of its own, and before a window is used again the link writes
     * out: six flows sending in one iteration peek more often than there are windows, and every
     * byte the guest gets is its flow's.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void peekWindowsAreNotReusedBeforeALinkThatGathersWroteThemOut(Version v) {
        NatHarness h = (v.ipv6() ? NatHarness.with().ipv6() : NatHarness.with()).gathersPayloads().build();
        int flows = 6;
        List<FakeSockets.Socket> sockets = new java.util.ArrayList<>();
        for (int i = 0; i < flows; i++) {
            established(h, v, GUEST_PORT + i);
            sockets.add(h.sockets.last(Kind.TCP));
        }
        for (int i = 0; i < flows; i++) {
            byte[] data = new byte[20_000];
            java.util.Arrays.fill(data, (byte) (i + 1));
            sockets.get(i).peerSends(data);
        }
        h.loop.iterate();
        List<Packet> sent = h.received();
        assertThat(sent.stream().map(p -> p.destinationPort).distinct().count()).as("every flow sent in the one iteration").isEqualTo(flows);
        assertThat(sent).allSatisfy(p -> {
            byte[] expected = new byte[p.payload.length];
            java.util.Arrays.fill(expected, (byte) (p.destinationPort - GUEST_PORT + 1));
            assertThat(p.payload).as("the bytes of the flow to port %d", p.destinationPort).isEqualTo(expected);
        });
        assertThat(sent.stream().mapToInt(p -> p.payload.length).sum()).isEqualTo(flows * 20_000);
    }

    /**
     * Lesson 3 with TSO: alone, a bulk flow sends 8 large segments a flush; while another
     * connection carries an interactive exchange (the guest's small request written to the host,
     * its answer awaited), 2, so the answer waits for less; 2 ms after the last request, 8 again.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void besideAnInteractiveExchangeABulkFlowSendsShortBursts(Version v) {
        NatHarness h = (v.ipv6() ? NatHarness.with().ipv6() : NatHarness.with()).offloadsTcp().build();
        int bulkPort = GUEST_PORT, replyPort = GUEST_PORT + 1;
        long bulkIss = established(h, v, bulkPort);
        FakeSockets.Socket bulk = h.sockets.last(Kind.TCP);
        long replyIss = established(h, v, replyPort);
        FakeSockets.Socket reply = h.sockets.last(Kind.TCP);
        reply.peerSends("hi".getBytes()); // an exchange before: the host answers on this connection
        h.settle();
        assertThat(h.received()).singleElement().satisfies(p -> assertThat(new String(p.payload)).isEqualTo("hi"));
        int mss = v.ipv6() ? 1440 : 1460;
        int large = (0xffff - 20 - 20 - 40) / mss * mss;
        bulk.peerSends(new byte[4_000_000]);
        h.loop.iterate();
        assertThat(bulkBytes(h.received(), bulkPort)).as("alone: 8 large segments").isEqualTo(8L * large);

        h.deliver(FrameBuilder.ip(v.guest(), v.gateway()).tcp(replyPort, PORT).flags(ACK | PSH).seq(GUEST_ISN + 1).ack(replyIss + 3)
                .window(65535).payload("ping".getBytes()).bytes());
        h.loop.iterate();
        assertThat(new String(reply.written())).isEqualTo("ping");
        assertThat(bulkBytes(h.received(), bulkPort)).as("the request's iteration: 2").isEqualTo(2L * large);
        h.loop.skip(Pacing.INTERACTIVE_NANOS / 2);
        h.loop.iterate();
        assertThat(bulkBytes(h.received(), bulkPort)).as("its answer is due: still 2").isEqualTo(2L * large);
        h.loop.skip(Pacing.INTERACTIVE_NANOS);
        h.loop.iterate();
        List<Packet> later = h.received();
        assertThat(bulkBytes(later, bulkPort)).as("no request for 2 ms: 8 again").isEqualTo(8L * large);
        assertThat(later.getFirst().seq).isEqualTo(bulkIss + 1 + 12L * large);
    }

    /**
     * A guest's small request, written to the host straight from its frame or gathered at the
     * flush, tells the loop that the answer is due (it polls for it ahead of bulk work) where the
     * host answered on the connection before; a connection's first request, a bulk write, or a
     * write while the host's last data is not yet acknowledged by the guest does not.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void aSmallRequestTellsTheLoopItsAnswerIsDue(Version v) {
        establish(v);
        FrameBuilder guest = fromGuest(v).flags(ACK | PSH).ack(iss + 1).window(65535);
        h.send(guest.seq(GUEST_ISN + 1).payload("hello".getBytes()).bytes());
        assertThat(h.loop.expectedAnswers).as("the connection's first request: maybe its only one").isEmpty();
        s.peerSends("welcome".getBytes());
        h.settle();
        guest = fromGuest(v).flags(ACK | PSH).ack(iss + 8).window(65535);
        h.send(guest.seq(GUEST_ISN + 6).payload("one".getBytes()).bytes());
        assertThat(h.loop.expectedAnswers).as("written from its frame").containsExactly(s.fd);
        h.deliver(guest.seq(GUEST_ISN + 9).payload("two".getBytes()).bytes());
        h.deliver(guest.seq(GUEST_ISN + 12).payload("three".getBytes()).bytes());
        h.settle();
        assertThat(new String(s.written())).isEqualTo("helloonetwothree");
        assertThat(h.loop.expectedAnswers).as("and the gathered write at the flush: both").containsExactly(s.fd, s.fd, s.fd);
        h.loop.expectedAnswers.clear();

        h.send(guest.seq(GUEST_ISN + 17).payload(new byte[20_000]).bytes());
        assertThat(h.loop.expectedAnswers).as("a bulk write").isEmpty();
        s.peerSends("answer".getBytes());
        h.settle();
        h.send(guest.seq(GUEST_ISN + 20_017).payload("more".getBytes()).bytes());
        assertThat(h.loop.expectedAnswers).as("the host's answer not yet acknowledged: it is not awaited").isEmpty();
    }

    private static long bulkBytes(List<Packet> packets, int port) {
        assertThat(packets).filteredOn(p -> p.payload.length > 0).allSatisfy(p -> assertThat(p.destinationPort).isEqualTo(port));
        return packets.stream().mapToLong(p -> p.payload.length).sum();
    }

    /** A connection on guestPort through the handshake, the guest offering a window of 65535 << 7; returns our ISN. */
    private static long established(NatHarness h, Version v, int guestPort) {
        FrameBuilder guest = FrameBuilder.ip(v.guest(), v.gateway()).tcp(guestPort, PORT);
        h.send(guest.flags(SYN).seq(GUEST_ISN).window(65535).mss(1460).windowScale(7).bytes());
        h.sockets.last(Kind.TCP).completeConnect();
        h.settle();
        Packet synAck = h.receivedOne();
        h.send(FrameBuilder.ip(v.guest(), v.gateway()).tcp(guestPort, PORT).flags(ACK).seq(GUEST_ISN + 1).ack(synAck.seq + 1).window(65535).bytes());
        assertThat(h.received()).as("no data yet").allSatisfy(p -> assertThat(p.payload).isEmpty());
        return synAck.seq;
    }

    /** Buffers emptied give their memory to the pool, and what no connection takes again goes back to the system. */
    @ParameterizedTest
    @MethodSource("versions")
    void bufferMemoryAConnectionNoLongerNeedsIsReturnedWithinTwoTrims(Version v) {
        establish(v);
        hostSends(h, s, "world");
        assertThat(h.transport().tcpBuffers().inUse()).as("bytes toward the guest wait in the host socket").isZero();
        s.room = 0;
        h.send(fromGuest(v).flags(ACK | PSH).seq(GUEST_ISN + 1).ack(iss + 6).payload("hello".getBytes()).bytes());
        assertThat(h.transport().tcpBuffers().inUse()).as("held while the host socket refuses them").isPositive();
        assertThat(h.flows()).singleElement().satisfies(f -> {
            assertThat(f.queuedToHost()).as("held for the host socket").isEqualTo(5);
            assertThat(f.queuedToGuest()).as("\"world\", acknowledged but not yet dropped, is counted out").isZero();
        });
        s.room = 1 << 20;
        h.advance(NatHarness.SECOND / 1000);
        assertThat(new String(s.written())).isEqualTo("hello");
        assertThat(h.received()).as("the guest's bytes are acknowledged").anySatisfy(p -> assertThat(p.ack).isEqualTo(GUEST_ISN + 6));
        assertThat(h.transport().tcpBuffers().inUse()).as("an idle connection holds no buffer").isZero();
        assertThat(h.transport().tcpBuffers().freeBytes()).as("kept for reuse at first").isPositive();
        h.advance(TcpNat.TRIM_NANOS + NatHarness.SECOND);
        h.advance(TcpNat.TRIM_NANOS + NatHarness.SECOND);
        assertThat(h.transport().tcpBuffers().freeBytes()).as("returned once unused for a whole interval").isZero();
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.state()).isEqualTo("ESTABLISHED"));
        hostSends(h, h.sockets.last(Kind.TCP), "again"); // the connection takes memory again when it needs it
    }

    /** Bytes toward the guest are read from the host socket again for a retransmission, with or without peek offsets. */
    @ParameterizedTest
    @MethodSource("versions")
    void aRetransmissionIsReadFromTheHostSocketAgain(Version v) {
        for (boolean peekOffsets : new boolean[] {true, false}) {
            NatHarness h = harness(v);
            h.sockets.noPeekOffsets = !peekOffsets;
            long iss = established(h, v);
            FakeSockets.Socket s = h.sockets.last(Kind.TCP);
            hostSends(h, s, "first");
            h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(iss + 6).bytes());
            assertThat(s.unread()).as("acknowledged, dropped").isZero();
            Packet lost = hostSends(h, s, "second");
            assertThat(lost.seq).isEqualTo(iss + 6);
            h.advance(NatHarness.SECOND + NatHarness.SECOND / 10); // the guest never acknowledges it: RTO
            assertThat(h.received()).as("peek offsets " + peekOffsets).isNotEmpty().allSatisfy(again -> {
                assertThat(again.seq).isEqualTo(iss + 6);
                assertThat(new String(again.payload)).isEqualTo("second");
            });
            assertThat(s.unread()).as("still in the socket until acknowledged").isEqualTo(6);
            h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(iss + 12).bytes());
            assertThat(s.unread()).isZero();
            hostSends(h, s, "third");
        }
    }

    /** The host peer sends text; the one segment that carries it to the guest. */
    private static Packet hostSends(NatHarness h, FakeSockets.Socket s, String text) {
        s.peerSends(text.getBytes());
        h.settle();
        Packet data = h.receivedOne();
        assertThat(new String(data.payload)).isEqualTo(text);
        return data;
    }

    /** A large in-order segment goes to the host socket from the frame it came in, before the flush (and so before any copy). */
    @ParameterizedTest
    @MethodSource("versions")
    void aLargeInOrderSegmentIsWrittenStraightFromItsFrame(Version v) {
        establish(v);
        s.room = 20_000;
        byte[] data = new byte[22_000]; // within the 4 KiB window the buffer starts with, beyond what the socket takes
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 31);
        h.deliver(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(iss + 1).payload(data).bytes());
        assertThat(s.written()).as("taken from the frame before any flush").isEqualTo(java.util.Arrays.copyOf(data, 20_000));
        s.room = 1 << 20;
        h.settle();
        assertThat(s.written()).as("the rest was buffered and went at the flush").isEqualTo(data);
        assertThat(h.receivedOne().ack).isEqualTo(GUEST_ISN + 1 + data.length);
    }

    /**
     * The host socket's free space (two system calls) is asked for only where it can narrow the
     * window offered to the guest: an exchange of small requests on a socket with room to spare
     * asks once, at the connect; a write the socket takes only part of (it is full) has it
     * measured again.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void theHostSocketsRoomIsMeasuredOnlyWhereItCanNarrowTheWindow(Version v) {
        establish(v);
        int asked = s.roomAsked;
        assertThat(asked).as("measured for the SYN-ACK").isPositive();
        long seq = GUEST_ISN + 1, ack = iss + 1;
        java.util.Set<Integer> windows = new java.util.HashSet<>();
        for (int i = 0; i < 3; i++) {
            h.send(fromGuest(v).flags(ACK | PSH).seq(seq).ack(ack).payload("ping".getBytes()).bytes());
            seq += 4;
            Packet acked = h.receivedOne();
            assertThat(acked.ack).isEqualTo(seq);
            windows.add(acked.window);
            Packet pong = hostSends(h, s, "pong");
            windows.add(pong.window);
            ack += 4;
            h.send(fromGuest(v).flags(ACK).seq(seq).ack(ack).bytes());
            assertThat(h.received()).isEmpty();
        }
        assertThat(new String(s.written())).isEqualTo("pingpingping");
        assertThat(s.roomAsked).as("nothing to learn: the socket takes more than the window offers").isEqualTo(asked);
        assertThat(windows).as("the whole window, every time").hasSize(1);

        s.room = 3;
        h.send(fromGuest(v).flags(ACK | PSH).seq(seq).ack(ack).payload("0123456789".getBytes()).bytes());
        assertThat(new String(s.written())).isEqualTo("pingpingping012");
        assertThat(s.roomAsked).as("a full socket is measured").isGreaterThan(asked);
        assertThat(h.receivedOne().ack).isEqualTo(seq + 10);
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.queuedToHost()).as("held for the socket").isEqualTo(7));
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theEventThatEndsTheConnectBringsWhatTheHostSentWithIt(Version v) {
        start(v);
        h.send(syn(v));
        FakeSockets.Socket host = h.sockets.last(Kind.TCP);
        host.completeConnect().peerSends("early".getBytes()).peerFinishes(); // all before the loop looks: one edge
        h.settle();
        Packet synAck = h.receivedOne();
        assertThat(host.errorsAsked).as("a connect that reports no error: SO_ERROR is not read").isZero();
        h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(synAck.seq + 1).bytes());
        h.settle();
        List<Packet> toGuest = h.received();
        assertThat(toGuest.stream().map(p -> new String(p.payload)).reduce("", String::concat)).isEqualTo("early");
        assertThat(toGuest.getLast().has(FIN)).as("the host's end after its data").isTrue();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aConnectARequestAndTheGuestsEndLeaveItWaitingForTheHostAndAnAckDoesNot(Version v) {
        start(v);
        long turns = h.loop.pacing().hostTurns();
        h.send(syn(v));
        assertThat(h.loop.pacing().hostTurns() - turns).as("the SYN: a connect begun").isEqualTo(1);
        s = h.sockets.last(Kind.TCP);
        s.completeConnect();
        h.settle();
        Packet synAck = h.receivedOne();
        turns = h.loop.pacing().hostTurns();
        h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 1).ack(synAck.seq + 1).bytes());
        assertThat(h.loop.pacing().hostTurns()).as("the handshake's ACK").isEqualTo(turns);
        h.send(fromGuest(v).flags(ACK | PSH).seq(GUEST_ISN + 1).ack(synAck.seq + 1).payload("GET".getBytes()).bytes());
        assertThat(h.loop.pacing().hostTurns() - turns).as("the connection's first request").isEqualTo(1);
        h.send(fromGuest(v).flags(ACK | FIN).seq(GUEST_ISN + 4).ack(synAck.seq + 1).bytes());
        assertThat(h.loop.pacing().hostTurns() - turns).as("the guest's end").isEqualTo(2);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aRefusedConnectResetsTheGuestAndOtherFailuresAnswerAsARouter(Version v) {
        start(v);
        h.send(syn(v));
        h.sockets.last(Kind.TCP).failConnect(Errno.ECONNREFUSED);
        h.settle();
        assertThat(h.sockets.last(Kind.TCP).errorsAsked).as("a failed connect's error is read").isEqualTo(1);
        Packet rst = h.receivedOne();
        assertThat(rst.flags).isEqualTo(RST | ACK);
        assertThat(rst.ack).isEqualTo(GUEST_ISN + 1);
        assertThat(h.sockets.last(Kind.TCP).closed).isTrue();
        assertThat(h.transport().tcpConnections()).isZero();

        h.send(fromGuest(v).flags(SYN).seq(GUEST_ISN + 50).bytes());
        h.sockets.last(Kind.TCP).failConnect(Errno.EHOSTUNREACH);
        h.settle();
        Packet icmp = h.receivedOne();
        assertThat(icmp.icmpType).isEqualTo(v.ipv6() ? 1 : 3);
        assertThat(icmp.icmpCode).as("host (address) unreachable").isEqualTo(v.ipv6() ? 3 : 1);
        assertThat(icmp.source).isEqualTo(v.gateway());
        assertThat(icmp.quotedProtocol()).isEqualTo(Packet.TCP);
        assertThat(java.nio.ByteBuffer.wrap(icmp.quotedTransport()).getInt(4)).as("the SYN's sequence number").isEqualTo((int) (GUEST_ISN + 50));
        assertThat(h.transport().tcpConnections()).isZero();
        assertThat(h.counters().unreachableSent).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theHostClosingFirstSendsFinAndLingersInTimeWaitWithoutItsDescriptor(Version v) {
        establish(v);
        s.peerSends("bye".getBytes()).peerFinishes();
        h.settle();
        List<Packet> toGuest = h.received();
        assertThat(toGuest.getLast().has(FIN)).as("the FIN after the data").isTrue();
        assertThat(toGuest.stream().map(p -> new String(p.payload)).reduce("", String::concat)).isEqualTo("bye");
        h.send(fromGuest(v).flags(ACK | FIN).seq(GUEST_ISN + 1).ack(iss + 5).bytes());
        assertThat(s.shutWrite).isTrue();
        assertThat(h.receivedOne().ack).isEqualTo(GUEST_ISN + 2);
        assertThat(s.closed).as("both directions finished on the host side: the descriptor goes").isTrue();
        assertThat(s.lingerZero).as("an orderly close").isFalse();
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.state()).isEqualTo("TIME_WAIT"));
        h.advance(2 * NatHarness.SECOND);
        assertThat(h.transport().tcpConnections()).as("after TIME_WAIT").isZero();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theGuestClosingFirstEndsTheConnectionWhenOurFinIsAcknowledged(Version v) {
        establish(v);
        h.send(fromGuest(v).flags(ACK | FIN).seq(GUEST_ISN + 1).ack(iss + 1).bytes());
        assertThat(s.shutWrite).isTrue();
        h.received();
        s.peerFinishes();
        h.settle();
        Packet fin = h.receivedOne();
        assertThat(fin.has(FIN)).isTrue();
        h.send(fromGuest(v).flags(ACK).seq(GUEST_ISN + 2).ack(fin.seq + 1).bytes());
        assertThat(s.closed).isTrue();
        assertThat(h.transport().tcpConnections()).isZero();
        assertThat(h.sockets.openCount()).isZero();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aGuestResetResetsTheHostPeerAndAHostResetTheGuest(Version v) {
        establish(v);
        FakeSockets.Socket first = h.sockets.last(Kind.TCP);
        h.send(fromGuest(v).flags(RST).seq(GUEST_ISN + 1).bytes());
        assertThat(first.lingerZero).isTrue();
        assertThat(first.closed).isTrue();
        assertThat(h.received()).isEmpty();
        assertThat(h.transport().tcpConnections()).isZero();

        established(h, v);
        FakeSockets.Socket second = h.sockets.last(Kind.TCP);
        second.peerResets();
        h.settle();
        Packet rst = h.receivedOne();
        assertThat(rst.flags & RST).isEqualTo(RST);
        assertThat(second.closed).isTrue();
        assertThat(h.transport().tcpConnections()).isZero();
        assertThat(iss).isNotNegative();
    }

    /**
     * The window credit through the NAT: beyond {@link WindowCredit#UNITS} connections that hold a
     * window (opened, their first bytes still to come), the next one is offered none; when one of
     * them ends, the flush gives its unit to the one that waited, with a window update.
     */
    @ParameterizedTest
    @MethodSource("versions")
    void beyondTheCreditAConnectionIsOfferedNoWindowUntilAUnitComesBack(Version v) {
        start(v);
        int units = WindowCredit.UNITS;
        for (int i = 0; i <= units; i++) {
            FrameBuilder guest = FrameBuilder.ip(v.guest(), v.gateway()).tcp(30000 + i, PORT);
            h.send(guest.flags(SYN).seq(GUEST_ISN).window(65535).mss(1460).bytes());
            h.sockets.last(Kind.TCP).completeConnect();
            h.settle();
            Packet synAck = h.receivedOne();
            assertThat(synAck.window).as("connection %d's SYN-ACK", i).isEqualTo(i < units ? 65535 : 0);
            h.send(FrameBuilder.ip(v.guest(), v.gateway()).tcp(30000 + i, PORT).flags(ACK).seq(GUEST_ISN + 1).ack(synAck.seq + 1).bytes());
            assertThat(h.received()).isEmpty();
        }
        h.send(FrameBuilder.ip(v.guest(), v.gateway()).tcp(30000, PORT).flags(RST).seq(GUEST_ISN + 1).bytes());
        Packet update = h.receivedOne();
        assertThat(update.destinationPort).isEqualTo(30000 + units);
        assertThat(update.flags).isEqualTo(ACK);
        assertThat(update.window).isPositive();
        assertThat(update.ack).isEqualTo(GUEST_ISN + 1);
    }

    /** Retransmission toward the guest on the virtual clock: the unacknowledged segment again after the initial RTO. */
    @ParameterizedTest
    @MethodSource("versions")
    void unacknowledgedDataIsSentAgainAfterTheRetransmissionTimeout(Version v) {
        establish(v);
        h.sockets.last(Kind.TCP).peerSends("lost".getBytes());
        h.settle();
        assertThat(h.receivedOne().seq).isEqualTo(iss + 1);
        h.advance(NatHarness.SECOND / 2);
        assertThat(h.received()).as("not before the RTO").isEmpty();
        h.advance(NatHarness.SECOND / 2);
        Packet again = h.receivedOne();
        assertThat(again.seq).isEqualTo(iss + 1);
        assertThat(new String(again.payload)).isEqualTo("lost");
    }

    @ParameterizedTest
    @MethodSource("versions")
    void theConnectionLimitAndTheDescriptorLimitRefuseNewConnectionsWithAReset(Version v) {
        NatHarness h = v.ipv6() ? NatHarness.with().ipv6().limits(new Limits(1, 10, 10)).build()
                : NatHarness.with().limits(new Limits(1, 10, 10)).build();
        h.send(syn(v));
        h.send(FrameBuilder.ip(v.guest(), v.gateway()).tcp(GUEST_PORT + 1, PORT).flags(SYN).seq(7).bytes());
        assertThat(h.receivedOne().flags).isEqualTo(RST | ACK);
        assertThat(h.counters().refusedAtLimit).isEqualTo(1);
        assertThat(h.sockets.of(Kind.TCP)).hasSize(1);

        NatHarness d = harness(v);
        d.sockets.refuseSockets = -Errno.EMFILE;
        d.send(syn(v));
        assertThat(d.receivedOne().flags).isEqualTo(RST | ACK);
        assertThat(d.counters().refusedAtLimit).isEqualTo(1);
        assertThat(d.counters().tcpRefused).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aDestinationTheRulesRefuseIsAdministrativelyProhibited(Version v) {
        DestinationRules denyLoopback = new DestinationRules(List.of(), List.of(DestinationRules.Network.parse(v.ipv6() ? "::1" : "127.0.0.0/8")));
        NatHarness h = v.ipv6() ? NatHarness.with().ipv6().rules(denyLoopback).build() : NatHarness.with().rules(denyLoopback).build();
        h.send(syn(v));
        Packet icmp = h.receivedOne();
        assertThat(icmp.icmpType).isEqualTo(v.ipv6() ? 1 : 3);
        assertThat(icmp.icmpCode).isEqualTo(v.ipv6() ? 1 : 13);
        assertThat(h.sockets.all()).as("no host socket").isEmpty();
        assertThat(h.counters().policyRefused).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void shutdownResetsEveryConnectionOnBothSides(Version v) {
        establish(v);
        h.transport().shutdown();
        assertThat(h.receivedOne().flags & RST).isEqualTo(RST);
        assertThat(s.lingerZero).isTrue();
        assertThat(s.closed).isTrue();
        assertThat(h.transport().tcpConnections()).isZero();
    }

    /** TCP to the DNS address goes to the nameservers in turn: a refused one makes way for the next. */
    @ParameterizedTest
    @MethodSource("versions")
    void tcpToTheDnsAddressTriesTheNameserversInTurn(Version v) {
        NatHarness h = (v.ipv6() ? NatHarness.with().ipv6() : NatHarness.with()).nameservers("192.0.2.53", "2001:db8::53").build();
        h.send(FrameBuilder.ip(v.guest(), v.dns()).tcp(GUEST_PORT, 53).flags(SYN).seq(GUEST_ISN).bytes());
        FakeSockets.Socket first = h.sockets.last(Kind.TCP);
        assertThat(first.ipv6).as("the first nameserver's version, whatever the guest's").isFalse();
        first.failConnect(Errno.ECONNREFUSED);
        h.settle();
        FakeSockets.Socket second = h.sockets.last(Kind.TCP);
        assertThat(second.ipv6).isTrue();
        assertThat(second.peerPort).isEqualTo(53);
        assertThat(h.received()).isEmpty();
        second.completeConnect();
        h.settle();
        assertThat(h.receivedOne().flags).isEqualTo(SYN | ACK);
        // as the status report writes resolv.conf's nameservers
        assertThat(h.flows()).singleElement().satisfies(f -> assertThat(f.hostAddress()).isEqualTo("[2001:db8:0:0:0:0:0:53]"));
    }

    /** An IPv6 packet naming an IPv4-mapped address reaches neither IPv4's flows nor its policy. */
    @org.junit.jupiter.api.Test
    void anIpv6PacketToAnIpv4MappedAddressIsDropped() {
        NatHarness h = NatHarness.with().ipv6().build();
        h.send(FrameBuilder.ip(Version.V6.guest(), "::ffff:10.0.2.2").tcp(GUEST_PORT, PORT).flags(SYN).seq(1).bytes());
        assertThat(h.sockets.all()).isEmpty();
        assertThat(h.received()).isEmpty();
        assertThat(h.counters().unsupported).isEqualTo(1);
    }
}
