package io.jslirp.vhostuser;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.virtio.Le;
import io.jslirp.check.Choices;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Whatever a front-end sends, well-formed or not, in any order: the backend never throws, a
 * message it refuses leaves it holding nothing, and once the connection closes every descriptor
 * it was given has been closed (or handed over for mapping) exactly once.
 */
class BackendFuzzTest {
    private static final Request[] SERVED = {
        Request.GET_FEATURES, Request.SET_FEATURES, Request.SET_OWNER, Request.RESET_OWNER, Request.SET_MEM_TABLE,
        Request.SET_VRING_NUM, Request.SET_VRING_ADDR, Request.SET_VRING_BASE, Request.GET_VRING_BASE, Request.SET_VRING_KICK,
        Request.SET_VRING_CALL, Request.SET_VRING_ERR, Request.GET_PROTOCOL_FEATURES, Request.SET_PROTOCOL_FEATURES,
        Request.GET_QUEUE_NUM, Request.SET_VRING_ENABLE, Request.GET_CONFIG, Request.SEND_RARP,
    };

    @Property(tries = 300)
    void anySequenceKeepsTheBackendWhole(@ForAll long seed) {
        run(Choices.of(new SplittableRandom(seed)), 60);
    }

    /** Up to steps messages made from the choices r (fewer once a fuzzer's bytes run out), then the connection's close. */
    static void run(Choices r, int steps) {
        try (Frontend f = new Frontend(new Backend.Offer(BackendTest.FEATURES, BackendTest.PROTOCOL, 1 + r.nextInt(2)))) {
            if (r.nextBoolean()) setUp(f, r);
            for (int step = 0; step < steps && !r.exhausted(); step++) {
                int len = randomMessage(f, r);
                int[] fds = new int[r.nextInt(4) == 0 ? r.nextInt(3) : expectedFds(f)];
                for (int i = 0; i < fds.length; i++) fds[i] = f.fd();
                try {
                    f.message.decode(f.buffer, len);
                } catch (ProtocolException e) {
                    for (int fd : fds) f.closed.add(fd); // the wiring closes what came with an undecodable message
                    continue;
                }
                Outcome o = f.perform(f.backend.handle(f.message, fds));
                if (o.error() != null) for (int ring = 0; ring < 2; ring++) assertThat(f.backend.queue(ring)).isNull();
            }
            f.perform(f.backend.close());
            assertThat(f.closed).containsExactlyInAnyOrderElementsOf(f.given);
        }
    }

    /** Most of the time a valid start, so that the random messages meet started rings. */
    private static void setUp(Frontend f, Choices r) {
        try {
            f.negotiate();
            f.memory();
            f.ring(0, 1 << r.nextInt(9));
            if (r.nextBoolean()) f.ring(1, 1 << r.nextInt(9));
        } catch (ProtocolException e) {
            throw new AssertionError(e);
        }
    }

    private static int expectedFds(Frontend f) {
        Request req = Request.of(Le.u32(f.buffer, 0));
        if (req == Request.SET_MEM_TABLE) return (int) Math.min(8, Le.u32(f.buffer, Message.HEADER) & 0xffffffffL);
        if (req == Request.SET_VRING_KICK || req == Request.SET_VRING_CALL || req == Request.SET_VRING_ERR)
            return (Le.u64(f.buffer, Message.HEADER) & Message.NO_FD) != 0 ? 0 : 1;
        return 0;
    }

    /** A message of a served request with a payload of its size, its fields small numbers, near-valid ones or anything. */
    private static int randomMessage(Frontend f, Choices r) {
        Request req = SERVED[r.nextInt(SERVED.length)];
        int flags = r.nextInt(8) == 0 ? Message.FLAG_NEED_REPLY : 0;
        return switch (req.payload()) {
            case NONE -> Encoder.empty(f.buffer, req, flags);
            case U64 -> Encoder.u64(f.buffer, req, flags, field(r));
            case STATE -> Encoder.state(f.buffer, req, flags, r.nextInt(5), (int) field(r));
            case ADDR -> Encoder.addr(f.buffer, flags, r.nextInt(3), address(r), address(r), address(r));
            case MEMORY -> {
                long[][] regions = new long[1 + r.nextInt(3)][];
                for (int i = 0; i < regions.length; i++)
                    regions[i] = new long[] {address(r) - Frontend.UVA + Frontend.GPA, 1 + r.nextInt(1 << 20), address(r), r.nextInt(4) * 4096L};
                yield Encoder.memoryTable(f.buffer, flags, regions);
            }
            default -> Encoder.raw(f.buffer, req.code(), Message.VERSION | flags, new byte[r.nextInt(3) * 12]);
        };
    }

    private static long field(Choices r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextInt(3);
            case 1 -> 1L << r.nextInt(64);
            case 2 -> BackendTest.FEATURES | (r.nextBoolean() ? Features.bit(Features.PROTOCOL_FEATURES) : 0);
            default -> r.nextLong();
        };
    }

    private static long address(Choices r) {
        return r.nextInt(4) == 0 ? r.nextLong() : Frontend.UVA + r.nextInt(1 << 22);
    }
}
