package io.jslirp.flow;

import io.jslirp.util.AddressBook;

/**
 * One flow of the table: its {@link Kind}, whether a host client opened it (a forwarded port),
 * its {@link State}, and its two sides. The guest side is what the guest's packets carry: the
 * guest's end and the end it talks to (address handles the table retains while the flow is in
 * it, and ports); the host side is the host socket's peer (a handle its kind keeps alive, and a
 * port; a kind whose peer is no handle tells it as text). For a spliced flow, which never reaches
 * the guest's stack, the guest side is the client's end and the target's, and the host side the
 * target. Subclasses add what their protocol needs, and count the bytes each way here.
 */
public abstract class Flow {
    private final Kind kind;
    private final boolean forwarded;
    /** The guest's end and the end it talks to: address handles, and ports (a ping's: identifier, 0). */
    protected final int guestAddress, guestPort, remoteAddress, remotePort;
    /** The host socket's peer: a handle (NONE where the kind tells it as text), and its port. */
    protected int hostAddress = AddressBook.NONE, hostPort;
    /** Payload bytes from the guest's side that went out on the host side, and back. */
    protected long fromGuest, toGuest;
    State state = State.OPENING;
    /** Its place in the table's slots, -1 when not in the table. */
    int slot = -1;
    long openedAt;

    protected Flow(Kind kind, boolean forwarded, int guestAddress, int guestPort, int remoteAddress, int remotePort) {
        this.kind = kind;
        this.forwarded = forwarded;
        this.guestAddress = guestAddress;
        this.guestPort = guestPort;
        this.remoteAddress = remoteAddress;
        this.remotePort = remotePort;
    }

    public final Kind kind() {
        return kind;
    }

    /** Whether a host client opened it through a forwarded port. */
    public final boolean forwarded() {
        return forwarded;
    }

    public final State state() {
        return state;
    }

    /** When it entered the table, on the loop's clock. */
    public final long openedAt() {
        return openedAt;
    }

    public final int guestAddress() {
        return guestAddress;
    }

    public final int guestPort() {
        return guestPort;
    }

    public final int remoteAddress() {
        return remoteAddress;
    }

    public final int remotePort() {
        return remotePort;
    }

    /** The state the status report shows: by default the table's, in lower case; TCP shows its connection's. */
    public String detail() {
        return state.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The host socket's peer as text (IPv6 in brackets). */
    public String hostAddress(AddressBook addresses) {
        return hostAddress == AddressBook.NONE ? "" : addresses.format(hostAddress);
    }

    public final int hostPort() {
        return hostPort;
    }

    /** n payload bytes from the guest's side went out on the host side. */
    public final void carriedFromGuest(long n) {
        fromGuest += n;
    }

    /** n payload bytes from the host side went toward the guest's. */
    public final void carriedToGuest(long n) {
        toGuest += n;
    }

    /** Payload bytes from the guest's side that went out on the host side. */
    public final long fromGuest() {
        return fromGuest;
    }

    /** Payload bytes from the host side toward the guest's. */
    public long toGuest() {
        return toGuest;
    }

    /** Bytes from the guest not yet acknowledged by the host peer (held, or in the socket's queue). */
    public long queuedToHost() {
        return 0;
    }

    /** Bytes from the host peer the guest has not acknowledged yet. */
    public long queuedToGuest() {
        return 0;
    }
}
