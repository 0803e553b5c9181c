package io.jslirp.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.tcp.TcpConfig;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's scripted guest and host peer really move their data through the private engine,
 * both ways and to the end (a FIN each way), at both MTUs, its guest closing its window now and
 * then as a VM's slow reader does: what it runs is the whole data path.
 */
class WarmupTest {
    @Test
    void movesItsDataBothWaysThroughAPrivateEngineAtMtu1500() {
        check(1500);
    }

    @Test
    void movesItsDataBothWaysThroughAPrivateEngineAtMtu65520() {
        check(65520);
    }

    /**
     * Through a VhostUserLink's rings: a front-end and a Linux-like virtio driver of the warm-up's
     * own, the stack's large segments toward the guest (GUEST_TSO) and the guest's toward it
     * (HOST_TSO4) at MTU 1500, so fewer frames than segments each way there.
     */
    @Test
    void movesItsDataBothWaysThroughAVhostUserLinkAtMtu1500() {
        Warmup w = checkVhost(1500);
        assertThat((long) w.framesDown).as("frames toward the guest carried several segments (TSO)").isLessThan(w.bytesDown / 1448 / 2);
        assertThat((long) w.framesUp).as("frames from the guest carried several segments (GSO TCPV4)").isLessThan(w.bytesUp / 1448 / 2);
    }

    @Test
    void movesItsDataBothWaysThroughAVhostUserLinkAtMtu65520() {
        Warmup w = checkVhost(65520);
        assertThat((long) w.framesUp).as("one segment a frame at this MTU").isGreaterThanOrEqualTo(w.bytesUp / 65468);
    }

    private static Warmup checkVhost(int mtu) {
        Warmup w = new Warmup(mtu, 0, () -> 0, true);
        w.run();
        assertThat(w.finished()).as("both directions ran to their FINs within the budget: %d bytes down, %d up", w.bytesDown, w.bytesUp).isTrue();
        long least = Warmup.MIN_ROUNDS * bytesOfOneConnection(mtu - 52);
        if (mtu > 1500) least += Warmup.MIN_ROUNDS * bytesOfOneConnection(Warmup.SMALL_MSS - 12);
        assertThat(w.bytesDown).as("data toward the guest, through the receive ring").isGreaterThanOrEqualTo(least);
        assertThat(w.bytesUp).as("data from the guest, through the transmit ring").isGreaterThanOrEqualTo(least);
        assertThat(w.vhostChains).as("chains the engine's VhostUserLink read: the data, and each connection's DHCP, ARP, SYN and FIN")
                .isGreaterThanOrEqualTo(w.framesUp + 6L * w.dhcpConnections);
        assertThat(w.vhostDropped).as("guest frames that found no room in the transmit area, or chains the link refused").isZero();
        checkGuestBehaviour(w, mtu);
        return w;
    }

    private static long bytesOfOneConnection(int payload) {
        return Math.min((long) Warmup.FRAMES * payload, Warmup.MAX_BYTES);
    }

    private static void check(int mtu) {
        Warmup w = new Warmup(mtu, 0);
        w.run();
        int mss = TcpConfig.forMtu(mtu).mss();
        // Each round: a connection each way at the MTU's MSS, and above MTU 1500 another at Ethernet's.
        long frames = framesOfOneConnection(mtu - 52);
        if (mtu > 1500) frames += framesOfOneConnection(Warmup.SMALL_MSS - 12);
        long least = Warmup.MIN_ROUNDS * frames;
        assertThat(w.finished()).as("both directions ran to their FINs within the budget: %d frames down, %d up", w.framesDown, w.framesUp).isTrue();
        assertThat((long) w.framesDown).as("data frames to the guest (MSS %d)", mss).isGreaterThanOrEqualTo(least);
        assertThat((long) w.framesUp).as("data frames from the guest").isGreaterThanOrEqualTo(least);
        assertThat((long) w.framesDown).as("no more than the last round allows").isLessThanOrEqualTo(Warmup.MAX_ROUNDS * frames * 11 / 10);
        checkGuestBehaviour(w, mtu);
    }

    private static void checkGuestBehaviour(Warmup w, int mtu) {
        // As a VM's slow reader does, its guest closed its window in the downloads (and opened it
        // again, or the downloads would not have finished).
        assertThat(w.windowsClosed).as("zero windows advertised").isGreaterThanOrEqualTo(Warmup.MIN_ROUNDS);
        // And as a VM does: DHCP before its connections (all but the first from the leased address),
        // and a reader that stops now and then.
        assertThat(w.dhcpConnections).as("connections from the DHCP lease").isGreaterThanOrEqualTo(Warmup.MIN_ROUNDS * (mtu > 1500 ? 4 : 2) - 1);
        assertThat(w.pauses).as("reading pauses in the downloads").isGreaterThanOrEqualTo(Warmup.MIN_ROUNDS);
        assertThat(w.resets).as("connections the host peer reset, one a round").isGreaterThanOrEqualTo(Warmup.MIN_ROUNDS);
        assertThat(w.chatEchoes).as("1-byte echoes of the interactive connections").isGreaterThanOrEqualTo(Warmup.MIN_ROUNDS * Warmup.CHAT_ROUNDS);
    }

    /** Full segments of payload bytes that one connection's data makes. */
    private static long framesOfOneConnection(int payload) {
        return Math.min((long) Warmup.FRAMES * payload, Warmup.MAX_BYTES) / payload;
    }

    /** Once the VM's own engine moves frames, the warm-up ends there, in the middle of a connection, leaving the CPU to the VM. */
    @Test
    void endsWhenTheVmsTrafficBegins() {
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        // The VM's traffic begins once the warm-up has looked READS times: by then its first download is under way.
        Warmup w = new Warmup(1500, 0, () -> reads.incrementAndGet() > READS ? Warmup.VM_BUSY_FRAMES : 0, false);
        w.run();
        assertThat(w.finished()).isFalse();
        assertThat((long) w.framesDown).as("part of the first connection's download").isBetween(1L, framesOfOneConnection(1500 - 52) / 2);
        assertThat(w.framesUp).as("no upload began").isZero();
    }

    private static final int READS = 50;

    @Test
    void compilerThreadsCpuTimeIsReadFromProc() {
        long before = CompilerThreads.cpuNanos();
        assertThat(before).as("this JVM's JIT threads have compiled something by now").isPositive();
        assertThat(CompilerThreads.ticks("123 (C2 Compiler Thre) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14")).isEqualTo(11 + 12);
    }
}
