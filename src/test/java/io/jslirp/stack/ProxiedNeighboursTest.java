package io.jslirp.stack;

import static io.jslirp.check.Checker.arp;
import static io.jslirp.check.Checker.arpOperation;
import static io.jslirp.check.Checker.arpSender;
import static io.jslirp.check.Checker.arpTarget;
import static io.jslirp.check.Checker.ethDst;

import io.jslirp.check.Recorder;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
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
        MemorySegment f = arena.allocate(42);
        Ethernet.write(f, 0, Ethernet.BROADCAST, GUEST_MAC, Ethernet.TYPE_ARP);
        Arp.write(f, 14, Arp.REQUEST, GUEST_MAC, sender, 0, target);
        return f;
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
}
