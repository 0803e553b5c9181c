package io.jslirp.policy;

/**
 * Where a forwarded port's host client appears to come from in the guest: the gateway, or with
 * {@code --preserve-source} the client's own address where the guest can answer it. One per IP
 * version ({@link Ipv4ForwardSource}, {@link Ipv6ForwardSource}).
 */
public interface ForwardSource {
    /** The address the guest sees for a client at clientAddress (an address of the family: for IPv6 a handle). */
    int of(int clientAddress);
}
