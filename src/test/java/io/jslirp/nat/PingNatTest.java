package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.wire.build.FrameBuilder;
import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pings beyond the router through the host's ping sockets, ICMP and ICMPv6 alike: one socket per
 * (guest, identifier, destination), the guest's identifier put back in the replies (the kernel's
 * socket has its own), errors as a router's, sockets that are not allowed, and the idle timeout.
 */
class PingNatTest {
    private static final int GUEST_ID = 0x1234, KERNEL_ID = 0x7777;

    record Case(Version version, String remote) {
        @Override
        public String toString() {
            return version.toString();
        }
    }

    static Stream<Case> cases() {
        return Stream.of(new Case(Version.V4, "192.0.2.1"), new Case(Version.V6, "2001:db8::1"));
    }

    private static NatHarness harness(Case c) {
        return c.version().ipv6() ? NatHarness.with().ipv6().build() : NatHarness.with().build();
    }

    /** An echo reply as the host's ping socket gives it: the ICMP message alone, with the socket's own identifier. */
    private static byte[] kernelReply(Case c, int sequence, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(8 + data.length);
        b.put((byte) (c.version().ipv6() ? 129 : 0)).put((byte) 0).putShort((short) 0xdead).putShort((short) KERNEL_ID)
                .putShort((short) sequence).put(data);
        return b.array();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void anEchoGoesThroughAPingSocketAndTheReplyGetsTheGuestsIdentifierBack(Case c) {
        NatHarness h = harness(c);
        byte[] data = "ping data".getBytes();
        h.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 1).payload(data).bytes());
        FakeSockets.Socket s = h.sockets.last(Kind.PING);
        assertThat(s.ipv6).isEqualTo(c.version().ipv6());
        assertThat(Packet.halves(c.remote())).containsExactly(s.peerHi, s.peerLo);
        assertThat(s.sent).singleElement().satisfies(d -> assertThat(d.payload()[0] & 0xff).isEqualTo(c.version().ipv6() ? 128 : 8));
        h.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 2).payload(data).bytes());
        assertThat(h.sockets.of(Kind.PING)).as("one socket for the guest's ping session").hasSize(1);
        assertThat(h.flowTable().opened(io.jslirp.flow.Kind.PING)).isEqualTo(1);

        s.receive(kernelReply(c, 1, data));
        h.settle();
        Packet reply = h.receivedOne();
        assertThat(reply.version).isEqualTo(c.version().number());
        assertThat(reply.source).isEqualTo(c.remote());
        assertThat(reply.destination).isEqualTo(c.version().guest());
        assertThat(reply.icmpType).isEqualTo(c.version().ipv6() ? 129 : 0);
        assertThat(reply.icmpRest >>> 16).as("the guest's identifier").isEqualTo(GUEST_ID);
        assertThat(reply.icmpRest & 0xffff).isEqualTo(1);
        assertThat(reply.payload).isEqualTo(data);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void noRouteIsNetUnreachableFromTheGatewayQuotingTheEcho(Case c) {
        NatHarness h = harness(c);
        h.sockets.datagramConnectResult = s -> -Errno.ENETUNREACH;
        h.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 3).payload(new byte[4]).bytes());
        Packet icmp = h.receivedOne();
        assertThat(icmp.source).isEqualTo(c.version().gateway());
        assertThat(icmp.icmpType).isEqualTo(c.version().ipv6() ? 1 : 3);
        assertThat(icmp.icmpCode).isZero();
        assertThat(icmp.quotedProtocol()).isEqualTo(c.version().ipv6() ? Packet.ICMPV6 : Packet.ICMP);
        ByteBuffer quoted = ByteBuffer.wrap(icmp.quotedTransport());
        assertThat(quoted.get(0) & 0xff).as("an echo request").isEqualTo(c.version().ipv6() ? 128 : 8);
        assertThat(quoted.getShort(4) & 0xffff).isEqualTo(GUEST_ID);
        assertThat(quoted.getShort(6) & 0xffff).isEqualTo(3);
        assertThat(h.sockets.last(Kind.PING).closed).isTrue();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theHostsErrorForAnEarlierRequestReachesTheGuest(Case c) {
        NatHarness h = harness(c);
        h.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 1).payload(new byte[4]).bytes());
        h.sockets.last(Kind.PING).icmpError(Errno.EHOSTUNREACH);
        h.settle();
        Packet icmp = h.receivedOne();
        assertThat(icmp.icmpCode).as("host (address) unreachable").isEqualTo(c.version().ipv6() ? 3 : 1);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void withoutPingSocketsNothingAnswersAndAnIdleSessionCloses(Case c) {
        NatHarness h = harness(c);
        h.sockets.refuseSockets = -Errno.EACCES;
        h.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 1).payload(new byte[4]).bytes());
        assertThat(h.received()).isEmpty();
        assertThat(h.counters().unsupported).isEqualTo(1);

        NatHarness idle = harness(c);
        idle.send(FrameBuilder.ip(c.version().guest(), c.remote()).echo(GUEST_ID, 1).payload(new byte[4]).bytes());
        FakeSockets.Socket s = idle.sockets.last(Kind.PING);
        idle.advance(61 * NatHarness.SECOND);
        assertThat(s.closed).isTrue();
    }

    /** The gateway answers itself over both versions: no socket. */
    @ParameterizedTest
    @MethodSource("cases")
    void theGatewayAnswersItself(Case c) {
        NatHarness h = harness(c);
        h.send(FrameBuilder.ip(c.version().guest(), c.version().gateway()).echo(GUEST_ID, 1).payload(new byte[4]).bytes());
        assertThat(h.receivedOne().icmpRest >>> 16).isEqualTo(GUEST_ID);
        assertThat(h.sockets.all()).isEmpty();
    }
}
