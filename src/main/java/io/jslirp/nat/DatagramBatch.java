package io.jslirp.nat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.Libc;
import io.jslirp.sys.MessageVector;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Datagrams between a NAT's flows and their host sockets, many per system call. The guest's
 * datagrams of one loop iteration wait here, copied (the frames they came in are reused), and go
 * at the flush: each run of one flow's datagrams in one sendmmsg. A readable socket's datagrams
 * come in one recvmmsg, each into room for the largest datagram the guest can be sent. Its two
 * areas are mapped at first use and become resident only where datagrams were written: small
 * datagrams cost a page each, and a NAT that carries nothing costs nothing.
 */
final class DatagramBatch {
    /** Datagrams per system call. */
    static final int MESSAGES = 64;
    /** Bytes toward the host: 64 datagrams of up to 8 KiB; fewer larger ones. */
    private static final int OUT_AREA = 512 << 10;
    /** Bytes from the host: 16 datagrams of the largest size (64 KiB), 64 of up to 16 KiB. */
    private static final int IN_AREA = 1 << 20;

    private final HostSockets sockets;
    private MemorySegment outArea, inArea;
    private MessageVector outgoing, incoming;
    private final DatagramFlow[] senders = new DatagramFlow[MESSAGES];
    private int count, used;
    /** The room each received datagram has (the most the guest's frame takes), and the messages of that size the area holds. */
    private int slotSize, slots;

    DatagramBatch(HostSockets sockets) {
        this.sockets = sockets;
    }

    /** Queues flow's datagram of len bytes at off in f for the flush (sending what waits first when the batch is full). */
    void add(DatagramFlow flow, MemorySegment f, long off, int len) {
        if (outArea == null) {
            outArea = Libc.mapAnonymous(OUT_AREA);
            outgoing = new MessageVector(MESSAGES);
        }
        if (len > OUT_AREA) {
            flow.sendFailed(Errno.EMSGSIZE);
            return;
        }
        if (count == MESSAGES || used + len > OUT_AREA) flush();
        MemorySegment.copy(f, off, outArea, used, len);
        outgoing.set(count, outArea, used, len);
        senders[count++] = flow;
        used += len;
    }

    /** Whether datagrams wait to be sent. */
    boolean pending() {
        return count > 0;
    }

    /** Sends what waits, each run of one flow's datagrams in one sendmmsg; one that fails is dropped, as a router would. */
    void flush() {
        int i = 0;
        while (i < count) {
            DatagramFlow flow = senders[i];
            int end = i + 1;
            while (end < count && senders[end] == flow) end++;
            while (i < end) {
                int r = sockets.sendMany(flow.fd, outgoing, i, end - i);
                if (r <= 0) {
                    flow.sendFailed(r < 0 ? -r : Errno.EAGAIN);
                    i++;
                    continue;
                }
                for (int k = i; k < i + r; k++) flow.sent(outgoing.length(k));
                i += r;
            }
        }
        Arrays.fill(senders, 0, count, null);
        count = 0;
        used = 0;
    }

    /**
     * Receives up to {@link #slots(int)} datagrams of up to room bytes each from fd: how many
     * came (see {@link #length} and {@link #copy}), or -errno (EAGAIN: none waits).
     */
    int receive(int fd, int room) {
        int n = slots(room);
        return sockets.receiveMany(fd, incoming, n);
    }

    /** How many datagrams of up to room bytes one {@link #receive} takes. */
    int slots(int room) {
        if (room != slotSize || incoming == null) {
            if (inArea == null) {
                inArea = Libc.mapAnonymous(IN_AREA);
                incoming = new MessageVector(MESSAGES);
            }
            slotSize = Math.min(Math.max(room, 1), IN_AREA);
            slots = Math.min(Math.max(IN_AREA / slotSize, 1), MESSAGES);
            for (int i = 0; i < slots; i++) incoming.set(i, inArea, (long) i * slotSize, slotSize);
        }
        return slots;
    }

    /** Bytes of the i-th datagram the last receive took. */
    int length(int i) {
        return incoming.length(i);
    }

    /** Copies the i-th datagram the last receive took to offset of dst. */
    void copy(int i, MemorySegment dst, long offset) {
        MemorySegment.copy(inArea, (long) i * slotSize, dst, offset, incoming.length(i));
    }
}
