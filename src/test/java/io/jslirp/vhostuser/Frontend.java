package io.jslirp.vhostuser;

import io.jslirp.virtio.GuestMemory;
import io.jslirp.virtio.Le;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A front-end as QEMU drives one, for the tests: it encodes each request, decodes it as the
 * wiring will, hands it to the backend, and plays the caller's part for the actions (mapping an
 * arena segment as guest memory, keeping the descriptors given). Descriptors are numbers counted
 * from 100; the test checks where each one ends up.
 */
final class Frontend implements AutoCloseable {
    static final long GPA = 0x1_0000_0000L, UVA = 0x7f55_0000_0000L, SIZE = 0x40_0000;

    final Arena arena = Arena.ofConfined();
    final MemorySegment buffer = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD);
    final Backend backend;
    final Message message = new Message();
    final List<Action> actions = new ArrayList<>();
    private int nextFd = 100;
    final List<Integer> given = new ArrayList<>();
    final List<Integer> closed = new ArrayList<>();
    Outcome last;
    MemorySegment guest;

    Frontend(Backend.Offer offer) {
        backend = new Backend(offer, arena.allocate(Message.HEADER + Message.MAX_PAYLOAD));
    }

    int fd() {
        given.add(nextFd);
        return nextFd++;
    }

    /** Decodes the message of length len in the buffer and hands it to the backend; an undecodable one throws. */
    Outcome send(int len, int... fds) throws ProtocolException {
        message.decode(buffer, len);
        return perform(backend.handle(message, fds));
    }

    /** Plays the caller's part: records the actions, maps what is to be mapped and hands it back. */
    Outcome perform(Outcome o) {
        last = o;
        List<Action> now = List.copyOf(o.actions());
        for (Action a : now) {
            actions.add(a);
            switch (a) {
                case Action.CloseFd c -> closed.add(c.fd());
                case Action.MapMemory map -> {
                    for (int fd : map.fds()) closed.add(fd); // the caller closes them once mapped
                    if (o.error() == null) {
                        MemorySegment[] segs = new MemorySegment[map.table().count()];
                        for (int i = 0; i < segs.length; i++) segs[i] = arena.allocate(map.table().region(i).size(), 4096);
                        guest = segs[0];
                        perform(backend.mapped(new GuestMemory(map.table(), segs)));
                        last = o;
                    }
                }
                default -> {}
            }
        }
        return o;
    }

    long reply64() {
        return Le.u64(last.reply(), Message.HEADER);
    }

    Outcome simple(Request r, int flags) throws ProtocolException {
        return send(Encoder.empty(buffer, r, flags));
    }

    Outcome u64(Request r, long v, int... fds) throws ProtocolException {
        return send(Encoder.u64(buffer, r, 0, v), fds);
    }

    Outcome state(Request r, int index, int num) throws ProtocolException {
        return send(Encoder.state(buffer, r, 0, index, num));
    }

    /** One region of SIZE bytes at GPA, user address UVA. */
    Outcome memory() throws ProtocolException {
        return send(Encoder.memoryTable(buffer, 0, new long[] {GPA, SIZE, UVA, 0}), fd());
    }

    /** Ring r's parts at 64 KiB steps into the region (user addresses). */
    Outcome addr(int r) throws ProtocolException {
        long base = UVA + 0x10_0000L * (r + 1);
        return send(Encoder.addr(buffer, 0, r, base, base + 0x2_0000, base + 0x1_0000));
    }

    /** What QEMU sends to set up and enable ring r of size size. */
    void ring(int r, int size) throws ProtocolException {
        state(Request.SET_VRING_NUM, r, size);
        state(Request.SET_VRING_BASE, r, 0);
        addr(r);
        u64(Request.SET_VRING_KICK, r, fd());
        u64(Request.SET_VRING_CALL, r, fd());
        state(Request.SET_VRING_ENABLE, r, 1);
    }

    /** The negotiation QEMU does first, accepting all that is offered. */
    void negotiate() throws ProtocolException {
        simple(Request.GET_FEATURES, 0);
        long features = reply64();
        simple(Request.GET_PROTOCOL_FEATURES, 0);
        u64(Request.SET_PROTOCOL_FEATURES, reply64());
        simple(Request.SET_OWNER, 0);
        u64(Request.SET_FEATURES, features);
    }

    @Override
    public void close() {
        arena.close();
    }
}
