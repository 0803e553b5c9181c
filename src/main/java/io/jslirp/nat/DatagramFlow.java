package io.jslirp.nat;

import io.jslirp.flow.Flow;
import io.jslirp.flow.Flows;
import io.jslirp.flow.Kind;
import io.jslirp.flow.State;
import io.jslirp.tcp.FlowAddresses;
import io.jslirp.loop.Handler;
import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.stack.GuestOutput;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;

import java.lang.foreign.MemorySegment;

/**
 * A guest flow carried by one connected datagram socket on the host (UDP, ping): the guest's
 * datagrams go out at the flush, many per system call ({@link DatagramBatch}); what comes on the
 * socket is received many at a time and copied into its family's frame toward the guest, a
 * budget per wakeup; an error the socket reports (the host's ICMP error for an earlier datagram)
 * is passed on; it closes after an idle timeout. The subclass says where a datagram goes in the
 * frame and what becomes of it.
 */
abstract class DatagramFlow extends Flow implements Handler {
    /** Datagrams read from one socket per wakeup before other work gets its turn. */
    private static final int READ_BUDGET = 64;

    final Family family;
    final int fd;
    private final Flows flows;
    private final Reactor loop;
    private final HostSockets sockets;
    private final DatagramBatch batch;
    private final long idleTimeoutNanos;
    private final Timer idle = new Timer(this::close);

    /**
     * What every datagram flow of one NAT shares: the NAT's context and the batch the datagrams go
     * out and come in by.
     */
    record Shared(NatContext context, DatagramBatch batch) {}

    /**
     * A flow of kind and family over the host socket fd, its guest side as the guest's
     * addresses give it (handles; a ping's ports are its identifier and 0). Its owner adds it to
     * the table.
     */
    DatagramFlow(Shared shared, Kind kind, Family family, int fd, FlowAddresses addresses) {
        super(kind, false, addresses.guestAddress(), addresses.guestPort(), addresses.remoteAddress(), addresses.remotePort());
        NatContext c = shared.context();
        this.loop = c.loop();
        this.sockets = c.sockets();
        this.flows = c.flows();
        this.batch = shared.batch();
        this.family = family;
        this.fd = fd;
        this.idleTimeoutNanos = c.idleTimeoutNanos();
    }

    /** Traffic: the idle timeout starts over. */
    final void touch() {
        loop.schedule(idle, loop.clock().now() + idleTimeoutNanos);
    }

    /** Queues the guest's datagram of len bytes at off for the socket, sent at the flush (a full socket buffer drops it, as a router would). */
    final void send(MemorySegment f, long off, int len) {
        batch.add(this, f, off, len);
        touch();
    }

    /** The socket refused a datagram of the flow (errno positive): a full buffer drops it, an error is the host's ICMP for an earlier one. */
    final void sendFailed(int errno) {
        if (errno != Errno.EAGAIN) reportError(errno);
    }

    @Override
    public final void onEvents(int events) {
        GuestOutput out = family.output();
        int room = room(out);
        int slots = batch.slots(room);
        for (int taken = 0; taken < READ_BUDGET; ) {
            int n = batch.receive(fd, room);
            if (n == -Errno.EAGAIN) return;
            if (n < 0) {
                reportError(-n);
                taken++;
                continue;
            }
            boolean coalesce = n > 1 && coalesces(out);
            for (int i = 0; i < n; ) {
                int run = coalesce ? run(out, i, n, room) : 1;
                if (run > 1 && sendRun(out, i, run)) {
                    touch();
                    i += run;
                    continue;
                }
                for (int end = i + run; i < end; i++) {
                    batch.copy(i, out.frame(), offset(out));
                    if (received(out, batch.length(i))) touch();
                }
            }
            if (n < slots) return; // the socket had no more; a later datagram signals again
            taken += n;
        }
        loop.runAgain();
    }

    /**
     * How many received datagrams from the i-th on (of n) go to the guest in one frame it cuts:
     * of one size that fits the MTU, the last perhaps shorter, within room in all.
     */
    private int run(GuestOutput out, int i, int n, int room) {
        int size = batch.length(i);
        if (size == 0 || size > out.unfragmentedUdpPayload()) return 1;
        int total = size, j = i + 1;
        while (j < n) {
            int len = batch.length(j);
            if (len == 0 || len > size || total + len > room) break;
            total += len;
            j++;
            if (len < size) break;
        }
        return j - i;
    }

    /** Sends run datagrams from the i-th on in one frame; false when the link did not take it (nothing was sent). */
    private boolean sendRun(GuestOutput out, int i, int run) {
        long at = offset(out);
        int total = 0;
        for (int k = i; k < i + run; k++) {
            batch.copy(k, out.frame(), at + total);
            total += batch.length(k);
        }
        return receivedSegments(out, total, batch.length(i));
    }

    /** Whether datagrams from the socket may reach the guest several to a frame ({@link #receivedSegments}). */
    boolean coalesces(GuestOutput out) {
        return false;
    }

    /**
     * total bytes at {@link #offset} are datagrams of segmentSize bytes (the last perhaps shorter)
     * from the socket: sends them on to the guest in one frame; false when that could not be done.
     */
    boolean receivedSegments(GuestOutput out, int total, int segmentSize) {
        return false;
    }

    /** Where in out's frame a datagram from the socket is read to, and how long it may be. */
    abstract long offset(GuestOutput out);

    abstract int room(GuestOutput out);

    /** n bytes of the guest's datagram went out on the socket. */
    final void sent(int n) {
        fromGuest += n;
    }

    /** n bytes came from the socket at {@link #offset}: sends them on to the guest; false when they were not for it. */
    abstract boolean received(GuestOutput out, int n);

    /** The host's error (a positive errno) for an earlier datagram of the flow. */
    abstract void reportError(int errno);

    final void close() {
        if (batch.pending()) batch.flush(); // the guest's datagrams go before the descriptor does
        loop.unregister(fd);
        loop.schedule(idle, Long.MAX_VALUE);
        sockets.close(fd);
        flows.transition(this, State.CLOSED);
    }
}
