package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * DHCPv6 (RFC 8415) as a stateless server needs it: the message type and transaction id of a
 * client's message, its options (code and length, 2 bytes each), and a Reply carrying the
 * client's identifier, our identifier and the DNS servers (RFC 3646).
 */
public final class Dhcpv6 {
    public static final int CLIENT_PORT = 546, SERVER_PORT = 547;
    /** ff02::1:2, all DHCP relay agents and servers. */
    public static final long SERVERS_HI = 0xff02_0000_0000_0000L, SERVERS_LO = 0x1_0002L;
    public static final int SOLICIT = 1, REQUEST = 3, REPLY = 7, INFORMATION_REQUEST = 11;
    public static final int OPT_CLIENT_ID = 1, OPT_SERVER_ID = 2, OPT_DNS_SERVERS = 23;
    public static final int HEADER_LENGTH = 4, OPTION_HEADER_LENGTH = 4;
    /** A DUID (what the client and server identifier options hold) is at most 130 bytes: type and 128 (RFC 8415 section 11.1). */
    public static final int MAX_DUID_LENGTH = 130;
    /** Our server identifier: a DUID-LL (type 3) of hardware type Ethernet (1) and a MAC. */
    private static final int DUID_LL_LENGTH = 10;

    private Dhcpv6() {}

    public static int messageType(MemorySegment s, long off) {
        return Bytes.u8(s, off);
    }

    public static int transactionId(MemorySegment s, long off) {
        return Bytes.u32(s, off) & 0xffffff;
    }

    /**
     * Offset of the first option with code among the options of the message of len bytes at off,
     * -1 when absent, -2 when an option runs past the end.
     */
    public static long findOption(MemorySegment s, long off, int len, int code) {
        long end = off + len;
        long found = -1;
        for (long at = off + HEADER_LENGTH; at < end; ) {
            if (at + OPTION_HEADER_LENGTH > end) return -2;
            int optLen = optionLength(s, at);
            if (at + OPTION_HEADER_LENGTH + optLen > end) return -2;
            if (found < 0 && Bytes.u16(s, at) == code) found = at;
            at += OPTION_HEADER_LENGTH + optLen;
        }
        return found;
    }

    /** Length of the data of the option at off (without its 4-byte header). */
    public static int optionLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + 2);
    }

    /**
     * Writes a Reply to transaction xid at off: the client identifier option copied from clientId
     * (an option header and data at clientIdOff in src; none when clientIdOff is negative), our
     * server identifier from serverMac, and one DNS server. Returns its length.
     */
    public static int writeReply(MemorySegment s, long off, int xid, MemorySegment src, long clientIdOff,
                                 long serverMac, long dnsHi, long dnsLo) {
        Bytes.u32(s, off, (REPLY << 24) | (xid & 0xffffff));
        long o = off + HEADER_LENGTH;
        if (clientIdOff >= 0) {
            int n = OPTION_HEADER_LENGTH + optionLength(src, clientIdOff);
            MemorySegment.copy(src, clientIdOff, s, o, n);
            o += n;
        }
        Bytes.u16(s, o, OPT_SERVER_ID);
        Bytes.u16(s, o + 2, DUID_LL_LENGTH);
        Bytes.u16(s, o + 4, 3);
        Bytes.u16(s, o + 6, 1);
        Bytes.mac(s, o + 8, serverMac);
        o += OPTION_HEADER_LENGTH + DUID_LL_LENGTH;
        Bytes.u16(s, o, OPT_DNS_SERVERS);
        Bytes.u16(s, o + 2, 16);
        Ipv6.address(s, o + 4, dnsHi, dnsLo);
        o += OPTION_HEADER_LENGTH + 16;
        return (int) (o - off);
    }
}
