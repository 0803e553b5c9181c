package io.jslirp.flow;

import io.jslirp.util.AddressBook;
import io.jslirp.util.Log;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/**
 * The one table of an instance's flows, every kind: the guest's TCP connections (and the SYNs of
 * forwarded clients waiting for the guest), UDP flows and pings, forwarded UDP clients, and the
 * spliced connections and datagram flows of pasta's loopback path. A flow enters with
 * {@link #add}, changes state only through {@link #transition} (logged with --debug) and leaves
 * when that makes it {@link State#CLOSED}. While it is in the table its guest-side addresses are
 * retained here, so no protocol keeps its own count of them. Flows through the stack are found
 * by their guest side ({@link #find}, allocation-free); the status report and the counters read
 * the table. Loop thread only.
 */
public final class Flows {
    private final AddressBook addresses;
    private final TupleIndex<Flow> index = new TupleIndex<>(256);
    private Flow[] slots = new Flow[64];
    /** Free slots below {@link #end}, a stack; slots from end on were never used. */
    private int[] free = new int[64];
    private int freeCount, end, size;
    private final int[] open = new int[Kind.values().length];
    private final long[] opened = new long[Kind.values().length];

    public Flows(AddressBook addresses) {
        this.addresses = addresses;
    }

    /** The handles the flows' addresses are. */
    public AddressBook addresses() {
        return addresses;
    }

    /** The flow of kind whose guest side is guest:guestPort and remote:remotePort, or null. */
    public Flow find(Kind kind, int guest, int guestPort, int remote, int remotePort) {
        return index.get(kind.lane(), guest, guestPort, remote, remotePort);
    }

    /**
     * Enters flow in state (OPENING or OPEN) at now, counted as opened, its guest-side addresses
     * retained; a flow of the stack's kinds is found by its guest side from now on, which no other
     * flow of its kind may have.
     */
    public void add(Flow flow, State state, long now) {
        if (flow.slot >= 0 || state == State.CLOSED) throw new IllegalStateException("cannot add " + describe(flow));
        int lane = flow.kind().lane();
        if (lane >= 0) {
            if (index.get(lane, flow.guestAddress, flow.guestPort, flow.remoteAddress, flow.remotePort) != null) {
                throw new IllegalStateException("already in the table: " + describe(flow));
            }
            index.put(lane, flow.guestAddress, flow.guestPort, flow.remoteAddress, flow.remotePort, flow);
        }
        place(flow);
        flow.openedAt = now;
        flow.state = state;
        retain(flow.guestAddress);
        retain(flow.remoteAddress);
        open[flow.kind().ordinal()]++;
        opened[flow.kind().ordinal()]++;
        if (Log.debugEnabled()) Log.debug(() -> describe(flow) + ": opened, " + state);
    }

    /**
     * by takes the place of flow (the same kind and guest side: a forwarded client's SYN the guest
     * answered becomes its connection), with its age and addresses, in state.
     */
    public void replace(Flow flow, Flow by, State state) {
        if (flow.slot < 0 || by.slot >= 0 || by.kind() != flow.kind() || by.guestAddress != flow.guestAddress
                || by.guestPort != flow.guestPort || by.remoteAddress != flow.remoteAddress || by.remotePort != flow.remotePort) {
            throw new IllegalStateException("cannot replace " + describe(flow) + " by " + describe(by));
        }
        int lane = flow.kind().lane();
        if (lane >= 0) index.put(lane, by.guestAddress, by.guestPort, by.remoteAddress, by.remotePort, by);
        by.slot = flow.slot;
        slots[flow.slot] = by;
        flow.slot = -1;
        by.openedAt = flow.openedAt;
        by.state = flow.state;
        flow.state = State.CLOSED;
        transition(by, state);
    }

    /** The one place a flow's state changes; CLOSED takes it out of the table and releases its addresses. */
    public void transition(Flow flow, State to) {
        State from = flow.state;
        if (from == to || from == State.CLOSED) return;
        flow.state = to;
        if (Log.debugEnabled()) Log.debug(() -> describe(flow) + ": " + from + " -> " + to);
        if (to != State.CLOSED) return;
        int lane = flow.kind().lane();
        if (lane >= 0) index.remove(lane, flow.guestAddress, flow.guestPort, flow.remoteAddress, flow.remotePort);
        slots[flow.slot] = null;
        if (freeCount == free.length) free = java.util.Arrays.copyOf(free, free.length * 2);
        free[freeCount++] = flow.slot;
        flow.slot = -1;
        size--;
        open[flow.kind().ordinal()]--;
        release(flow.guestAddress);
        release(flow.remoteAddress);
    }

    private void place(Flow flow) {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (end == slots.length) slots = java.util.Arrays.copyOf(slots, slots.length * 2);
            slot = end++;
        }
        slots[slot] = flow;
        flow.slot = slot;
        size++;
    }

    private void retain(int address) {
        if (address != AddressBook.NONE) addresses.retain(address);
    }

    private void release(int address) {
        if (address != AddressBook.NONE) addresses.release(address);
    }

    /** Flows in the table. */
    public int size() {
        return size;
    }

    /** Flows of kind in the table. */
    public int size(Kind kind) {
        return open[kind.ordinal()];
    }

    /** Flows of kind ever added (a forwarded SYN that became its connection counts once). */
    public long opened(Kind kind) {
        return opened[kind.ordinal()];
    }

    /** The flows of kind now, a copy (for closing them all: a flow leaves the table as it closes). */
    public List<Flow> all(Kind kind) {
        List<Flow> all = new ArrayList<>();
        for (int i = 0; i < end; i++) {
            Flow f = slots[i];
            if (f != null && f.kind() == kind) all.add(f);
        }
        return all;
    }

    /** A snapshot of every flow at now, in the table's order. */
    public void statuses(long now, Consumer<FlowStatus> sink) {
        for (int i = 0; i < end; i++) {
            Flow f = slots[i];
            if (f != null) sink.accept(status(f, now));
        }
    }

    private FlowStatus status(Flow f, long now) {
        Kind k = f.kind();
        return new FlowStatus(k.label(), k.protocol(), f.detail(), f.forwarded(), format(f.guestAddress), f.guestPort,
                format(f.remoteAddress), f.remotePort, f.hostAddress(addresses), f.hostPort(), f.fromGuest(), f.toGuest(),
                f.queuedToHost(), f.queuedToGuest(), now - f.openedAt);
    }

    /** The table's figures: flows opened and open now, by kind. */
    public void figures(ObjLongConsumer<String> sink) {
        sink.accept("tcp_connections", opened(Kind.TCP));
        sink.accept("udp_flows", opened(Kind.UDP));
        sink.accept("ping_flows", opened(Kind.PING));
        sink.accept("spliced_connections", opened(Kind.TCP_SPLICE));
        sink.accept("spliced_udp_flows", opened(Kind.UDP_SPLICE));
        sink.accept("open_tcp_connections", size(Kind.TCP));
        sink.accept("open_udp_flows", size(Kind.UDP));
        sink.accept("open_ping_flows", size(Kind.PING));
        sink.accept("open_spliced_connections", size(Kind.TCP_SPLICE));
        sink.accept("open_spliced_udp_flows", size(Kind.UDP_SPLICE));
    }

    private String format(int address) {
        return address == AddressBook.NONE ? "" : addresses.format(address);
    }

    /** The flow for logs: its kind and guest side. */
    public String describe(Flow f) {
        String ports = f.kind() == Kind.PING ? " id " + f.guestPort : ":" + f.guestPort;
        return (f.forwarded() ? "forwarded " : "") + f.kind().label() + " " + format(f.guestAddress) + ports + " -> "
                + format(f.remoteAddress) + (f.kind() == Kind.PING ? "" : ":" + f.remotePort);
    }
}
