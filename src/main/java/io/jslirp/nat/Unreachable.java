package io.jslirp.nat;

import io.jslirp.sys.Errno;
import io.jslirp.wire.Icmpv4;

/** What a router tells the guest when the host socket of its flow fails: one mapping for TCP and UDP. */
public final class Unreachable {
    private Unreachable() {}

    /**
     * The ICMP destination-unreachable code for a host socket error, or -1 when none fits (for
     * TCP the guest then gets a RST). A refused port is ICMP only for UDP: TCP says it with a RST.
     */
    public static int code(int errno, boolean udp) {
        return switch (errno) {
            case Errno.ECONNREFUSED -> udp ? Icmpv4.CODE_PORT_UNREACHABLE : -1;
            case Errno.ENETUNREACH -> Icmpv4.CODE_NET_UNREACHABLE;
            case Errno.EHOSTUNREACH, Errno.ETIMEDOUT -> Icmpv4.CODE_HOST_UNREACHABLE;
            case Errno.EACCES, Errno.EPERM -> Icmpv4.CODE_ADMIN_PROHIBITED;
            default -> -1;
        };
    }
}
