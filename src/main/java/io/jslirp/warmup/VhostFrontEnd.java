package io.jslirp.warmup;

import io.jslirp.sys.Errno;
import io.jslirp.sys.EventFd;
import io.jslirp.sys.FdMessages;
import io.jslirp.sys.Libc;
import io.jslirp.sys.MemFd;
import io.jslirp.sys.SharedMapping;
import io.jslirp.vhostuser.Encoder;
import io.jslirp.vhostuser.Features;
import io.jslirp.vhostuser.Message;
import io.jslirp.vhostuser.Request;
import io.jslirp.virtio.Le;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The warm-up guest's vhost-user front-end, as QEMU is a VM's: guest memory of its own (a memfd,
 * mapped here and given to the back-end), one queue pair laid out in it, kick and call eventfds,
 * and the negotiation QEMU holds for a Linux guest's virtio-net driver (the features that driver
 * takes, REPLY_ACK). The back-end answers on the same thread: each wait for a reply runs a pump
 * (the engine's link reading its socket).
 *
 * <p>Layout (offsets in the memory): ring r's descriptor table at 0x1000 + 0x4000 r, its available
 * ring 0x1000 above, its used ring 0x2000 above; the receive buffers from {@link #RX_BUFFERS},
 * the transmit area from {@link #TX_AREA}, the transmit descriptors' indirect tables from {@link #INDIRECT}.
 */
final class VhostFrontEnd implements AutoCloseable {
    static final long GPA = 0x4000_0000L;
    static final int QUEUE = 256, RX = 0, TX = 1;
    static final int RX_BUFFER = 4096;
    static final long RX_BUFFERS = 0x10000, TX_AREA = RX_BUFFERS + (long) QUEUE * RX_BUFFER, TX_SIZE = 4 << 20;
    /** Per transmit descriptor, an indirect table of up to {@link #INDIRECT_ENTRIES} entries. */
    static final int INDIRECT_ENTRIES = 32;
    static final long INDIRECT = TX_AREA + TX_SIZE, SIZE = INDIRECT + 16L * INDIRECT_ENTRIES * QUEUE;
    /** The low region's size (guest addresses from 0): memory after {@link #SIZE}, which nothing else uses. */
    static final long LOW_SIZE = 0xa0000;
    /** What a Linux guest's virtio-net driver takes of what QEMU passes on: checksums and TCP cutting both ways, mergeable buffers, event indices, indirect tables. */
    static final long FEATURES = Features.bit(Features.VERSION_1) | Features.bit(Features.NET_MRG_RXBUF)
            | Features.bit(Features.RING_EVENT_IDX) | Features.bit(Features.RING_INDIRECT_DESC) | Features.bit(Features.PROTOCOL_FEATURES)
            | Features.bit(Features.NET_GUEST_CSUM) | Features.bit(Features.NET_GUEST_TSO4) | Features.bit(Features.NET_GUEST_TSO6)
            | Features.bit(Features.NET_CSUM) | Features.bit(Features.NET_HOST_TSO4) | Features.bit(Features.NET_HOST_TSO6);
    private static final int NEED_REPLY = Message.FLAG_NEED_REPLY;
    /** Pumps at most per reply: the back-end answers in the first. */
    private static final int PATIENCE = 1000;

    private final int socket;
    private final int memoryFd;
    private final SharedMapping mapping;
    final MemorySegment memory;
    /** The rings' kicks; one call descriptor for both (as one interrupt line would be). */
    final EventFd[] kick = {new EventFd(), new EventFd()};
    final EventFd call = new EventFd();
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment out = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final MemorySegment in = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD, 8);
    private final FdMessages io = new FdMessages();

    /** A front-end on the connected socket (its own from now on), with memory of {@link #SIZE} bytes; throws on a failing call. */
    VhostFrontEnd(int socket) {
        this.socket = socket;
        int fd = -1;
        SharedMapping m = null;
        try {
            fd = MemFd.create("jslirp-warm-up", SIZE + LOW_SIZE);
            m = SharedMapping.map(fd, 0, SIZE + LOW_SIZE);
        } catch (RuntimeException e) {
            if (fd >= 0) Libc.close(fd);
            closeDescriptors();
            throw e;
        }
        this.memoryFd = fd;
        this.mapping = m;
        this.memory = m.segment();
    }

    static long desc(int ring) {
        return 0x1000 + 0x4000L * ring;
    }

    static long avail(int ring) {
        return desc(ring) + 0x1000;
    }

    static long used(int ring) {
        return desc(ring) + 0x2000;
    }

    /**
     * Negotiates as QEMU does for a Linux guest and starts both rings (their indices at 0); pump
     * lets the back-end read what was sent. Throws IllegalStateException when the back-end refuses.
     */
    void negotiate(Runnable pump) {
        send(Encoder.empty(out, Request.GET_FEATURES, 0));
        long offered = reply(Request.GET_FEATURES, pump);
        if ((offered & FEATURES) != FEATURES) throw new IllegalStateException("features offered: 0x" + Long.toHexString(offered));
        send(Encoder.u64(out, Request.SET_FEATURES, 0, FEATURES));
        send(Encoder.empty(out, Request.GET_PROTOCOL_FEATURES, 0));
        long protocol = reply(Request.GET_PROTOCOL_FEATURES, pump);
        if ((protocol & Features.bit(Features.PROTOCOL_REPLY_ACK)) == 0) throw new IllegalStateException("no REPLY_ACK");
        send(Encoder.u64(out, Request.SET_PROTOCOL_FEATURES, 0, Features.bit(Features.PROTOCOL_REPLY_ACK)));
        acked(Request.SET_OWNER, Encoder.empty(out, Request.SET_OWNER, NEED_REPLY), pump);
        long uva = memory.address();
        // Two regions, as QEMU gives a VM's RAM: the 640 KiB below the legacy VGA hole first, then the
        // rest. Every buffer is in the second, as nearly all of a VM's are, so the back-end's lookups
        // pass the first region by here as they do for a VM (one region only, and C2 compiled that lookup
        // with no way past it: the VM's first frames were a trap in the rings' compiled code).
        acked(Request.SET_MEM_TABLE, Encoder.memoryTable(out, NEED_REPLY, new long[] {0, LOW_SIZE, uva + SIZE, SIZE},
                new long[] {GPA, SIZE, uva, 0}), pump, memoryFd, memoryFd);
        for (int r = RX; r <= TX; r++) {
            acked(Request.SET_VRING_NUM, Encoder.state(out, Request.SET_VRING_NUM, NEED_REPLY, r, QUEUE), pump);
            acked(Request.SET_VRING_BASE, Encoder.state(out, Request.SET_VRING_BASE, NEED_REPLY, r, 0), pump);
            acked(Request.SET_VRING_ADDR, Encoder.addr(out, NEED_REPLY, r, uva + desc(r), uva + used(r), uva + avail(r)), pump);
            acked(Request.SET_VRING_KICK, Encoder.u64(out, Request.SET_VRING_KICK, NEED_REPLY, r), pump, kick[r].fd());
            acked(Request.SET_VRING_CALL, Encoder.u64(out, Request.SET_VRING_CALL, NEED_REPLY, r), pump, call.fd());
        }
        for (int r = RX; r <= TX; r++) {
            acked(Request.SET_VRING_ENABLE, Encoder.state(out, Request.SET_VRING_ENABLE, NEED_REPLY, r, 1), pump);
        }
    }

    private void send(int length, int... fds) {
        int n = io.send(socket, out, 0, length, fds);
        if (n != length) throw new IllegalStateException("vhost-user request not sent: " + (n < 0 ? Errno.describe(-n) : n + " bytes"));
    }

    private void acked(Request r, int length, Runnable pump, int... fds) {
        send(length, fds);
        long ack = reply(r, pump);
        if (ack != 0) throw new IllegalStateException(r + " refused");
    }

    /** The u64 payload of the reply to r, read once the back-end (pumped) wrote it. */
    private long reply(Request r, Runnable pump) {
        int have = 0, want = Message.HEADER + 8;
        for (int tries = 0; tries < PATIENCE; tries++) {
            int n = io.receive(socket, in, have, want - have);
            for (int i = 0; i < io.fdCount(); i++) Libc.close(io.fd(i));
            if (n == 0 || (n < 0 && n != -Errno.EAGAIN && n != -Errno.EINTR)) break;
            if (n > 0) have += n;
            if (have == want) {
                if (Le.u32(in, 0) != r.code() || Le.u32(in, 8) != 8) break;
                return Le.u64(in, Message.HEADER);
            }
            if (n < 0) pump.run();
        }
        throw new IllegalStateException("no reply to " + r);
    }

    /** Wakes the back-end for ring's new buffers. */
    void kick(int ring) {
        kick[ring].signal();
    }

    /** Clears the call descriptor (it was readable, or not). */
    void calls() {
        call.drain();
    }

    @Override
    public void close() {
        mapping.unmap();
        Libc.close(memoryFd);
        closeDescriptors();
    }

    private void closeDescriptors() {
        Libc.close(socket);
        for (EventFd e : kick) e.close();
        call.close();
    }
}
