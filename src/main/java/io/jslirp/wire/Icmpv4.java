package io.jslirp.wire;

/** ICMPv4's numbers (RFC 792); the header and its accessors are {@link Icmp}'s, shared with ICMPv6. */
public final class Icmpv4 {
    public static final int ECHO_REPLY = 0;
    public static final int DEST_UNREACHABLE = 3;
    public static final int ECHO_REQUEST = 8;
    public static final int CODE_NET_UNREACHABLE = 0;
    public static final int CODE_HOST_UNREACHABLE = 1;
    public static final int CODE_PORT_UNREACHABLE = 3;
    /** Communication administratively prohibited (RFC 1812): a filter refused it. */
    public static final int CODE_ADMIN_PROHIBITED = 13;
    /** An error message quotes the offending datagram's IP header and this many bytes after it. */
    public static final int QUOTED_TRANSPORT_BYTES = 8;

    private Icmpv4() {}
}
