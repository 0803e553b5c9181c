package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * DHCPv6 (RFC 8415) as a stateless server needs it: the message type and transaction id of a
 * client's message, its options, and a Reply carrying the client's identifier, our identifier and
 * the DNS servers (RFC 3646).
 * <pre>
 *  0               1               2               3
 * +---------------+-----------------------------------------------+
 * |   msg-type    |               transaction-id                  |  0 MESSAGE_TYPE, 1 TRANSACTION_ID
 * +---------------+-----------------------------------------------+
 * |  options: option-code (2 bytes), option-len (2), data ...     |  4
 * </pre>
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
    private static final int MESSAGE_TYPE = 0, OPTION_CODE = 0, OPTION_LENGTH = 2;
    /** Our server identifier: a DUID-LL (type 3) of hardware type Ethernet (1) and a MAC. */
    private static final int DUID_LL_LENGTH = 10, DUID_LL = 3, HARDWARE_ETHERNET = 1;

    private Dhcpv6() {}

    /**
     * Null when the message of len bytes at off has a header, options that stay inside it, and
     * identifiers no longer than a DUID can be; else the reason.
     */
    public static Drop check(MemorySegment s, long off, int len) {
        if (len < HEADER_LENGTH) return Drop.TRUNCATED;
        long end = off + len;
        for (long at = off + HEADER_LENGTH; at < end; ) {
            if (at + OPTION_HEADER_LENGTH > end) return Drop.BAD_OPTION;
            int optLen = optionLength(s, at);
            if (at + OPTION_HEADER_LENGTH + optLen > end) return Drop.BAD_OPTION;
            int code = Bytes.u16(s, at + OPTION_CODE);
            if ((code == OPT_CLIENT_ID || code == OPT_SERVER_ID) && optLen > MAX_DUID_LENGTH) return Drop.BAD_LENGTH;
            at += OPTION_HEADER_LENGTH + optLen;
        }
        return null;
    }

    public static int messageType(MemorySegment s, long off) {
        return Bytes.u8(s, off + MESSAGE_TYPE);
    }

    public static int transactionId(MemorySegment s, long off) {
        return Bytes.u32(s, off + MESSAGE_TYPE) & 0xffffff;
    }

    /** Offset of the first option with code among the options of the {@link #check}ed message of len bytes at off, -1 when absent. */
    public static long findOption(MemorySegment s, long off, int len, int code) {
        long end = off + len;
        for (long at = off + HEADER_LENGTH; at + OPTION_HEADER_LENGTH <= end; at += OPTION_HEADER_LENGTH + optionLength(s, at)) {
            if (Bytes.u16(s, at + OPTION_CODE) == code) return at;
        }
        return -1;
    }

    /** Length of the data of the option at off (without its 4-byte header). */
    public static int optionLength(MemorySegment s, long off) {
        return Bytes.u16(s, off + OPTION_LENGTH);
    }

    /** What a Reply says, set fluently and reused. */
    public static final class Reply {
        int transactionId;
        MemorySegment clientIdFrame;
        long clientId = -1, serverMac, dnsHi, dnsLo;

        public Reply transaction(int id) {
            this.transactionId = id;
            return this;
        }

        /** The client identifier option to copy (its header and data at offset of frame), or none when offset is negative. */
        public Reply clientId(MemorySegment frame, long offset) {
            this.clientIdFrame = frame;
            this.clientId = offset;
            return this;
        }

        /** Our identifier, a DUID-LL of this MAC. */
        public Reply server(long mac) {
            this.serverMac = mac;
            return this;
        }

        public Reply dns(long hi, long lo) {
            this.dnsHi = hi;
            this.dnsLo = lo;
            return this;
        }
    }

    /** Writes the Reply r describes at off; returns its length. */
    public static int write(MemorySegment s, long off, Reply r) {
        Bytes.u32(s, off + MESSAGE_TYPE, (REPLY << 24) | (r.transactionId & 0xffffff));
        long o = off + HEADER_LENGTH;
        if (r.clientId >= 0) {
            int n = OPTION_HEADER_LENGTH + optionLength(r.clientIdFrame, r.clientId);
            MemorySegment.copy(r.clientIdFrame, r.clientId, s, o, n);
            o += n;
        }
        o = optionHeader(s, o, OPT_SERVER_ID, DUID_LL_LENGTH);
        Bytes.u16(s, o, DUID_LL);
        Bytes.u16(s, o + 2, HARDWARE_ETHERNET);
        Bytes.mac(s, o + 4, r.serverMac);
        o += DUID_LL_LENGTH;
        o = optionHeader(s, o, OPT_DNS_SERVERS, 16);
        Ipv6.address(s, o, r.dnsHi, r.dnsLo);
        o += 16;
        return (int) (o - off);
    }

    /** Writes an option header; returns where its data goes. */
    private static long optionHeader(MemorySegment s, long off, int code, int length) {
        Bytes.u16(s, off + OPTION_CODE, code);
        Bytes.u16(s, off + OPTION_LENGTH, length);
        return off + OPTION_HEADER_LENGTH;
    }
}
