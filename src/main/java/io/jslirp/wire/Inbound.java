package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * What every view of a transport message read from the guest ({@link TcpSegment},
 * {@link UdpDatagram}, {@link IcmpEcho}) tells: the IP version and the addresses, as the handles
 * the stack holds for the call (set by the IP input once the header is read), and where the
 * message, header and payload, lies. The methods are final, so a call through a view stays a
 * direct one.
 */
public abstract sealed class Inbound permits TcpSegment, UdpDatagram, IcmpEcho {
    private IpVersion version = IpVersion.V4;
    private int source, destination;
    private MemorySegment frame;
    private long offset;
    private int length;

    Inbound() {}

    /** Where the message lies: length bytes at off of s. */
    final void place(MemorySegment s, long off, int len) {
        frame = s;
        offset = off;
        length = len;
    }

    /** Sets the IP version and the address handles (the IP input's part). */
    public final void addresses(IpVersion version, int source, int destination) {
        this.version = version;
        this.source = source;
        this.destination = destination;
    }

    public final IpVersion version() {
        return version;
    }

    /** The sender's address handle (the guest's). */
    public final int source() {
        return source;
    }

    /** The destination's address handle ({@code util.AddressBook#NONE} where none is held). */
    public final int destination() {
        return destination;
    }

    /** The frame holding the message. */
    public final MemorySegment frame() {
        return frame;
    }

    /** Where the message's header starts in {@link #frame}. */
    public final long offset() {
        return offset;
    }

    /** The message's length: header and payload. */
    public final int length() {
        return length;
    }
}
