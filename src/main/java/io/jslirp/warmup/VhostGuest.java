package io.jslirp.warmup;

import static io.jslirp.warmup.VhostFrontEnd.GPA;
import static io.jslirp.warmup.VhostFrontEnd.INDIRECT;
import static io.jslirp.warmup.VhostFrontEnd.INDIRECT_ENTRIES;
import static io.jslirp.warmup.VhostFrontEnd.QUEUE;
import static io.jslirp.warmup.VhostFrontEnd.RX;
import static io.jslirp.warmup.VhostFrontEnd.RX_BUFFER;
import static io.jslirp.warmup.VhostFrontEnd.RX_BUFFERS;
import static io.jslirp.warmup.VhostFrontEnd.TX;
import static io.jslirp.warmup.VhostFrontEnd.TX_AREA;
import static io.jslirp.warmup.VhostFrontEnd.TX_SIZE;
import static io.jslirp.warmup.VhostFrontEnd.avail;
import static io.jslirp.warmup.VhostFrontEnd.desc;
import static io.jslirp.warmup.VhostFrontEnd.used;

import io.jslirp.link.Link;
import io.jslirp.link.VhostUserLink;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.virtio.Le;
import io.jslirp.virtio.Virtqueue;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The warm-up guest through a {@link VhostUserLink}: its front-end ({@link VhostFrontEnd}) and a
 * virtio-net driver as Linux's is, in the warm-up's thread. Receive: mergeable buffers of
 * {@link VhostFrontEnd#RX_BUFFER} bytes, all posted, each posted again once its frame is read; a
 * frame over num_buffers of them is gathered and handed on (a large TCP segment with its checksum
 * left to the guest, GUEST_TSO: taken as Linux takes it, unchecked). Transmit: each frame behind its
 * virtio-net header, in a circular area: in one descriptor, or, for a TCP frame with data, as Linux
 * sends an skb with page fragments, an indirect table of the headers then the data in pieces of
 * {@link #FRAGMENT} bytes; a TCP frame's checksum left to the device
 * (NEEDS_CSUM), and one of more than a segment of data marked for cutting (GSO TCPV4, HOST_TSO4), as a
 * Linux guest sends an upload. Kicks and interrupts by event indices; one call descriptor wakes the guest for both rings.
 */
final class VhostGuest implements GuestLink {
    /** The virtio-net header (with num_buffers) before each frame. */
    static final int HEADER = 12;
    /** The virtio-net header's flag and GSO type a Linux guest's TCP upload is sent with. */
    private static final int NEEDS_CSUM = 1, GSO_TCPV4 = 1;
    /** A page fragment's bytes of data in a transmit chain. */
    static final int FRAGMENT = 4096;
    /** The largest frame, and the room one takes in the transmit area. */
    private static final int MAX_FRAME = Ethernet.HEADER_LENGTH + 65535;
    private static final long SLOT = (HEADER + MAX_FRAME + 63) & ~63L;
    /** Kept free for the guest's frames of control (ACKs, DHCP, ARP, SYN, FIN), which go out whatever the room. */
    private static final long RESERVE = 16 << 10;
    private static final int RESERVE_DESCRIPTORS = 16;

    private final VhostFrontEnd frontEnd;
    private final VhostUserLink link;
    private final MemorySegment memory;
    private final MemorySegment in = Arena.ofAuto().allocate(MAX_FRAME + RX_BUFFER, 64);
    private int rxAvail, rxSeen, rxKickedAt;
    private int txAvail, txSeen, txKickedAt;
    /** Where each transmit descriptor's frame begins in the area, and where the next frame goes. */
    private final long[] txStart = new long[QUEUE];
    private long head;
    private int gsoSize = Integer.MAX_VALUE;
    /** Frames of the guest that found no room (none when the reserve holds). */
    long dropped;

    private VhostGuest(VhostFrontEnd frontEnd, VhostUserLink link) {
        this.frontEnd = frontEnd;
        this.link = link;
        this.memory = frontEnd.memory;
        for (int i = 0; i < QUEUE; i++) offerReceive(i);
        publishReceive();
    }

    /**
     * A socket pair, the engine's {@link VhostUserLink} on one end and this guest's front-end on
     * the other, negotiated and both rings running; throws when any of it fails (what was made is released).
     */
    static VhostGuest open() {
        int[] pair = new int[2];
        int r = Sockets.unixStreamPair(pair);
        if (r < 0) throw new IllegalStateException("socketpair: " + Errno.describe(-r));
        VhostUserLink link = VhostUserLink.connected(pair[0]);
        VhostFrontEnd frontEnd = null;
        try {
            frontEnd = new VhostFrontEnd(pair[1]);
            MemorySegment scratch = Arena.ofAuto().allocate(MAX_FRAME, 64);
            frontEnd.negotiate(() -> link.receive(0, scratch));
            return new VhostGuest(frontEnd, link);
        } catch (RuntimeException | Error e) {
            if (frontEnd != null) frontEnd.close();
            else Libc.close(pair[1]);
            link.close();
            throw e;
        }
    }

    @Override
    public Link link() {
        return link;
    }

    /** Frames the engine's link read from the transmit ring (for the test). */
    long chainsRead() {
        return link.chains();
    }

    /** Chains the engine's link refused (for the test). */
    long badChains() {
        return link.badChains();
    }

    @Override
    public int fd() {
        return frontEnd.call.fd();
    }

    /** The call descriptor, while the guest reads or waits for room; never EPOLLOUT (an eventfd is always writable). */
    @Override
    public int events(boolean reading, boolean pending) {
        return reading || pending ? Epoll.IN : 0;
    }

    @Override
    public MemorySegment buffer() {
        return memory;
    }

    @Override
    public long nextFrame() {
        return TX_AREA + position() + HEADER;
    }

    /** Where the next frame goes in the area: at its head, or back at its start when a largest frame would not fit before its end. */
    private long position() {
        return head + SLOT > TX_SIZE ? 0 : head;
    }

    /** Bytes free in the area from at (a frame's start) up to the oldest frame the device has not used, or the area's end. */
    private long room(long at) {
        int inFlight = (txAvail - txSeen) & 0xffff;
        if (inFlight == 0) return TX_SIZE - at;
        long tail = txStart[txSeen % QUEUE];
        return at > tail ? TX_SIZE - at : tail - at;
    }

    @Override
    public long free() {
        reclaim();
        if (QUEUE - ((txAvail - txSeen) & 0xffff) <= RESERVE_DESCRIPTORS) return 0;
        return Math.max(0, room(position()) - HEADER - RESERVE);
    }

    @Override
    public int chunk(int segment) {
        gsoSize = segment;
        int most = 65535 - Ipv4.MIN_HEADER_LENGTH - 32; // the IP datagram's limit, with the timestamps option
        return Math.max(segment, most / segment * segment);
    }

    @Override
    public void append(FrameBuilder b) {
        long at = position();
        int length = b.writeTo(memory, TX_AREA + at + HEADER);
        if (HEADER + length > room(at) || ((txAvail - txSeen) & 0xffff) == QUEUE) {
            dropped++;
            return;
        }
        int headers = header(TX_AREA + at, length);
        int id = txAvail % QUEUE;
        txStart[id] = at;
        long d = desc(TX) + 16L * id;
        if (headers > 0 && length > headers) {
            long table = INDIRECT + 16L * INDIRECT_ENTRIES * id;
            int n = indirect(table, GPA + TX_AREA + at, headers, length);
            descriptor(d, GPA + table, 16 * n, Virtqueue.DESC_INDIRECT, 0);
        } else {
            descriptor(d, GPA + TX_AREA + at, HEADER + length, 0, 0);
        }
        Le.u16(memory, avail(TX) + 4 + 2L * (txAvail % QUEUE), id);
        txAvail = (txAvail + 1) & 0xffff;
        head = at + ((HEADER + length + 63) & ~63L);
    }

    /**
     * The indirect table at table for the frame of length bytes behind its virtio-net header at gpa:
     * the header and the frame's headers (bytes of them), then the data in {@link #FRAGMENT}-byte pieces. Its entries.
     */
    private int indirect(long table, long gpa, int headers, int length) {
        int n = 0;
        descriptor(table, gpa, HEADER + headers, Virtqueue.DESC_NEXT, 1);
        for (int off = headers; off < length; off += FRAGMENT) {
            n++;
            boolean last = off + FRAGMENT >= length;
            descriptor(table + 16L * n, gpa + HEADER + off, Math.min(FRAGMENT, length - off), last ? 0 : Virtqueue.DESC_NEXT, last ? 0 : n + 1);
        }
        return n + 1;
    }

    private void descriptor(long d, long gpa, int len, int flags, int next) {
        Le.u64(memory, d, gpa);
        Le.u32(memory, d + 8, len);
        Le.u16(memory, d + 12, flags);
        Le.u16(memory, d + 14, next);
    }

    /**
     * The virtio-net header of the frame of length bytes behind h: a TCP frame's checksum left to
     * the device, and its cutting when it holds more than a segment. The frame's headers' length for a TCP frame, else 0.
     */
    private int header(long h, int length) {
        memory.asSlice(h, HEADER).fill((byte) 0);
        long f = h + HEADER, ip = f + Ethernet.HEADER_LENGTH;
        if (Ethernet.type(memory, f) != Ethernet.TYPE_IPV4 || Ipv4.protocol(memory, ip) != Ipv4.PROTO_TCP) return 0;
        int ipHeader = Ipv4.headerLength(memory, ip);
        int tcpHeader = Tcp.headerLength(memory, ip + ipHeader);
        int headers = Ethernet.HEADER_LENGTH + ipHeader + tcpHeader;
        memory.set(ValueLayout.JAVA_BYTE, h, (byte) NEEDS_CSUM);
        Le.u16(memory, h + 6, Ethernet.HEADER_LENGTH + ipHeader); // csum_start
        Le.u16(memory, h + 8, 16);                                 // csum_offset: TCP's checksum
        if (length - headers > gsoSize) {
            memory.set(ValueLayout.JAVA_BYTE, h + 1, (byte) GSO_TCPV4);
            Le.u16(memory, h + 2, headers);
            Le.u16(memory, h + 4, gsoSize);
        }
        return headers;
    }

    /** Publishes the frames appended and kicks the transmit ring if the device asked (its avail_event passed); whether frames wait for room. */
    @Override
    public boolean flush() {
        reclaim();
        Le.u16(memory, avail(TX) + 2, txAvail);
        if (Virtqueue.needEvent(Le.u16(memory, used(TX) + 4 + 8L * QUEUE), txAvail, txKickedAt)) frontEnd.kick(TX);
        txKickedAt = txAvail;
        int inFlight = (txAvail - txSeen) & 0xffff;
        boolean pending = inFlight > 0 && free() < SLOT;
        // an interrupt when the device has used the frames: at once when room is wanted, else once most are used
        Le.u16(memory, avail(TX) + 4 + 2L * QUEUE, pending ? txSeen : txSeen + inFlight * 3 / 4);
        return pending;
    }

    /** Takes back the transmit descriptors the device used (in order: it reads the ring in turn). */
    private void reclaim() {
        txSeen = Le.u16(memory, used(TX) + 2);
        if (txSeen == txAvail) head = 0;
    }

    @Override
    public int read(Frames frames) {
        frontEnd.calls();
        int result = NOTHING;
        while (true) {
            int ready = (Le.u16(memory, used(RX) + 2) - rxSeen) & 0xffff;
            if (ready == 0) break;
            long e = used(RX) + 4 + 8L * (rxSeen % QUEUE);
            int id = Le.u32(memory, e);
            if (id < 0 || id >= QUEUE) return END;
            int count = Le.u16(memory, RX_BUFFERS + (long) RX_BUFFER * id + 10); // num_buffers
            if (count < 1 || count > QUEUE) return END;
            if (ready < count) break; // (the device publishes a frame's buffers together)
            int length = gather(count);
            if (length < 0) return END;
            boolean ack = frames.frame(in, 0, length);
            result = ack ? ACK_DUE : Math.max(result, READ);
        }
        Le.u16(memory, avail(RX) + 4 + 2L * QUEUE, rxSeen); // used_event: an interrupt for the next frame
        publishReceive();
        return result;
    }

    /** Copies the frame in the next count used receive buffers into {@link #in}, posting each buffer again: its length, or -1 for a bad element. */
    private int gather(int count) {
        int length = 0;
        for (int k = 0; k < count; k++) {
            long e = used(RX) + 4 + 8L * (rxSeen % QUEUE);
            int id = Le.u32(memory, e), len = Le.u32(memory, e + 4);
            int from = k == 0 ? HEADER : 0;
            if (id < 0 || id >= QUEUE || len < from || len > RX_BUFFER || length + len - from > in.byteSize()) return -1;
            MemorySegment.copy(memory, RX_BUFFERS + (long) RX_BUFFER * id + from, in, length, len - from);
            length += len - from;
            rxSeen = (rxSeen + 1) & 0xffff;
            offerReceive(id);
        }
        return length;
    }

    private void offerReceive(int id) {
        descriptor(desc(RX) + 16L * id, GPA + RX_BUFFERS + (long) RX_BUFFER * id, RX_BUFFER, Virtqueue.DESC_WRITE, 0);
        Le.u16(memory, avail(RX) + 4 + 2L * (rxAvail % QUEUE), id);
        rxAvail = (rxAvail + 1) & 0xffff;
    }

    /** Publishes the receive buffers posted, kicking if the device asked (it waits for buffers). */
    private void publishReceive() {
        Le.u16(memory, avail(RX) + 2, rxAvail);
        if (Virtqueue.needEvent(Le.u16(memory, used(RX) + 4 + 8L * QUEUE), rxAvail, rxKickedAt)) frontEnd.kick(RX);
        rxKickedAt = rxAvail;
    }

    @Override
    public void close() {
        frontEnd.close();
    }
}
