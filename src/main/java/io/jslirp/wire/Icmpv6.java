package io.jslirp.wire;

/**
 * ICMPv6's numbers (RFC 4443); the header is {@link Icmp}'s, its checksum covering the IPv6
 * pseudo-header too. Neighbor Discovery messages are in {@link Ndp}.
 */
public final class Icmpv6 {
    public static final int HEADER_LENGTH = Icmp.HEADER_LENGTH;
    public static final int DEST_UNREACHABLE = 1, PACKET_TOO_BIG = 2, TIME_EXCEEDED = 3, PARAMETER_PROBLEM = 4;
    public static final int ECHO_REQUEST = 128, ECHO_REPLY = 129;
    public static final int CODE_NO_ROUTE = 0, CODE_ADMIN_PROHIBITED = 1, CODE_ADDRESS_UNREACHABLE = 3, CODE_PORT_UNREACHABLE = 4;
    /** An error message quotes as much of the invoking packet as keeps it within IPv6's minimum MTU (RFC 4443 section 2.4). */
    public static final int MAX_ERROR_LENGTH = 1280 - Ipv6.HEADER_LENGTH;

    private Icmpv6() {}

    /** Whether type is an error message (types below 128), which no error may answer (RFC 4443 section 2.4). */
    public static boolean isError(int type) {
        return type < 128;
    }
}
