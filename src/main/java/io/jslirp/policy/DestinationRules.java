package io.jslirp.policy;

import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

import java.util.List;

/**
 * {@code --allow} and {@code --deny}: which host destinations the guest may reach. A destination
 * in a denied network is refused; when any network is allowed, so is every destination outside
 * them. Checked once per new flow, so a linear scan is enough.
 *
 * <p>Both IP versions are held and checked alike, as 128-bit addresses: an IPv4 network is its
 * IPv4-mapped form ({@code 192.0.2.0/24} is {@code ::ffff:192.0.2.0/120}), so there is one match
 * for both. A network covers destinations of the version it was written in only: {@code ::/0} is
 * every IPv6 destination and no IPv4 one.
 */
public final class DestinationRules {
    public static final DestinationRules NONE = new DestinationRules(List.of(), List.of());
    /** The high 32 bits of the low half of an IPv4-mapped address, ::ffff:a.b.c.d. */
    private static final long V4_MAPPED = 0xffffL << 32;
    /** What an IPv4 prefix length adds up to in its mapped form. */
    private static final int V4_MAPPED_PREFIX = 96;

    /** A network: the first prefixLength bits (0-128) of hi:lo, the rest zero; IPv4's in its mapped form. */
    public record Network(long hi, long lo, int prefixLength, boolean ipv4) {
        public Network {
            if (prefixLength < 0 || prefixLength > 128) throw new IllegalArgumentException("prefix length " + prefixLength);
            hi &= mask(prefixLength);
            lo &= mask(prefixLength - 64);
        }

        /** An IPv4 network (address in host order, prefix length 0-32), in its IPv4-mapped form. */
        public static Network ipv4(int address, int prefixLength) {
            return new Network(0, mapped(address), V4_MAPPED_PREFIX + prefixLength, true);
        }

        /**
         * Parses A.B.C.D/N (N 0-32), an IPv6 network ADDR/N (N 0-128), or a single address (/32,
         * /128); throws IllegalArgumentException naming the bad text.
         */
        public static Network parse(String text) {
            boolean ipv6 = text.contains(":");
            int max = ipv6 ? 128 : 32;
            int slash = text.indexOf('/');
            int prefix = max;
            if (slash >= 0) {
                String p = text.substring(slash + 1);
                if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(p) > max) {
                    throw new IllegalArgumentException(ipv6 ? "not an IPv6 network (ADDR/0-128): " + text
                            : "not an IPv4 network (A.B.C.D/0-32): " + text);
                }
                prefix = Integer.parseInt(p);
            }
            String address = slash >= 0 ? text.substring(0, slash) : text;
            if (!ipv6) return ipv4(Ipv4.parse(address), prefix);
            // only hex digits, colons and dots, not first a dot: no zone, and nothing the JDK would look up as a host name
            if (address.startsWith(".") || !address.chars().allMatch(c -> "0123456789abcdefABCDEF:.".indexOf(c) >= 0)) {
                throw new IllegalArgumentException("not an IPv6 address: " + address);
            }
            long[] a = Ipv6.parse(address);
            return new Network(a[0], a[1], prefix, false);
        }

        boolean contains(long hi, long lo) {
            return isIpv4(hi, lo) == ipv4 && (hi & mask(prefixLength)) == this.hi && (lo & mask(prefixLength - 64)) == this.lo;
        }

        /** The first bits of 64 (bits ≤ 0: none, ≥ 64: all) set. */
        private static long mask(int bits) {
            return bits <= 0 ? 0 : bits >= 64 ? -1L : -1L << (64 - bits);
        }

        /** IPv4 networks as they were written, A.B.C.D/N. */
        @Override
        public String toString() {
            if (ipv4) {
                return Ipv4.format((int) lo) + "/" + (prefixLength - V4_MAPPED_PREFIX);
            }
            return Ipv6.format(hi, lo) + "/" + prefixLength;
        }
    }

    private final Network[] allowed, denied;

    public DestinationRules(List<Network> allowed, List<Network> denied) {
        this.allowed = allowed.toArray(Network[]::new);
        this.denied = denied.toArray(Network[]::new);
    }

    /** Whether the guest may reach host destination address (IPv4, host order). */
    public boolean permits(int address) {
        return permits(0, mapped(address));
    }

    /** Whether the guest may reach host destination hi:lo (IPv6, or IPv4-mapped for IPv4). */
    public boolean permits(long hi, long lo) {
        for (Network n : denied) if (n.contains(hi, lo)) return false;
        if (allowed.length == 0) return true;
        for (Network n : allowed) if (n.contains(hi, lo)) return true;
        return false;
    }

    /** Whether hi:lo is an IPv4 address in its mapped form. */
    private static boolean isIpv4(long hi, long lo) {
        return hi == 0 && (lo & -1L << 32) == V4_MAPPED;
    }

    /** The low half of ::ffff:address. */
    private static long mapped(int address) {
        return V4_MAPPED | (address & 0xffffffffL);
    }
}
