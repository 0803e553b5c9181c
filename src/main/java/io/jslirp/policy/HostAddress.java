package io.jslirp.policy;

import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

/**
 * An address of the host (a forward's listening address, the outbound address), either version:
 * its two halves in network order, an IPv4 address in its IPv4-mapped form ::ffff:a.b.c.d, as
 * {@code util.AddressBook} and {@code sys.HostSockets} take them.
 */
public record HostAddress(long hi, long lo) {
    public static final HostAddress LOOPBACK = new HostAddress(0, 1);
    /** The high 32 bits of the low half of an IPv4-mapped address. */
    private static final long V4_MAPPED = 0xffffL << 32;

    /** The IPv4 address (host order) in its mapped form. */
    public static HostAddress ipv4(int address) {
        return new HostAddress(0, V4_MAPPED | (address & 0xffffffffL));
    }

    /** Parses the text form of an IPv6 address; IllegalArgumentException when it is not one. */
    public static HostAddress parse(String text) {
        long[] a = Ipv6.parse(text);
        return new HostAddress(a[0], a[1]);
    }

    public boolean isIpv4() {
        return hi == 0 && (lo & -1L << 32) == V4_MAPPED;
    }

    /** Dotted IPv4, or IPv6 in brackets. */
    @Override
    public String toString() {
        return isIpv4() ? Ipv4.format((int) lo) : "[" + Ipv6.format(hi, lo) + "]";
    }
}
