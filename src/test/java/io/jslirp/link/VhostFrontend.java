package io.jslirp.link;

import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.EventFd;
import io.jslirp.sys.FdMessages;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.vhostuser.Encoder;
import io.jslirp.vhostuser.Features;
import io.jslirp.vhostuser.Message;
import io.jslirp.vhostuser.Request;
import io.jslirp.virtio.Le;
import io.jslirp.virtio.RxFrames;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A vhost-user front-end and a virtio-net driver in one, as QEMU and the guest's kernel would be,
 * written by hand for the tests: guest memory is a file of the test's (shared with the backend by
 * its descriptor, as QEMU shares a memfd), the rings are laid out in it here, kicks and calls are
 * eventfds. Everything waits by calling {@code pump} (the link's receive in a single-threaded test,
 * a sleep when an engine serves the link on its own thread).
 *
 * <p>One queue pair, or two (multiqueue: ring 2k receives, ring 2k + 1 transmits). Layout (offsets
 * in the file): ring r's descriptor table at 0x1000 + 0x8000 r, its available ring 0x1000 above,
 * its used ring 0x2000 above; pair k's receive buffers (2 KiB each) from 0x20000 + 0x10000 k, its
 * transmit buffers from 0x60000 + 0x10000 k.
 */
final class VhostFrontend implements AutoCloseable {
    static final long GPA = 0x4000_0000L, UVA = 0x7f55_0000_0000L, SIZE = 1 << 20;
    static final int QUEUE = 16, BUFFER = 0x800, HEADER = 12;
    static final int NEED_REPLY = Message.FLAG_NEED_REPLY;
    static final long FEATURES = Features.bit(Features.VERSION_1) | Features.bit(Features.NET_MRG_RXBUF)
            | Features.bit(Features.RING_EVENT_IDX) | Features.bit(Features.PROTOCOL_FEATURES);
    /** The offloads as QEMU passes on a Linux guest's: checksums and TCP cutting both ways. */
    static final long OFFLOADS = Features.bit(Features.NET_GUEST_CSUM) | Features.bit(Features.NET_GUEST_TSO4)
            | Features.bit(Features.NET_GUEST_TSO6) | Features.bit(Features.NET_CSUM) | Features.bit(Features.NET_HOST_TSO4)
            | Features.bit(Features.NET_HOST_TSO6);

    final int socket;
    final MemorySegment memory;
    final int memoryFd;
    /** Queue pairs set up, and their rings. */
    final int pairs, rings;
    final EventFd[] kick, call, err;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment out = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final MemorySegment in = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final MemorySegment eight = arena.allocate(8, 8);
    private final FdMessages io = new FdMessages();
    private final Runnable pump;
    private final int[] availIdx;
    /** Per ring, the used elements read. */
    private final int[] usedSeen;
    /** What GET_QUEUE_NUM answered (with two pairs), else 0. */
    long queueNum;

    /** Connects to path; guest memory is a new file of SIZE bytes at memoryFile. */
    VhostFrontend(Path path, Path memoryFile, Runnable pump) throws IOException {
        this(path, memoryFile, pump, 1);
    }

    /** As {@link #VhostFrontend(Path, Path, Runnable)}, setting up pairs queue pairs (1 or 2). */
    VhostFrontend(Path path, Path memoryFile, Runnable pump, int pairs) throws IOException {
        if (pairs < 1 || pairs > 2) throw new IllegalArgumentException(pairs + " pairs: the layout holds two");
        this.pump = pump;
        this.pairs = pairs;
        this.rings = 2 * pairs;
        this.kick = eventFds(rings);
        this.call = eventFds(rings);
        this.err = eventFds(rings);
        this.availIdx = new int[rings];
        this.usedSeen = new int[rings];
        try (RandomAccessFile f = new RandomAccessFile(memoryFile.toFile(), "rw")) {
            f.setLength(SIZE);
        }
        try (FileChannel ch = FileChannel.open(memoryFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, arena);
        }
        memoryFd = Libc.open(memoryFile.toString(), Libc.O_RDWR | Libc.O_CLOEXEC);
        socket = Sockets.unixStream();
        int r = Sockets.connectUnix(socket, path.toString());
        if (r < 0) throw new IOException("connect " + path + ": " + Errno.describe(-r));
    }

    private static EventFd[] eventFds(int n) {
        EventFd[] e = new EventFd[n];
        for (int i = 0; i < n; i++) e[i] = new EventFd();
        return e;
    }

    /** Where ring's buffers lie in the file. */
    static long buffers(int ring) {
        return (ring % 2 == 0 ? 0x20000 : 0x60000) + 0x10000L * (ring / 2);
    }

    static long desc(int ring) {
        return 0x1000 + 0x8000L * ring;
    }

    static long avail(int ring) {
        return desc(ring) + 0x1000;
    }

    static long used(int ring) {
        return desc(ring) + 0x2000;
    }

    /** Sends the message of length bytes in out with these descriptors. */
    void send(int length, int... fds) {
        int n = io.send(socket, out, 0, length, fds);
        if (n != length) throw new AssertionError("sent " + n + " of " + length);
    }

    /** Sends the message in out in two writes, its header with the descriptors, then (after a pump) its payload. */
    void sendSplit(int length, int... fds) {
        if (io.send(socket, out, 0, Message.HEADER, fds) != Message.HEADER) throw new AssertionError("header not sent");
        pump.run();
        if (io.send(socket, out, Message.HEADER, length - Message.HEADER) != length - Message.HEADER) throw new AssertionError("payload not sent");
    }

    MemorySegment out() {
        return out;
    }

    /** The reply's u64 payload (or a vring state's num): waits for it, pumping. */
    long reply(Request r) {
        int n = readUpTo(Message.HEADER + 8);
        if (n < 0) throw new AssertionError("no reply to " + r + ": the connection ended");
        if (Le.u32(in, 0) != r.code()) throw new AssertionError("reply to " + Le.u32(in, 0) + ", not " + r);
        return Le.u32(in, 8) == 8 ? Le.u64(in, Message.HEADER) : -1;
    }

    /** Whether the backend closed the connection (pumping until it does or two seconds pass). */
    boolean closedByBackend() {
        return readUpTo(Message.HEADER + 8) < 0;
    }

    /** Whether nothing has come from the backend (one look, no waiting). */
    boolean nothingYet() {
        return io.receive(socket, in, 0, Message.HEADER) == -Errno.EAGAIN;
    }

    /** Reads one message of at most max bytes: its length, or -1 at the end of the connection. */
    private int readUpTo(int max) {
        long deadline = System.nanoTime() + 2_000_000_000L;
        int have = 0;
        while (System.nanoTime() < deadline) {
            int n = io.receive(socket, in, have, max - have);
            if (n == 0) return -1;
            if (n > 0) {
                have += n;
                if (have >= Message.HEADER && have == Message.HEADER + Le.u32(in, 8)) return have;
                continue;
            }
            if (n != -Errno.EAGAIN) return -1;
            pump.run();
        }
        throw new AssertionError("nothing from the backend in two seconds");
    }

    /** Asks for an acknowledgement of the message in out (REPLY_ACK negotiated) and waits for it: 0 when taken. */
    long acked(Request r, int length, int... fds) {
        send(length, fds);
        return reply(r);
    }

    /**
     * Negotiates as QEMU does (multiqueue with two pairs), maps the memory, lays out every ring and
     * starts it; puts count receive buffers in each receive ring.
     */
    void setUp(int receiveBuffers) {
        setUp(receiveBuffers, FEATURES);
    }

    /** As {@link #setUp(int)}, acknowledging features (which the backend must offer). */
    void setUp(int receiveBuffers, long features) {
        if (pairs > 1) features |= Features.bit(Features.NET_MQ);
        send(Encoder.empty(out, Request.GET_FEATURES, 0));
        long offered = reply(Request.GET_FEATURES);
        if ((offered & features) != features) throw new AssertionError("offered 0x" + Long.toHexString(offered));
        send(Encoder.u64(out, Request.SET_FEATURES, 0, features));
        send(Encoder.empty(out, Request.GET_PROTOCOL_FEATURES, 0));
        long protocol = reply(Request.GET_PROTOCOL_FEATURES);
        long mq = pairs > 1 ? Features.bit(Features.PROTOCOL_MQ) : 0;
        if ((protocol & mq) != mq) throw new AssertionError("protocol features offered 0x" + Long.toHexString(protocol));
        send(Encoder.u64(out, Request.SET_PROTOCOL_FEATURES, 0, Features.bit(Features.PROTOCOL_REPLY_ACK) | mq));
        if (pairs > 1) {
            send(Encoder.empty(out, Request.GET_QUEUE_NUM, 0));
            queueNum = reply(Request.GET_QUEUE_NUM);
            if (queueNum < pairs) throw new AssertionError("GET_QUEUE_NUM says " + queueNum); // QEMU refuses queues=N above it
        }
        check(acked(Request.SET_OWNER, Encoder.empty(out, Request.SET_OWNER, NEED_REPLY)));
        check(acked(Request.SET_MEM_TABLE, Encoder.memoryTable(out, NEED_REPLY, new long[] {GPA, SIZE, UVA, 0}), memoryFd));
        for (int r = 0; r < rings; r++) {
            Le.u16(memory, avail(r) + 2, 0);
            Le.u16(memory, used(r) + 2, 0);
            check(acked(Request.SET_VRING_NUM, Encoder.state(out, Request.SET_VRING_NUM, NEED_REPLY, r, QUEUE)));
            check(acked(Request.SET_VRING_BASE, Encoder.state(out, Request.SET_VRING_BASE, NEED_REPLY, r, 0)));
            check(acked(Request.SET_VRING_ADDR, Encoder.addr(out, NEED_REPLY, r, UVA + desc(r), UVA + used(r), UVA + avail(r))));
            check(acked(Request.SET_VRING_KICK, Encoder.u64(out, Request.SET_VRING_KICK, NEED_REPLY, r), kick[r].fd()));
            check(acked(Request.SET_VRING_CALL, Encoder.u64(out, Request.SET_VRING_CALL, NEED_REPLY, r), call[r].fd()));
            check(acked(Request.SET_VRING_ERR, Encoder.u64(out, Request.SET_VRING_ERR, NEED_REPLY, r), err[r].fd()));
        }
        for (int r = 0; r < rings; r += 2) {
            for (int i = 0; i < receiveBuffers; i++) offerReceive(r, i);
        }
        for (int r = 0; r < rings; r++) enable(r, true);
    }

    /**
     * SET_VRING_CALL of ring with descriptor e, as QEMU sends it at run time when the guest masks
     * or unmasks the ring's interrupt vector; the old descriptor stays open (QEMU keeps its own).
     */
    void replaceCall(int ring, EventFd e) {
        check(acked(Request.SET_VRING_CALL, Encoder.u64(out, Request.SET_VRING_CALL, NEED_REPLY, ring), e.fd()));
    }

    /** SET_VRING_ENABLE of ring, as QEMU sends it for the pairs the guest's driver uses. */
    void enable(int ring, boolean on) {
        check(acked(Request.SET_VRING_ENABLE, Encoder.state(out, Request.SET_VRING_ENABLE, NEED_REPLY, ring, on ? 1 : 0)));
    }

    private static void check(long ack) {
        if (ack != 0) throw new AssertionError("not acknowledged: " + ack);
    }

    /** Makes descriptor i, a writable 2 KiB buffer, available in receive ring 0. */
    void offerReceive(int i) {
        offerReceive(0, i);
    }

    /** Makes descriptor i, a writable 2 KiB buffer, available in the receive ring ring. */
    void offerReceive(int ring, int i) {
        descriptor(ring, i, GPA + buffers(ring) + (long) BUFFER * i, BUFFER, 2);
        offer(ring, i);
    }

    /** As {@link #refillReceive(int, int)} on receive ring 0. */
    boolean refillReceive(int i) {
        return refillReceive(0, i);
    }

    /**
     * Makes descriptor i available again in receive ring ring and kicks only if the device asked
     * for it (EVENT_IDX: the new available index passed its avail_event), as a driver does: whether it kicked.
     */
    boolean refillReceive(int ring, int i) {
        int old = availIdx[ring];
        offerReceive(ring, i);
        int event = Le.u16(memory, used(ring) + 4 + 8L * QUEUE);
        boolean kick = ((availIdx[ring] - event - 1) & 0xffff) < ((availIdx[ring] - old) & 0xffff);
        if (kick) signal(this.kick[ring]);
        return kick;
    }

    /** Puts frame behind a zeroed virtio-net header in transmit ring 1 and kicks. */
    void transmit(byte[] frame) {
        transmitOn(1, new byte[0], frame);
    }

    /** Puts frame behind the given virtio-net header (its first ten bytes) in transmit ring 1 and kicks. */
    void transmit(byte[] header, byte[] frame) {
        transmitOn(1, header, frame);
    }

    /** Puts frame behind a zeroed virtio-net header in the transmit ring ring and kicks it, only if the device asked (EVENT_IDX); whether it kicked. */
    boolean transmitOn(int ring, byte[] frame) {
        int old = availIdx[ring];
        place(ring, new byte[0], frame);
        int event = Le.u16(memory, used(ring) + 4 + 8L * QUEUE);
        boolean kick = ((availIdx[ring] - event - 1) & 0xffff) < ((availIdx[ring] - old) & 0xffff);
        if (kick) signal(this.kick[ring]);
        return kick;
    }

    private void transmitOn(int ring, byte[] header, byte[] frame) {
        place(ring, header, frame);
        signal(kick[ring]);
    }

    /** Puts frame behind header (zeroes after it up to the virtio-net header's length) in transmit ring ring. */
    private void place(int ring, byte[] header, byte[] frame) {
        int i = availIdx[ring] % QUEUE;
        long at = buffers(ring) + (long) BUFFER * i;
        memory.asSlice(at, HEADER).fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(header), 0, memory, at, header.length);
        MemorySegment.copy(MemorySegment.ofArray(frame), 0, memory, at + HEADER, frame.length);
        descriptor(ring, i, GPA + at, HEADER + frame.length, 0);
        offer(ring, i);
    }

    /**
     * The next frame the backend put in the receive ring, header included, over as many used
     * elements as its num_buffers says (each buffer refilled as it is read), or null when none is published.
     */
    byte[] receivedMerged() {
        if (usedIndex(0) == usedSeen[0]) return null;
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        int buffers = 1;
        for (int k = 0; k < buffers; k++) {
            long e = used(0) + 4 + 8L * (usedSeen[0] % QUEUE);
            usedSeen[0]++;
            int head = Le.u32(memory, e), len = Le.u32(memory, e + 4);
            long at = buffers(0) + (long) BUFFER * head;
            if (k == 0) buffers = Le.u16(memory, at + RxFrames.NUM_BUFFERS);
            b.writeBytes(memory.asSlice(at, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            offerReceive(head);
        }
        Le.u16(memory, avail(0) + 4 + 2L * QUEUE, usedSeen[0]);
        return b.toByteArray();
    }

    /** Offers a transmit chain of one descriptor at guest address gpa of len bytes, as a hostile driver might, and kicks. */
    void transmitRaw(long gpa, int len) {
        int i = availIdx[1] % QUEUE;
        descriptor(1, i, gpa, len, 0);
        offer(1, i);
        signal(kick[1]);
    }

    /** Writes ring's available index directly (a hostile driver) and kicks. */
    void availIndex(int ring, int idx) {
        Le.u16(memory, avail(ring) + 2, idx);
        signal(kick[ring]);
    }

    private void descriptor(int ring, int i, long addr, int len, int flags) {
        long d = desc(ring) + 16L * i;
        Le.u64(memory, d, addr);
        Le.u32(memory, d + 8, len);
        Le.u16(memory, d + 12, flags);
        Le.u16(memory, d + 14, 0);
    }

    private void offer(int ring, int head) {
        Le.u16(memory, avail(ring) + 4 + 2L * (availIdx[ring] % QUEUE), head);
        availIdx[ring] = (availIdx[ring] + 1) & 0xffff;
        Le.u16(memory, avail(ring) + 2, availIdx[ring]);
    }

    void signal(EventFd e) {
        Le.u64(eight, 0, 1);
        Libc.write(e.fd(), eight, 0, 8);
    }

    /** Whether e was signalled since the last look (and clears it). */
    boolean signalled(EventFd e) {
        return Libc.read(e.fd(), eight, 0, 8) == 8;
    }

    /**
     * Waits past the deferred transmit interrupts' delay, then (up to 5 s) for the device's
     * descriptor fd to be readable, as its loop would, and pumps; fails if it never is.
     */
    void awaitDevice(int fd) {
        java.util.concurrent.locks.LockSupport.parkNanos(2 * VhostUserLink.TRANSMIT_INTERRUPT_DELAY_NANOS);
        long until = System.nanoTime() + 5_000_000_000L;
        try (Epoll e = new Epoll(1)) {
            e.add(fd, Epoll.IN);
            while (e.wait(10) == 0) {
                if (System.nanoTime() > until) throw new AssertionError("the device's descriptor never became readable");
            }
        }
        pump.run();
    }

    /**
     * Takes back the used buffers of transmit ring ring without an interrupt and asks for none for
     * them (used_event set to the used index), as Linux's driver does before each frame it sends.
     */
    void reclaimTransmitted(int ring) {
        Le.u16(memory, avail(ring) + 4 + 2L * QUEUE, usedIndex(ring));
    }

    int usedIndex(int ring) {
        return Le.u16(memory, used(ring) + 2);
    }

    /** As {@link #received(int)} from receive ring 0. */
    byte[] received() {
        return received(0);
    }

    /**
     * The next frame the backend put in receive ring ring, without its virtio-net header (whose
     * num_buffers must say 1 and the rest 0), or null when none is published.
     */
    byte[] received(int ring) {
        if (usedIndex(ring) == usedSeen[ring]) return null;
        long e = used(ring) + 4 + 8L * (usedSeen[ring] % QUEUE);
        usedSeen[ring]++;
        Le.u16(memory, avail(ring) + 4 + 2L * QUEUE, usedSeen[ring]); // used_event: interrupt me for the next one (EVENT_IDX)
        int head = Le.u32(memory, e), len = Le.u32(memory, e + 4);
        long at = buffers(ring) + (long) BUFFER * head;
        for (int b = 0; b < HEADER; b++) {
            int want = b == RxFrames.NUM_BUFFERS ? 1 : 0;
            if (memory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at + b) != want) throw new AssertionError("header byte " + b);
        }
        return memory.asSlice(at + HEADER, len - HEADER).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        Libc.close(socket);
        Libc.close(memoryFd);
        for (EventFd e : kick) e.close();
        for (EventFd e : call) e.close();
        for (EventFd e : err) e.close();
        arena.close();
    }
}
