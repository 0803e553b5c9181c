package io.jslirp.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.engine.NatHarness;
import io.jslirp.engine.NatHarness.Version;
import io.jslirp.engine.Packet;
import io.jslirp.sys.Errno;
import io.jslirp.sys.FakeSockets;
import io.jslirp.sys.FakeSockets.Kind;
import io.jslirp.wire.build.FrameBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The DNS forwarder on fake sockets and virtual time, from both DNS addresses: a query goes
 * unchanged to one nameserver at a time, the answer comes back from the DNS address, a refusing or
 * silent nameserver makes way for the next, the one that answered is asked first next time, and
 * when every one refused the guest hears it.
 */
class DnsForwarderTest {
    private static final int GUEST_PORT = 33333;
    private static final byte[] QUERY = {0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'j', 's', 'l', 'i', 'r', 'p', 0, 0, 1, 0, 1};

    static Stream<Version> versions() {
        return Stream.of(Version.V4, Version.V6);
    }

    private static NatHarness harness(Version v, String... nameservers) {
        return (v.ipv6() ? NatHarness.with().ipv6() : NatHarness.with()).nameservers(nameservers).build();
    }

    private static byte[] query(Version v) {
        return FrameBuilder.ip(v.guest(), v.dns()).udp(GUEST_PORT, 53).payload(QUERY).bytes();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aQueryGoesToTheNameserverAndTheAnswerComesFromTheDnsAddress(Version v) {
        NatHarness h = harness(v, "192.0.2.53");
        h.send(query(v));
        FakeSockets.Socket s = h.sockets.last(Kind.UDP);
        assertThat(s.ipv6).as("the nameserver's version").isFalse();
        assertThat(Packet.halves("192.0.2.53")).containsExactly(s.peerHi, s.peerLo);
        assertThat(s.peerPort).isEqualTo(53);
        assertThat(s.sent).singleElement().satisfies(d -> assertThat(d.payload()).as("unchanged, with the guest's ID").isEqualTo(QUERY));

        byte[] answer = QUERY.clone();
        answer[2] = (byte) 0x81;
        s.receive(answer);
        h.settle();
        Packet reply = h.receivedOne();
        assertThat(reply.source).isEqualTo(v.dns());
        assertThat(reply.sourcePort).isEqualTo(53);
        assertThat(reply.destinationPort).isEqualTo(GUEST_PORT);
        assertThat(reply.payload).isEqualTo(answer);
        assertThat(s.closed).as("one socket per query").isTrue();
        assertThat(h.counters().dnsQueries).isEqualTo(1);
        assertThat(h.flows()).as("not a flow of the status report").isEmpty();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void aRefusingOrSilentNameserverMakesWayForTheNextWhichIsThenAskedFirst(Version v) {
        NatHarness h = harness(v, "192.0.2.53", "2001:db8::53", "198.51.100.53");
        h.send(query(v));
        h.sockets.last(Kind.UDP).icmpError(Errno.ECONNREFUSED);
        h.settle();
        FakeSockets.Socket second = h.sockets.last(Kind.UDP);
        assertThat(second.ipv6).isTrue();
        h.advance(2 * NatHarness.SECOND); // silent for the attempt's time
        FakeSockets.Socket third = h.sockets.last(Kind.UDP);
        assertThat(third).isNotSameAs(second);
        assertThat(Packet.halves("198.51.100.53")).containsExactly(third.peerHi, third.peerLo);
        assertThat(h.counters().dnsRetries).isEqualTo(2);
        third.receive(QUERY);
        h.settle();
        assertThat(h.receivedOne().payload).isEqualTo(QUERY);

        h.send(query(v));
        assertThat(Packet.halves("198.51.100.53")).as("the one that answered last goes first")
                .containsExactly(h.sockets.last(Kind.UDP).peerHi, h.sockets.last(Kind.UDP).peerLo);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void whenEveryNameserverRefusesTheGuestGetsPortUnreachable(Version v) {
        NatHarness h = harness(v, "192.0.2.53", "192.0.2.54");
        h.send(query(v));
        h.sockets.last(Kind.UDP).icmpError(Errno.ECONNREFUSED);
        h.settle();
        h.sockets.last(Kind.UDP).icmpError(Errno.ECONNREFUSED);
        h.settle();
        Packet icmp = h.receivedOne();
        assertThat(icmp.source).isEqualTo(v.gateway());
        assertThat(icmp.icmpCode).isEqualTo(v.ipv6() ? 4 : 3);
        assertThat(h.counters().dnsUnanswered).isEqualTo(1);
        assertThat(h.sockets.openCount()).isZero();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void silenceEverywhereIsAnsweredWithSilence(Version v) {
        NatHarness h = harness(v, "192.0.2.53");
        h.send(query(v));
        h.advance(3 * NatHarness.SECOND);
        assertThat(h.received()).isEmpty();
        assertThat(h.counters().dnsUnanswered).isEqualTo(1);
        assertThat(h.sockets.openCount()).isZero();
        assertThat(List.of(h.counters().dnsQueries)).containsExactly(1L);
    }
}
