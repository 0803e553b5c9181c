package io.jslirp.policy;

import io.jslirp.wire.Ipv6;

/** An IPv6 address of the host (a forward's listening address, the outbound address), its two halves in network order. */
public record HostAddress6(long hi, long lo) {
    public static final HostAddress6 LOOPBACK = new HostAddress6(0, 1);

    /** Parses the text form; IllegalArgumentException when it is not an IPv6 address. */
    public static HostAddress6 parse(String text) {
        long[] a = Ipv6.parse(text);
        return new HostAddress6(a[0], a[1]);
    }

    @Override
    public String toString() {
        return "[" + Ipv6.format(hi, lo) + "]";
    }
}
