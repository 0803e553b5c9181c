package io.jslirp.stack;

import static io.jslirp.check.Checker.arp;
import static io.jslirp.check.Checker.arpOperation;
import static io.jslirp.check.Checker.arpSender;
import static io.jslirp.check.Checker.arpTarget;
import static io.jslirp.check.Checker.dst;
import static io.jslirp.check.Checker.ethDst;
import static io.jslirp.check.Checker.ethSrc;
import static io.jslirp.check.Checker.icmp;
import static io.jslirp.check.Checker.ipv6;
import static io.jslirp.check.Checker.src;
import static io.jslirp.check.Checker.type;

import io.jslirp.check.Recorder;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Ndp;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.build.FrameBuilder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * pasta's model (NetworkConfig.proxied): the guest's subnet holds real hosts, so ARP is answered
 * for every address but the guest's own, all with pasta's MAC, and nothing else changes.
 */
class ProxiedNeighboursTest {
    private static final long GUEST_MAC = 0x02_00_00_00_00_64L, PASTA_MAC = 0x9a559a559a55L;
    private static final int GUEST = Ipv4.parse("192.0.2.2");
    private final Arena arena = Arena.ofAuto();
    private final Recorder sent = new Recorder();
    private final Stack stack = new Stack(NetworkConfig.proxied(GUEST, 24, Ipv4.parse("192.0.2.1"), Ipv4.parse("169.254.1.1"), 65520,
            PASTA_MAC), null, sent, new Counters(), new AddressBook());

    private MemorySegment request(int sender, int target) {
        return FrameBuilder.arp(Arp.REQUEST, sender, 0, target).macs(GUEST_MAC, Ethernet.BROADCAST).build();
    }

    @Test
    void answersForTheGatewayAndEveryNeighbourWithPastasMac() {
        for (String target : new String[] {"192.0.2.1", "192.0.2.77", "169.254.1.1"}) {
            stack.receive(request(GUEST, Ipv4.parse(target)), 42);
            sent.expect(ethDst(GUEST_MAC), arp(arpOperation(Arp.REPLY), arpSender(PASTA_MAC, target), arpTarget("192.0.2.2")));
        }
        sent.expectNone();
    }

    @Test
    void notForTheGuestsOwnAddressNorProbesNorBroadcast() {
        stack.receive(request(GUEST, GUEST), 42);                         // gratuitous ARP
        stack.receive(request(0, GUEST), 42);                             // an address probe
        stack.receive(request(GUEST, -1), 42);
        stack.receive(request(GUEST, Ipv4.parse("224.0.0.251")), 42);
        sent.expectNone();
    }

    private final Recorder sent6 = new Recorder();
    private final Stack stack6 = new Stack(NetworkConfig.proxied(GUEST, 24, Ipv4.parse("192.0.2.1"), 0, 65520, PASTA_MAC),
            new Ipv6Network(Ipv6.parse("fd00::")[0], Ipv6.parse("fd00::1")[0], 1, 0, 0, Ipv6.parse("fd00::2")[0], 2, 65520, PASTA_MAC, false),
            sent6, new Counters(), new AddressBook());

    private static MemorySegment solicitation(String src, String target) {
        return StackIpv6Test.neighborSolicitation(src, target, 255).build();
    }

    @Test
    void neighborSolicitationsForEveryAddressButTheGuestsAndNotDuplicateAddressDetection() {
        for (String target : new String[] {"fd00::1", "fd00::77", "2001:db8::1"}) {
            MemorySegment f = solicitation("fd00::2", target);
            stack6.receive(f, (int) f.byteSize());
            sent6.expect(ethSrc(PASTA_MAC), ipv6(src(target), dst("fd00::2"), icmp(type(Ndp.NEIGHBOR_ADVERTISEMENT))));
        }
        for (MemorySegment f : new MemorySegment[] {solicitation("fd00::2", "fd00::2"), solicitation("::", "fe80::1:2:3:4"),
                solicitation("::", "fd00::9")}) {
            stack6.receive(f, (int) f.byteSize());
        }
        sent6.expectNone();
    }
}
