package io.jslirp.link;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.stack.Counters;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.EventFd;
import io.jslirp.vhostuser.Encoder;
import io.jslirp.vhostuser.Message;
import io.jslirp.vhostuser.Request;
import io.jslirp.wire.Arp;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.build.FrameBuilder;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vhost-user end to end without QEMU: a front-end and driver of the test's ({@link VhostFrontend})
 * negotiate over a real unix socket, share a file as guest memory, and exchange frames through
 * the rings with the link; hostile front-ends end their connection, and the listener serves the next.
 */
class VhostUserLinkTest {
    private static final int GUEST = Ipv4.parse("10.0.2.15"), GATEWAY = Ipv4.parse("10.0.2.2");

    @TempDir
    Path dir;

    private final MemorySegment buffer = Arena.ofAuto().allocate(VhostUserLink.MAX_FRAME);
    private final List<byte[]> fromGuest = new ArrayList<>();
    private VhostUserLink link;
    /** Where frames from the guest go: to the list, or a stack's receive. */
    private Stack stack;

    private Path socket() {
        return dir.resolve("vu.sock");
    }

    private VhostUserLink listen() {
        link = VhostUserLink.listenUnix(socket().toString(), "the test's socket");
        return link;
    }

    /** What the loop would do when the link's descriptor is readable: take every frame it has. */
    private void pump() {
        int n;
        while ((n = link.receive(0, buffer)) > 0) {
            if (stack != null) stack.receive(buffer, n, false);
            else fromGuest.add(buffer.asSlice(0, n).toArray(JAVA_BYTE));
        }
    }

    private VhostFrontend frontend(String memory) throws Exception {
        return new VhostFrontend(socket(), dir.resolve(memory), this::pump);
    }

    @AfterEach
    void close() {
        if (link != null) link.close();
    }

    private static byte[] frame(int length, int seed) {
        byte[] f = new byte[length];
        for (int i = 0; i < length; i++) f[i] = (byte) (seed * 31 + i);
        return f;
    }

    private static byte[] arpRequest() {
        return FrameBuilder.arp(Arp.REQUEST, GUEST, 0, GATEWAY).bytes();
    }

    @Test
    void framesCrossBothWaysAndTheGuestIsInterruptedOncePerFlush() throws Exception {
        listen();
        try (VhostFrontend fe = frontend("mem")) {
            fe.setUp(4);
            assertThat(link.connected()).isTrue();

            byte[] out = frame(590, 1);
            fe.transmit(out);
            pump();
            assertThat(fromGuest).containsExactly(out);
            assertThat(fe.usedIndex(1)).as("published at the flush").isZero();
            link.flush();
            assertThat(fe.usedIndex(1)).isEqualTo(1);
            assertThat(fe.signalled(fe.call[1])).as("a frame, not a busy run: interrupted at the flush").isTrue();

            byte[] in = frame(1400, 2);
            assertThat(link.send(MemorySegment.ofArray(in), in.length)).isTrue();
            assertThat(fe.received()).as("not published before the flush").isNull();
            link.flush();
            assertThat(fe.received()).isEqualTo(in);
            assertThat(fe.signalled(fe.call[0])).isTrue();
            link.flush();
            assertThat(fe.signalled(fe.call[0])).as("nothing new, no interrupt").isFalse();

            for (int i = 0; i < 3; i++) assertThat(link.send(MemorySegment.ofArray(in), in.length)).isTrue();
            byte[] late = frame(700, 4);
            assertThat(link.send(MemorySegment.ofArray(late), late.length)).as("no receive buffer left: it waits").isTrue();
            link.flush();
            for (int i = 0; i < 3; i++) assertThat(fe.received()).isEqualTo(in);
            assertThat(fe.received()).isNull();
            assertThat(fe.signalled(fe.call[0])).isTrue();

            assertThat(fe.refillReceive(0)).as("the device asked for a kick when buffers come").isTrue();
            pump();
            link.flush();
            assertThat(fe.received()).isEqualTo(late);
            assertThat(fe.signalled(fe.call[0])).isTrue();
        }
    }

    /**
     * A front-end that connects while the instance has no descriptor left (accept fails with
     * EMFILE) does not keep the link's descriptor readable: the listener rests between attempts,
     * so the loop does not spin, and the front-end is served once a descriptor is free.
     */
    @Test
    void aFrontEndThatFindsNoDescriptorLeftWaitsWithoutSpinningAndIsServedLater() throws Exception {
        RefusingAccept accept = new RefusingAccept();
        link = VhostUserLink.listenUnix(socket().toString(), "the test's socket", System::nanoTime, accept);
        try (VhostFrontend fe = frontend("mem"); Epoll loop = new Epoll(1)) {
            accept.refuse(3, link.fd(0), this::pump);
            assertThat(link.connected()).isFalse();
            accept.allow();
            loop.add(link.fd(0), Epoll.IN);
            for (int i = 0; i < 100 && !link.connected(); i++) {
                if (loop.wait(100) > 0) pump();
            }
            assertThat(link.connected()).as("taken once the rest was over").isTrue();
            fe.setUp(4);
            byte[] out = frame(590, 7);
            fe.transmit(out);
            pump();
            assertThat(fromGuest).containsExactly(out);
        }
    }

    /** The guest transmits a frame, the link reads it and flushes. */
    private void transmitOne(VhostFrontend fe, int seed) {
        fe.transmit(frame(300, seed));
        pump();
        link.flush();
    }

    /**
     * Once a transmit ring is busy (a run of {@link VhostSession#BUSY_RUN_FRAMES} frames), its
     * interrupts wait: a driver that takes its used buffers back itself before the delay is over
     * (Linux's does before each frame it sends) and moves its used_event past them gets none for
     * them; one that leaves its used_event where it was gets it once the delay is over. A pause
     * ends the run, and the next frame's interrupt goes at its flush again.
     */
    @Test
    void aBusyTransmitRingsInterruptWaitsAndGoesOnlyIfTheDriverStillAsks() throws Exception {
        long[] now = {1_000_000_000L}; // the runs' clock: it moves only when the test says
        link = VhostUserLink.listenUnix(socket().toString(), "the test's socket", () -> now[0]);
        try (VhostFrontend fe = frontend("mem")) {
            fe.setUp(4);
            for (int i = 0; i < VhostSession.BUSY_RUN_FRAMES - 1; i++) {
                transmitOne(fe, i);
                assertThat(fe.signalled(fe.call[1])).as("frame %d of the run: interrupted at the flush", i).isTrue();
                fe.reclaimTransmitted(1); // (as the driver does when interrupted: the next frame's interrupt asked for)
            }
            transmitOne(fe, 100);
            assertThat(fe.signalled(fe.call[1])).as("the run is busy: the interrupt waits").isFalse();
            fe.reclaimTransmitted(1);
            fe.awaitDevice(link.fd(0));
            assertThat(fe.signalled(fe.call[1])).as("its used_event moved on: no interrupt").isFalse();

            transmitOne(fe, 101);
            assertThat(fe.signalled(fe.call[1])).as("the interrupt waits again").isFalse();
            fe.awaitDevice(link.fd(0));
            assertThat(fe.signalled(fe.call[1])).as("the driver did not take its buffer back: the interrupt, once the delay is over").isTrue();
            fe.reclaimTransmitted(1);

            now[0] += VhostSession.RUN_GAP_NANOS + 1;
            transmitOne(fe, 103);
            assertThat(fe.signalled(fe.call[1])).as("after a pause, a new run: interrupted at the flush").isTrue();
            assertThat(fe.usedIndex(1)).isEqualTo(VhostSession.BUSY_RUN_FRAMES + 2);
            assertThat(fromGuest).hasSize(VhostSession.BUSY_RUN_FRAMES + 2);
        }
    }

    /**
     * QEMU's unmask of an interrupt vector (under TCG, or whenever the guest masks one): it sends
     * the guest's notifier in place of its masked one and then tests the masked one for a signal,
     * before this side reads the message. A frame pushed meanwhile is published, and signalled on
     * the old descriptor, by the flush before the message is handled: that signal is lost. The new
     * descriptor must then be signalled, or the guest never hears of the frame (and with EVENT_IDX
     * of none after it: its used_event stays behind). The likeliest cause found of a VM, seen once,
     * whose DHCP got its offer and none of its acks.
     */
    @Test
    void aReplacedCallDescriptorIsSignalledSoNoInterruptIsLostInTheSwap() throws Exception {
        listen();
        try (VhostFrontend fe = frontend("mem"); EventFd unmasked = new EventFd()) {
            fe.setUp(4);
            byte[] in = frame(1400, 2);
            assertThat(link.send(MemorySegment.ofArray(in), in.length)).isTrue();
            fe.replaceCall(0, unmasked);
            assertThat(fe.signalled(fe.call[0])).as("the old descriptor got the flush's signal, which QEMU no longer looks at").isTrue();
            assertThat(fe.received()).isEqualTo(in);
            assertThat(fe.signalled(unmasked)).as("the new descriptor is signalled at once").isTrue();

            link.flush();
            assertThat(fe.signalled(unmasked)).as("nothing new: no further interrupt").isFalse();
            assertThat(link.send(MemorySegment.ofArray(in), in.length)).isTrue();
            link.flush();
            assertThat(fe.signalled(unmasked)).as("later frames go to the new descriptor").isTrue();
            assertThat(fe.signalled(fe.call[0])).isFalse();

            fe.replaceCall(1, unmasked);
            assertThat(fe.signalled(unmasked)).as("a transmit ring's too (its completions)").isTrue();
        }
    }

    @Test
    void aFullBacklogDrops() throws Exception {
        listen();
        try (VhostFrontend fe = frontend("mem")) {
            fe.setUp(1);
            byte[] in = frame(1400, 6);
            int taken = 0;
            while (link.send(MemorySegment.ofArray(in), in.length)) taken++;
            assertThat(taken).as("one in the ring, the rest in the backlog").isEqualTo(1 + RxBacklog.CAPACITY / (4 + 12 + 1400));
        }
    }

    @Test
    void theStackAnswersAnArpRequestThroughTheRings() throws Exception {
        listen();
        stack = new Stack(NetworkConfig.defaults(), link, new Counters());
        try (VhostFrontend fe = frontend("mem")) {
            fe.setUp(4);
            fe.transmit(arpRequest());
            pump();
            link.flush();
            assertArpReply(fe.received());
            assertThat(fe.signalled(fe.call[0])).isTrue();
        }
    }

    private static void assertArpReply(byte[] f) {
        assertThat(f).as("a frame toward the guest").isNotNull();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(f);
        assertThat(b.getShort(12)).as("ARP").isEqualTo((short) 0x0806);
        assertThat(b.getShort(20)).as("a reply").isEqualTo((short) Arp.REPLY);
        assertThat(b.getInt(28)).as("from the gateway").isEqualTo(GATEWAY);
    }

    /** An engine on its own thread serves the link, as jslirp qemu does: the answer comes through the rings and the call eventfd. */
    @Test
    void anEngineServesTheLinkOnItsLoop() throws Exception {
        listen();
        Engine engine = new Engine(link, EngineConfig.of(NetworkConfig.defaults(), List.of()));
        VhostUserLink served = link;
        link = null; // the engine closes it
        Thread loop = Thread.ofPlatform().name("vhost-test-engine").start(engine::run);
        try (VhostFrontend fe = new VhostFrontend(socket(), dir.resolve("mem"), () -> LockSupport.parkNanos(200_000))) {
            fe.setUp(4);
            fe.transmit(arpRequest());
            long deadline = System.nanoTime() + 5_000_000_000L;
            byte[] reply = null;
            while (reply == null && System.nanoTime() < deadline) {
                LockSupport.parkNanos(200_000);
                reply = fe.received();
            }
            assertArpReply(reply);
            // The engine's thread publishes the used index before it writes the call eventfd: wait for the write.
            boolean signalled = fe.signalled(fe.call[0]);
            while (!signalled && System.nanoTime() < deadline) {
                LockSupport.parkNanos(200_000);
                signalled = fe.signalled(fe.call[0]);
            }
            assertThat(signalled).isTrue();
            assertThat(served.connected()).isTrue();
        } finally {
            engine.stop();
            loop.join(10_000);
        }
        assertThat(loop.isAlive()).isFalse();
    }

    /** Runs what with System.err captured: what was written there. */
    private static String stderrOf(ThrowingRunnable what) throws Exception {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true));
        try {
            what.run();
        } finally {
            System.setErr(saved);
        }
        return captured.toString();
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** After a hostile front-end, the next one is served: frames cross. */
    private void nextIsServed() throws Exception {
        fromGuest.clear();
        try (VhostFrontend fe = frontend("mem-next")) {
            fe.setUp(2);
            byte[] out = frame(100, 5);
            fe.transmit(out);
            pump();
            assertThat(fromGuest).containsExactly(out);
        }
    }

    @Test
    void anUnknownRequestEndsTheConnectionWithOneLineAndTheNextIsServed() throws Exception {
        listen();
        String err = stderrOf(() -> {
            try (VhostFrontend fe = frontend("mem")) {
                fe.send(Encoder.raw(fe.out(), 99, Message.VERSION, new byte[0]));
                assertThat(fe.closedByBackend()).isTrue();
            }
        });
        assertThat(err.lines()).containsExactly("jslirp: vhost-user front-end disconnected: unknown request 99");
        assertThat(link.connected()).isFalse();
        nextIsServed();
    }

    @Test
    void aRegionBeyondItsFileEndsTheConnection() throws Exception {
        listen();
        String err = stderrOf(() -> {
            try (VhostFrontend fe = frontend("mem")) {
                fe.send(Encoder.memoryTable(fe.out(), 0, new long[] {VhostFrontend.GPA, 2 * VhostFrontend.SIZE, VhostFrontend.UVA, 0}), fe.memoryFd);
                assertThat(fe.closedByBackend()).isTrue();
            }
        });
        assertThat(err.lines()).singleElement().asString().contains("disconnected: SET_MEM_TABLE: region 0 cannot be mapped");
        nextIsServed();
    }

    @Test
    void aRingOutsideMemoryEndsTheConnection() throws Exception {
        listen();
        String err = stderrOf(() -> {
            try (VhostFrontend fe = frontend("mem")) {
                fe.send(Encoder.memoryTable(fe.out(), 0, new long[] {VhostFrontend.GPA, VhostFrontend.SIZE, VhostFrontend.UVA, 0}), fe.memoryFd);
                long outside = VhostFrontend.UVA + VhostFrontend.SIZE + 0x1000;
                fe.send(Encoder.addr(fe.out(), 0, 1, outside, outside + 0x1000, outside + 0x2000));
                assertThat(fe.closedByBackend()).isTrue();
            }
        });
        assertThat(err.lines()).singleElement().asString().contains("disconnected: SET_VRING_ADDR").contains("outside guest memory");
        nextIsServed();
    }

    @Test
    void aRingBeyondTheOfferedPairsEndsTheConnection() throws Exception {
        listen();
        int beyond = VhostSession.RINGS;
        for (Request r : new Request[] {Request.SET_VRING_NUM, Request.SET_VRING_KICK, Request.SET_VRING_ENABLE}) {
            String err = stderrOf(() -> {
                try (VhostFrontend fe = frontend("mem")) {
                    if (r == Request.SET_VRING_KICK) fe.send(Encoder.u64(fe.out(), r, 0, beyond), fe.kick[0].fd());
                    else fe.send(Encoder.state(fe.out(), r, 0, beyond, 1));
                    assertThat(fe.closedByBackend()).isTrue();
                }
            });
            assertThat(err.lines()).singleElement().asString()
                    .endsWith("disconnected: " + r + ": ring " + beyond + ", beyond the " + VhostSession.RINGS + " rings of the "
                            + VhostSession.MAX_QUEUE_PAIRS + " queue pairs offered");
            assertThat(link.connected()).isFalse();
        }
        nextIsServed();
    }

    @Test
    void aMessageArrivingInPiecesIsTakenWhole() throws Exception {
        listen();
        try (VhostFrontend fe = frontend("mem")) {
            fe.send(Encoder.u64(fe.out(), Request.SET_PROTOCOL_FEATURES, 0, io.jslirp.vhostuser.Features.bit(io.jslirp.vhostuser.Features.PROTOCOL_REPLY_ACK)));
            fe.sendSplit(Encoder.memoryTable(fe.out(), VhostFrontend.NEED_REPLY,
                    new long[] {VhostFrontend.GPA, VhostFrontend.SIZE, VhostFrontend.UVA, 0}), fe.memoryFd);
            assertThat(fe.reply(Request.SET_MEM_TABLE)).as("acknowledged").isZero();
            fe.setUp(2);
            byte[] out = frame(300, 8);
            fe.transmit(out);
            pump();
            assertThat(fromGuest).containsExactly(out);
        }
    }

    @Test
    void aChainOutsideMemoryCostsThatFrameOnly() throws Exception {
        listen();
        try (VhostFrontend fe = frontend("mem")) {
            fe.setUp(2);
            fe.transmitRaw(VhostFrontend.GPA + VhostFrontend.SIZE + 0x1000, 100);
            byte[] out = frame(200, 3);
            fe.transmit(out);
            pump();
            assertThat(fromGuest).containsExactly(out);
            assertThat(link.badChains()).isEqualTo(1);
            link.flush();
            assertThat(fe.usedIndex(1)).as("the bad chain given back too").isEqualTo(2);
            assertThat(link.connected()).isTrue();
        }
    }

    @Test
    void anAvailableIndexJumpingAheadEndsTheConnectionAndSignalsErr() throws Exception {
        listen();
        String err = stderrOf(() -> {
            try (VhostFrontend fe = frontend("mem")) {
                fe.setUp(2);
                fe.availIndex(1, 1000);
                pump();
                assertThat(fe.closedByBackend()).isTrue();
                assertThat(fe.signalled(fe.err[1])).isTrue();
            }
        });
        assertThat(err.lines()).singleElement().asString().contains("disconnected: ring 1: AVAIL_INDEX_JUMP: available index 1000");
        nextIsServed();
    }

    @Test
    void aSecondFrontEndWaitsUntilTheFirstEnds() throws Exception {
        listen();
        VhostFrontend first = frontend("mem");
        first.setUp(2);
        try (VhostFrontend second = frontend("mem-2")) {
            second.send(Encoder.empty(second.out(), Request.GET_FEATURES, 0));
            pump();
            assertThat(second.nothingYet()).isTrue();
            first.close();
            assertThat(second.reply(Request.GET_FEATURES)).isNotZero();
        }
    }
}
