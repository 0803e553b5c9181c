package io.jslirp.wire;

/**
 * What a view of a transport's header read from the guest ({@link TcpSegment}, {@link UdpDatagram})
 * tells of the IP packet it came in: the version and the addresses, as the handles the stack holds
 * for the call. The IP input sets them once the header is read; the methods are final, so a call
 * through a view stays a direct one.
 */
public abstract sealed class Addressed permits TcpSegment, UdpDatagram {
    private IpVersion version = IpVersion.V4;
    private int source, destination;

    Addressed() {}

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
}
