package io.jslirp.link;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.util.AddressBook;
import io.jslirp.vhostuser.Encoder;
import io.jslirp.vhostuser.Features;
import io.jslirp.vhostuser.Request;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multiqueue over vhost-user with the test's front-end ({@link VhostFrontend}) setting up two queue
 * pairs: the transmit rings are read in turn, the stack's flows toward the guest are dealt over the
 * receive rings that run (a flow keeps its ring, ARP goes to ring 0, a disabled ring gets nothing),
 * and each receive ring keeps its frames in order through its own backlog.
 */
class VhostUserMultiqueueTest {
    private static final int GUEST = Ipv4.parse("10.0.2.15"), GATEWAY = Ipv4.parse("10.0.2.2");
    private static final int SEGMENT = 1448;

    @TempDir
    Path dir;

    private final MemorySegment buffer = Arena.ofAuto().allocate(VhostUserLink.MAX_FRAME);
    private final Counters counters = new Counters();
    /** The frames from the guest, in the order the link gave them. */
    private final List<byte[]> fromGuest = new ArrayList<>();
    private VhostUserLink link;
    private Stack stack;

    /** A link, a stack on it, and a front-end that sets up pairs queue pairs with count receive buffers in each receive ring. */
    private VhostFrontend connect(int pairs, int count) throws Exception {
        link = VhostUserLink.listenUnix(dir.resolve("vu.sock").toString(), "the test's socket");
        NetworkConfig config = NetworkConfig.defaults();
        stack = new Stack(config, Ipv6Network.defaults(config), link, counters, new AddressBook());
        VhostFrontend fe = new VhostFrontend(dir.resolve("vu.sock"), dir.resolve("mem"), this::pump, pairs);
        fe.setUp(count);
        return fe;
    }

    /** What the loop does when the link's descriptor is readable: every frame it has, to the stack. */
    private void pump() {
        int n;
        while ((n = link.receive(0, buffer)) > 0) {
            fromGuest.add(buffer.asSlice(0, n).toArray(JAVA_BYTE));
            stack.receive(buffer, n, link.checksumTrusted());
        }
    }

    @AfterEach
    void close() {
        if (link != null) link.close();
    }

    /** Sends a segment of 100 bytes from the gateway's port to the guest's 40000, with sequence number seq. */
    private void sendTcp(int port, int seq) {
        GuestOutput out = stack.ipv4();
        long off = out.tcpOffset();
        Tcp.write(out.frame(), off, out.tcpHeader().ports(port, 40000).seq(seq).ack(1).flags(Tcp.ACK).window(65535)
                .length(Tcp.MIN_HEADER_LENGTH));
        out.sendTcp(out.gateway(), out.guestAddress(), Arena.ofAuto().allocate(100), 0, 100, SEGMENT);
    }

    /** The TCP source port of a frame toward the guest (IPv4 without options), or -1 when it is not TCP. */
    private static int port(byte[] f) {
        MemorySegment s = MemorySegment.ofArray(f);
        if (Ethernet.type(s, 0) != Ethernet.TYPE_IPV4) return -1;
        return Tcp.sourcePort(s, 14 + 20);
    }

    private static int seq(byte[] f) {
        return Tcp.seq(MemorySegment.ofArray(f), 14 + 20);
    }

    /** Every frame published in receive ring ring (each buffer not given back). */
    private static List<byte[]> all(VhostFrontend fe, int ring) {
        List<byte[]> got = new ArrayList<>();
        for (byte[] f; (f = fe.received(ring)) != null; ) got.add(f);
        return got;
    }

    private static byte[] arpRequest() {
        return FrameBuilder.arp(Arp.REQUEST, GUEST, 0, GATEWAY).bytes();
    }

    private static boolean isArpReply(byte[] f) {
        MemorySegment s = MemorySegment.ofArray(f);
        return Ethernet.type(s, 0) == Ethernet.TYPE_ARP && (s.get(JAVA_BYTE, 21) & 0xff) == Arp.REPLY;
    }

    @Test
    void multiqueueIsOfferedAndTwoPairsAreNegotiated() throws Exception {
        try (VhostFrontend fe = connect(2, 4)) {
            fe.send(Encoder.empty(fe.out(), Request.GET_FEATURES, 0));
            assertThat(Features.has(fe.reply(Request.GET_FEATURES), Features.NET_MQ)).isTrue();
            assertThat(fe.queueNum).as("GET_QUEUE_NUM").isEqualTo(VhostSession.MAX_QUEUE_PAIRS);
            assertThat(link.connected()).isTrue();
        }
    }

    @Test
    void framesOnBothTransmitRingsReachTheStackAndTheRingsAreTakenInTurn() throws Exception {
        try (VhostFrontend fe = connect(2, 4)) {
            fe.transmitOn(1, arpRequest());
            fe.transmitOn(3, arpRequest());
            pump();
            assertThat(counters.framesIn).as("both requests reached the stack").isEqualTo(2);
            link.flush();
            List<byte[]> replies = all(fe, 0);
            assertThat(replies).as("ARP answered on receive ring 0").hasSize(2).allMatch(VhostUserMultiqueueTest::isArpReply);
            assertThat(all(fe, 2)).isEmpty();
            assertThat(new int[] {fe.usedIndex(1), fe.usedIndex(3)}).containsExactly(1, 1);
            assertThat(fe.signalled(fe.call[1]) && fe.signalled(fe.call[3])).as("each transmit ring's driver interrupted").isTrue();

            // Three frames wait in each ring: taken in turn, one from each, each ring's in order.
            fromGuest.clear();
            for (int i = 0; i < 3; i++) {
                fe.transmitOn(1, frame(100 + i, 1));
                fe.transmitOn(3, frame(200 + i, 3));
            }
            pump();
            assertThat(fromGuest.stream().map(f -> f[0] & 0xff).toList()).containsExactly(1, 3, 1, 3, 1, 3);
            assertThat(fromGuest.stream().map(f -> f.length).toList()).containsExactly(100, 200, 101, 201, 102, 202);

            // Ring 3 alone, found empty before: its kick wakes the link.
            fromGuest.clear();
            assertThat(fe.transmitOn(3, frame(300, 3))).as("the device asked for a kick").isTrue();
            pump();
            assertThat(fromGuest.stream().map(f -> f.length).toList()).containsExactly(300);
        }
    }

    /** A frame of length bytes, its first byte tag (what the stack does with it does not matter). */
    private static byte[] frame(int length, int tag) {
        byte[] f = new byte[length];
        f[0] = (byte) tag;
        return f;
    }

    @Test
    void twoFlowsLandOnTwoReceiveRingsAndEachKeepsItsRing() throws Exception {
        try (VhostFrontend fe = connect(2, 16)) {
            for (int i = 0; i < 4; i++) {
                sendTcp(80, i);
                sendTcp(443, i);
            }
            assertThat(link.send(MemorySegment.ofArray(arpRequest()), 42)).isTrue(); // nothing said of it: ring 0
            link.flush();
            List<byte[]> ring0 = all(fe, 0), ring2 = all(fe, 2);
            assertThat(ring0).hasSize(5);
            assertThat(ring2).hasSize(4);
            int port0 = port(ring0.getFirst()), port2 = port(ring2.getFirst());
            assertThat(port0).isNotEqualTo(port2).isIn(80, 443);
            assertThat(port2).isIn(80, 443);
            assertThat(ring0.subList(0, 4)).allMatch(f -> port(f) == port0);
            assertThat(port(ring0.get(4))).as("the frame without a flow").isEqualTo(-1);
            assertThat(ring2).allMatch(f -> port(f) == port2);
            assertThat(fe.signalled(fe.call[0]) && fe.signalled(fe.call[2])).as("each receive ring's driver interrupted").isTrue();
        }
    }

    @Test
    void withOnePairEveryFlowGoesToRingZero() throws Exception {
        try (VhostFrontend fe = connect(1, 16)) {
            for (int port : new int[] {80, 443, 8080}) sendTcp(port, 1);
            link.flush();
            assertThat(all(fe, 0).stream().map(VhostUserMultiqueueTest::port).toList()).containsExactly(80, 443, 8080);
        }
    }

    @Test
    void aDisabledReceiveRingGetsNothingUntilEnabledAgain() throws Exception {
        try (VhostFrontend fe = connect(2, 16)) {
            fe.enable(2, false);
            fe.enable(3, false);
            for (int port : new int[] {80, 443, 8080, 8443}) sendTcp(port, 1);
            link.flush();
            assertThat(all(fe, 0)).hasSize(4);
            assertThat(fe.usedIndex(2)).as("the disabled ring").isZero();

            fe.enable(2, true);
            fe.enable(3, true);
            for (int port : new int[] {80, 443}) sendTcp(port, 2);
            link.flush();
            assertThat(all(fe, 0)).hasSize(1);
            assertThat(all(fe, 2)).hasSize(1);
        }
    }

    @Test
    void eachReceiveRingKeepsItsOrderThroughItsBacklogAndAFullRingHoldsNoOtherUp() throws Exception {
        try (VhostFrontend fe = connect(2, 2)) {
            for (int i = 0; i < 5; i++) {
                sendTcp(80, i);
                sendTcp(443, i);
            }
            link.flush();
            List<byte[]> ring0 = all(fe, 0), ring2 = all(fe, 2);
            assertThat(ring0.stream().map(VhostUserMultiqueueTest::seq).toList()).as("two buffers, the rest waits").containsExactly(0, 1);
            assertThat(ring2.stream().map(VhostUserMultiqueueTest::seq).toList()).containsExactly(0, 1);
            int port2 = port(ring2.getFirst());

            // Buffers come for ring 2 only: its frames go on, ring 0's keep waiting.
            assertThat(fe.refillReceive(2, 0)).as("the device asked for a kick").isTrue();
            fe.refillReceive(2, 1);
            pump();
            sendTcp(port2, 5);
            link.flush();
            assertThat(all(fe, 0)).isEmpty();
            assertThat(all(fe, 2).stream().map(VhostUserMultiqueueTest::seq).toList()).containsExactly(2, 3);
            for (int i = 0; i < 2; i++) fe.refillReceive(2, i);
            for (int i = 0; i < 2; i++) fe.refillReceive(0, i);
            pump();
            link.flush();
            assertThat(all(fe, 0).stream().map(VhostUserMultiqueueTest::seq).toList()).containsExactly(2, 3);
            assertThat(all(fe, 2).stream().map(VhostUserMultiqueueTest::seq).toList()).containsExactly(4, 5);
            for (int i = 0; i < 2; i++) fe.refillReceive(0, i);
            pump();
            link.flush();
            assertThat(all(fe, 0).stream().map(VhostUserMultiqueueTest::seq).toList()).containsExactly(4);
        }
    }
}
