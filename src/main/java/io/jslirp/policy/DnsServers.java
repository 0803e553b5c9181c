package io.jslirp.policy;

import java.util.List;

/**
 * Where DNS sent to each IP version's DNS address goes: one {@link Nameservers} for both (resolv.conf's
 * list, jslirp's network), or one per version (pasta's model: each DNS address asks its own
 * version's host nameserver first). Null stands for --disable-dns wherever one is taken.
 */
public final class DnsServers {
    private final Nameservers ipv4, ipv6;

    private DnsServers(Nameservers ipv4, Nameservers ipv6) {
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
    }

    /** The nameservers of both versions (null: DNS disabled, and null is returned), or of IPv4 with ipv6's for IPv6 (null: the same). */
    public static DnsServers of(List<Nameserver> both, List<Nameserver> ipv6) {
        if (both == null) return null;
        Nameservers four = new Nameservers(both);
        return new DnsServers(four, ipv6 == null ? four : new Nameservers(ipv6));
    }

    /** Those of one version. */
    public Nameservers of(boolean v6) {
        return v6 ? ipv6 : ipv4;
    }
}
