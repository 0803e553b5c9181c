package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * DHCPv4 message (RFC 2131) in a UDP payload.
 * <pre>
 *  0      1      2      3      4             8      10     12      16      20      24      28          44       108      236    240
 * +------+------+------+------+-------------+------+------+-------+-------+-------+-------+-----------+--------+--------+------+---------
 * |  op  |htype | hlen | hops |    xid      | secs |flags |ciaddr |yiaddr |siaddr |giaddr |  chaddr   | sname  |  file  |cookie|options
 * +------+------+------+------+-------------+------+------+-------+-------+-------+-------+-----------+--------+--------+------+---------
 * </pre>
 * {@link #checkRequest} first; the accessors then read inside the fixed part.
 */
public final class Dhcp {
    public static final int SERVER_PORT = 67;
    public static final int CLIENT_PORT = 68;
    public static final int FIXED_LENGTH = 240;
    public static final int OP_REQUEST = 1, OP_REPLY = 2;
    public static final int MAGIC_COOKIE = 0x63825363;
    public static final int FLAG_BROADCAST = 0x8000;
    /** The fixed 'file' field (boot file name, NUL-terminated). */
    public static final int FILE_OFFSET = 108, FILE_LENGTH = 128;
    private static final int OP = 0, HTYPE = 1, HLEN = 2, XID = 4, FLAGS = 10, CIADDR = 12, YIADDR = 16, SIADDR = 20,
            CHADDR = 28, COOKIE = 236;
    private static final int HTYPE_ETHERNET = 1;

    public static final int OPT_PAD = 0, OPT_SUBNET_MASK = 1, OPT_ROUTER = 3, OPT_DNS = 6, OPT_HOSTNAME = 12,
            OPT_MTU = 26, OPT_BROADCAST = 28, OPT_REQUESTED_IP = 50, OPT_LEASE_TIME = 51, OPT_MESSAGE_TYPE = 53,
            OPT_SERVER_ID = 54, OPT_RENEWAL_TIME = 58, OPT_REBINDING_TIME = 59, OPT_TFTP_SERVER = 66, OPT_BOOTFILE = 67, OPT_END = 255;
    public static final int DISCOVER = 1, OFFER = 2, REQUEST = 3, DECLINE = 4, ACK = 5, NAK = 6, RELEASE = 7, INFORM = 8;

    private Dhcp() {}

    /** Null when len bytes hold a BOOTREQUEST for Ethernet with the magic cookie, else the reason. */
    public static Drop checkRequest(MemorySegment s, long off, int len) {
        if (len < FIXED_LENGTH) return Drop.TRUNCATED;
        if (Bytes.u8(s, off + OP) != OP_REQUEST || Bytes.u8(s, off + HTYPE) != HTYPE_ETHERNET || Bytes.u8(s, off + HLEN) != 6) {
            return Drop.BAD_FIELD;
        }
        if (Bytes.u32(s, off + COOKIE) != MAGIC_COOKIE) return Drop.BAD_FIELD;
        return null;
    }

    public static int xid(MemorySegment s, long off) {
        return Bytes.u32(s, off + XID);
    }

    public static int flags(MemorySegment s, long off) {
        return Bytes.u16(s, off + FLAGS);
    }

    public static int clientAddress(MemorySegment s, long off) {
        return Bytes.u32(s, off + CIADDR);
    }

    public static int yourAddress(MemorySegment s, long off) {
        return Bytes.u32(s, off + YIADDR);
    }

    public static int serverAddress(MemorySegment s, long off) {
        return Bytes.u32(s, off + SIADDR);
    }

    public static long clientMac(MemorySegment s, long off) {
        return Bytes.mac(s, off + CHADDR);
    }

    /**
     * Finds option code in the options of a message of len bytes and returns the offset of its value
     * (its length byte is at result - 1), or -1 when absent or the option list is malformed.
     */
    public static long findOption(MemorySegment s, long off, int len, int code) {
        long p = off + FIXED_LENGTH;
        long end = off + len;
        while (p < end) {
            int c = Bytes.u8(s, p);
            if (c == OPT_END) return -1;
            if (c == OPT_PAD) {
                p++;
                continue;
            }
            if (p + 1 >= end) return -1;
            int l = Bytes.u8(s, p + 1);
            if (p + 2 + l > end) return -1;
            if (c == code) return p + 2;
            p += 2 + l;
        }
        return -1;
    }

    /** The DHCP message type option, or -1. */
    public static int messageType(MemorySegment s, long off, int len) {
        long v = findOption(s, off, len, OPT_MESSAGE_TYPE);
        return v < 0 || Bytes.u8(s, v - 1) != 1 ? -1 : Bytes.u8(s, v);
    }

    /** Requested IP address option, or 0. */
    public static int requestedAddress(MemorySegment s, long off, int len) {
        long v = findOption(s, off, len, OPT_REQUESTED_IP);
        return v < 0 || Bytes.u8(s, v - 1) != 4 ? 0 : Bytes.u32(s, v);
    }

    /** Server identifier option, or 0. */
    public static int serverId(MemorySegment s, long off, int len) {
        long v = findOption(s, off, len, OPT_SERVER_ID);
        return v < 0 || Bytes.u8(s, v - 1) != 4 ? 0 : Bytes.u32(s, v);
    }

    /** Writes name into the 'file' field of a message; name must be shorter than {@link #FILE_LENGTH} bytes (the caller checks). */
    public static void writeBootFile(MemorySegment s, long off, byte[] name) {
        MemorySegment.copy(MemorySegment.ofArray(name), 0, s, off + FILE_OFFSET, name.length);
        Bytes.u8(s, off + FILE_OFFSET + name.length, 0);
    }

    /**
     * Writes the fixed part of a BOOTREPLY with no addresses yet ({@link #writeAddresses} puts
     * them); options follow at off + FIXED_LENGTH.
     */
    public static void writeReply(MemorySegment s, long off, int xid, int flags, long clientMac) {
        writeFixed(s, off, OP_REPLY, xid, flags, clientMac);
    }

    /** Puts the address offered to the client (yiaddr) and the server's (siaddr) into a written reply. */
    public static void writeAddresses(MemorySegment s, long off, int yourAddress, int serverAddress) {
        Bytes.u32(s, off + YIADDR, yourAddress);
        Bytes.u32(s, off + SIADDR, serverAddress);
    }

    /** Writes the fixed part of a client's BOOTREQUEST (no address yet); options follow at off + FIXED_LENGTH. */
    public static void writeRequest(MemorySegment s, long off, int xid, int flags, long clientMac) {
        writeFixed(s, off, OP_REQUEST, xid, flags, clientMac);
    }

    private static void writeFixed(MemorySegment s, long off, int op, int xid, int flags, long clientMac) {
        s.asSlice(off, FIXED_LENGTH).fill((byte) 0);
        Bytes.u8(s, off + OP, op);
        Bytes.u8(s, off + HTYPE, HTYPE_ETHERNET);
        Bytes.u8(s, off + HLEN, 6);
        Bytes.u32(s, off + XID, xid);
        Bytes.u16(s, off + FLAGS, flags);
        Bytes.mac(s, off + CHADDR, clientMac);
        Bytes.u32(s, off + COOKIE, MAGIC_COOKIE);
    }

    /** Writes option code with a value of size 1, 2 or 4 bytes at p; returns where the next option goes. */
    public static long putOption(MemorySegment s, long p, int code, int size, int value) {
        Bytes.u8(s, p, code);
        Bytes.u8(s, p + 1, size);
        switch (size) {
            case 1 -> Bytes.u8(s, p + 2, value);
            case 2 -> Bytes.u16(s, p + 2, value);
            default -> Bytes.u32(s, p + 2, value);
        }
        return p + 2 + size;
    }

    /** Writes option code with value (at most 255 bytes) at p; returns where the next option goes. */
    public static long putOption(MemorySegment s, long p, int code, byte[] value) {
        Bytes.u8(s, p, code);
        Bytes.u8(s, p + 1, value.length);
        MemorySegment.copy(MemorySegment.ofArray(value), 0, s, p + 2, value.length);
        return p + 2 + value.length;
    }

    /** Ends the options at p; returns the end of the message. */
    public static long putEnd(MemorySegment s, long p) {
        Bytes.u8(s, p, OPT_END);
        return p + 1;
    }
}
