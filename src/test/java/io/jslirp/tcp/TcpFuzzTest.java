package io.jslirp.tcp;

import static io.jslirp.tcp.TcpHarness.NONE;
import static io.jslirp.tcp.TcpHarness.guestStream;
import static io.jslirp.tcp.TcpHarness.hostStream;
import static io.jslirp.tcp.TcpHarness.seg;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.check.Choices;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.build.FrameBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random guest segments (any flags, sequence and acknowledgment numbers near or far from the
 * window, random windows, timestamps and SACK blocks) and random host events against one
 * connection, with a virtual clock. Whatever arrives, nothing throws, every segment sent is
 * well formed, every byte the host side takes is the guest's stream in order, and every byte the
 * guest is sent is the host's stream at its sequence number: a guest cannot corrupt or reorder a
 * flow, only stall or reset it. Buffer memory stays within the connection's bound, and a closed
 * connection gives all of it back.
 *
 * <p>The quick run tries {@code jslirp.fuzz.seeds} scenarios (default 300) from
 * {@code jslirp.fuzz.base} (default 1); {@code scripts/fuzz.sh} runs many more. A failure names
 * its seed, which replays it.
 */
class TcpFuzzTest {
    private static final int STEPS = 400;

    @Test
    void randomSegmentsNeverCorruptTheStreams() {
        long base = Long.getLong("jslirp.fuzz.base", 1);
        int seeds = Integer.getInteger("jslirp.fuzz.seeds", 300);
        long toHost = 0, toGuest = 0;
        Map<TcpConnection.State, Integer> endStates = new TreeMap<>();
        for (long seed = base; seed < base + seeds; seed++) {
            try {
                Scenario sc = new Scenario(Choices.of(new SplittableRandom(seed)));
                sc.run();
                toHost += sc.hostTook;
                toGuest += sc.guestGot;
                endStates.merge(sc.h.conn.state(), 1, Integer::sum);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("fuzz seed " + seed + " (replay: -Djslirp.fuzz.base=" + seed
                        + " -Djslirp.fuzz.seeds=1): " + e.getMessage(), e);
            }
        }
        System.out.printf("TCP fuzz: %d scenarios, %d bytes to the host and %d to the guest checked; end states %s%n",
                seeds, toHost, toGuest, endStates);
        assertThat(toHost).as("guest data reached the host side").isPositive();
        assertThat(toGuest).as("host data reached the guest").isPositive();
    }

    /**
     * One connection driven by one sequence of choices (random, or a fuzzer's bytes: {@link
     * TcpSegmentsJazzerTest}), checked after every event: the streams as above, buffer memory
     * within its bound, the window offered to the guest never beyond what the receive buffer can
     * still hold, and data sent to the guest never beyond the window the guest offered (a zero
     * window probe's one byte aside).
     */
    static final class Scenario {
        private final Choices rnd;
        private final TcpHarness h;
        /** Guest stream bytes the host socket has taken, and host stream bytes produced. */
        private long hostTook, hostProduced;
        /** The highest sequence number sent to the guest and the latest acknowledgment it was sent. */
        private int sndMax, lastAck;
        private final boolean timestamps, sack;
        private boolean hostFinished;
        /** Payload bytes sent to the guest, retransmissions included. */
        private long guestGot;

        /** The shift of the windows we offer and of those the guest offers; the right edge of the guest's, relative to r(0). */
        private final int ourShift, guestShift;
        private long guestEdge;

        Scenario(Choices choices) {
            rnd = choices;
            timestamps = rnd.nextBoolean();
            sack = rnd.nextBoolean();
            int guestWscale = rnd.nextBoolean() ? NONE : rnd.nextInt(15);
            TcpHarness.Builder b = TcpHarness.with().guestIsn(rnd.nextInt()).iss(rnd.nextInt())
                    .guestMss(536 + rnd.nextInt(1000)).guestWscale(guestWscale);
            if (rnd.nextBoolean()) b.buffers(4096 << rnd.nextInt(6), 4096 << rnd.nextInt(6));
            if (timestamps) b.guestTimestamps(rnd.nextInt());
            if (sack) b.guestSackPermitted();
            if (rnd.nextBoolean()) b.largeSegments();
            int window = 1 + rnd.nextInt(0xffff);
            h = b.established(window);
            sndMax = h.r(1);
            lastAck = h.g(1);
            ourShift = guestWscale == NONE ? 0 : h.config.windowShift();
            guestShift = guestWscale == NONE ? 0 : guestWscale;
            guestEdge = 1 + ((long) window << guestShift);
        }

        void run() {
            run(STEPS);
        }

        void run(int steps) {
            for (int step = 0; step < steps && h.conn.state() != TcpConnection.State.CLOSED && !rnd.exhausted(); step++) {
                switch (rnd.nextInt(10)) {
                    case 0, 1, 2, 3 -> guestSegment();
                    case 4 -> hostProduces();
                    case 5, 6 -> hostTakes();
                    case 7 -> time();
                    case 8 -> {
                        if (rnd.nextInt(20) == 0 && !hostFinished) {
                            hostFinished = true;
                            h.hostFinishes();
                        }
                    }
                    default -> {
                        if (rnd.nextInt(200) == 0) h.hostReset();
                    }
                }
                check(h.flush());
                assertThat(h.buffers.inUse()).as("buffer memory within the two rings' bound")
                        .isLessThanOrEqualTo((long) h.config.receiveBuffer() + h.config.sendBuffer());
            }
            if (h.conn.state() == TcpConnection.State.CLOSED) {
                assertThat(h.buffers.inUse()).as("a closed connection holds no buffer").isZero();
                assertThat(h.buffers.reserved()).as("nor any growth reserved against the budget").isZero();
            }
        }

        private void guestSegment() {
            // Resets and FINs are rare, or most scenarios would end after a few steps.
            int flags = switch (rnd.nextInt(400)) {
                case 0 -> Tcp.RST;
                case 1 -> Tcp.RST | Tcp.ACK;
                case 2, 3, 4 -> Tcp.FIN | Tcp.ACK;
                case 5, 6, 7, 8, 9, 10, 11, 12 -> Tcp.SYN;
                case 13, 14, 15, 16, 17, 18, 19, 20 -> Tcp.SYN | Tcp.ACK;
                default -> switch (rnd.nextInt(8)) {
                    case 0 -> rnd.nextInt(0x40) & ~Tcp.RST & ~Tcp.FIN;
                    case 1, 2 -> Tcp.ACK | Tcp.PSH;
                    default -> Tcp.ACK;
                };
            };
            // Mostly the next byte expected or a little beyond it (a gap), now and then far off.
            int seq = switch (rnd.nextInt(10)) {
                case 0, 1, 2, 3, 4 -> lastAck;
                case 5, 6, 7 -> lastAck + rnd.nextInt(1 << 13);
                default -> near(lastAck, 1 << 16);
            };
            // Now and then a TSO-sized segment, which may go straight to the host socket.
            int len = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(8) == 0 ? rnd.nextInt(65000) : rnd.nextInt(3000);
            // The payload is the guest stream at seq: whatever part of it is accepted can be checked.
            long position = (long) (seq - h.g(1));
            int ackNumber = near(sndMax, 1 << 15), window = rnd.nextInt(0x10000);
            FrameBuilder s = seg(flags).seq(seq).ack(ackNumber).window(window).payload(guestStream(position, len));
            int sackBlocks = sack && rnd.nextBoolean() ? 1 + rnd.nextInt(timestamps ? 2 : 3) : 0;
            if (sackBlocks > 0) {
                int[] edges = new int[2 * sackBlocks];
                for (int i = 0; i < edges.length; i += 2) {
                    edges[i] = near(sndMax, 1 << 15);
                    edges[i + 1] = edges[i] + rnd.nextInt(1 << 14);
                }
                s.sack(edges);
            }
            if (timestamps && rnd.nextInt(8) != 0) s.timestamps(rnd.nextInt(), rnd.nextInt());
            h.host.socketRoom = rnd.nextBoolean() ? 0 : rnd.nextInt(1 << 16);
            long acked = ackNumber - h.r(0);
            if ((flags & Tcp.ACK) != 0 && acked >= 0 && acked <= sndMax - h.r(0)) {
                guestEdge = Math.max(guestEdge, acked + ((long) window << guestShift)); // at most what the guest let us send
            }
            h.guest(s);
            byte[] direct = h.host.taken();
            assertThat(direct).as("bytes written straight to the host at guest stream offset %d", hostTook)
                    .isEqualTo(guestStream(hostTook, direct.length));
            hostTook += direct.length;
            check(h.drain());
        }

        /** A value within span of base, or now and then anywhere in the sequence space. */
        private int near(int base, int span) {
            return rnd.nextInt(16) == 0 ? rnd.nextInt() : base + rnd.nextInt(-span, span);
        }

        private void hostProduces() {
            if (hostFinished) return;
            int n = 1 + rnd.nextInt(1 << 16);
            h.hostSends(n);
            hostProduced += n;
        }

        private void hostTakes() {
            int waiting = h.conn.toHost().size();
            if (waiting == 0) return;
            int n = 1 + rnd.nextInt(waiting);
            byte[] taken = Arrays.copyOf(h.toHostBytes(), n);
            assertThat(taken).as("bytes the host side takes at guest stream offset %d", hostTook)
                    .isEqualTo(guestStream(hostTook, n));
            hostTook += n;
            h.hostWrote(n);
        }

        private void time() {
            if (h.timerArmed() && rnd.nextBoolean()) {
                check(h.fireTimer());
            } else {
                h.advance(rnd.nextLong(1, 3_000_000_000L));
            }
        }

        /** Checks segments sent to the guest (TcpHarness.Sent.parse already checked their form). */
        private void check(List<TcpHarness.Sent> sent) {
            for (TcpHarness.Sent s : sent) {
                if (s.has(Tcp.ACK)) {
                    lastAck = s.ack();
                    long edge = (long) (s.ack() - h.g(1)) + ((long) s.window() << ourShift);
                    assertThat(edge).as("the window offered ends within the receive buffer past what the host took (%d)", hostTook)
                            .isLessThanOrEqualTo(hostTook + h.config.receiveBuffer() + 1); // + the guest's FIN
                }
                if (s.has(Tcp.SYN) || s.len() == 0) continue;
                long position = (long) (s.seq() - h.r(1));
                assertThat(position).as("data sent at a sequence number the host produced").isBetween(0L, hostProduced - s.len());
                assertThat(s.payload()).as("host stream at offset %d", position).isEqualTo(hostStream(position, s.len()));
                guestGot += s.len();
                if (s.seq() + s.len() - sndMax > 0) sndMax = s.seq() + s.len();
                assertThat((long) (s.seq() - h.r(0)) + s.len()).as("data sent within the guest's window (a probe's byte aside)")
                        .isLessThanOrEqualTo(guestEdge + 1);
            }
        }
    }
}
