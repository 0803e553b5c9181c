package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * Socket dumps through NETLINK_SOCK_DIAG (what ss uses), in the network namespace of the thread
 * that opens it: the local ports of the TCP or UDP sockets in given states. For "auto" port
 * forwarding this is far cheaper than /proc/net/tcp: asked for listeners only, the kernel walks
 * its listening sockets alone, where /proc/net/tcp prints every socket of every namespace's share
 * of the established table, which grows with the host's connections (docs/benchmarks.md). Use from
 * one thread at a time.
 */
public final class SockDiag implements AutoCloseable {
    public static final int TCP = 6, UDP = 17;
    /** Socket states as masks (1 << state, include/net/tcp_states.h): a listener, and an unconnected UDP socket. */
    public static final int LISTEN = 1 << 10, CLOSE = 1 << 7;

    private static final int AF_INET = 2, AF_INET6 = 10;
    private static final short SOCK_DIAG_BY_FAMILY = 20;
    /** struct inet_diag_req_v2: family, protocol, extensions, padding, u32 states, then a 48-byte socket ID. */
    private static final int REQUEST = 56;
    /** struct inet_diag_msg: family, state, timer, retransmits, then the socket ID, its source port first (network order). */
    private static final int SOURCE_PORT = 4, MESSAGE = 72;

    private final NetlinkSocket socket;

    private SockDiag(NetlinkSocket socket) {
        this.socket = socket;
    }

    /** A NETLINK_SOCK_DIAG socket in the calling thread's network namespace; throws {@link SysException}. */
    public static SockDiag open() {
        return new SockDiag(new NetlinkSocket(NetlinkSocket.NETLINK_SOCK_DIAG, "open sock_diag socket"));
    }

    /**
     * Sets into the local port of every socket of protocol ({@link #TCP} or {@link #UDP}), IPv4
     * and IPv6, in one of states (e.g. {@link #LISTEN}). Throws {@link SysException}, with ENOENT
     * when the kernel has no dump for the protocol (CONFIG_INET_UDP_DIAG unset).
     */
    public void localPorts(int protocol, int states, BitSet into) {
        for (int family : new int[] {AF_INET, AF_INET6}) {
            String what = "dump " + (protocol == TCP ? "TCP" : "UDP") + (family == AF_INET ? "" : "v6") + " sockets";
            int sequence = socket.begin(SOCK_DIAG_BY_FAMILY, NetlinkSocket.NLM_F_DUMP);
            MemorySegment r = socket.request;
            int at = socket.length;
            r.set(JAVA_BYTE, at, (byte) family);
            r.set(JAVA_BYTE, at + 1, (byte) protocol);
            r.set(JAVA_INT_UNALIGNED, at + 4, states);
            socket.length += REQUEST;
            socket.send(what);
            int status;
            do {
                int n = socket.receive(what);
                status = parse(socket.answer, n, sequence, into);
            } while (status == 0);
            if (status < 0) throw new SysException(what, -status);
        }
    }

    /**
     * Adds to into the cookie (SO_COOKIE) of every TCP socket of this namespace, IPv4 and IPv6,
     * that is not closed or in TIME_WAIT: one dump of each family. Throws {@link SysException}.
     */
    public void openTcpCookies(java.util.Set<Long> into) {
        int states = 0xfff & ~(1 << 6) & ~(1 << 7);
        for (int family : new int[] {AF_INET, AF_INET6}) {
            String what = "dump TCP" + (family == AF_INET ? "" : "v6") + " sockets";
            int sequence = socket.begin(SOCK_DIAG_BY_FAMILY, NetlinkSocket.NLM_F_DUMP);
            MemorySegment r = socket.request;
            int at = socket.length;
            r.set(JAVA_BYTE, at, (byte) family);
            r.set(JAVA_BYTE, at + 1, (byte) TCP);
            r.set(JAVA_INT_UNALIGNED, at + 4, states);
            socket.length += REQUEST;
            socket.send(what);
            int status = 0;
            while (status == 0) {
                int n = socket.receive(what);
                MemorySegment a = socket.answer;
                for (int off = 0; off + NetlinkSocket.HEADER <= n && status == 0; off = NetlinkSocket.next(a, off, n)) {
                    if (NetlinkSocket.sequence(a, off) != sequence) continue;
                    short type = NetlinkSocket.type(a, off);
                    if (type == NetlinkSocket.NLMSG_DONE) status = 1;
                    else if (type == NetlinkSocket.NLMSG_ERROR) status = Math.min(NetlinkSocket.error(a, off), -1);
                    else if (type == SOCK_DIAG_BY_FAMILY && NetlinkSocket.messageLength(a, off) >= NetlinkSocket.HEADER + MESSAGE) {
                        int msg = off + NetlinkSocket.HEADER;
                        into.add(Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_COOKIE))
                                | (long) a.get(JAVA_INT_UNALIGNED, msg + MSG_COOKIE + 4) << 32);
                    }
                }
            }
            if (status < 0) throw new SysException(what, -status);
        }
    }

    /** Takes the ports of one datagram of a dump: 1 at its end (NLMSG_DONE), 0 if more is to come, -errno for an error. */
    static int parse(MemorySegment answer, int length, int sequence, BitSet into) {
        for (int off = 0; off + NetlinkSocket.HEADER <= length; off = NetlinkSocket.next(answer, off, length)) {
            if (NetlinkSocket.sequence(answer, off) != sequence) continue;
            short type = NetlinkSocket.type(answer, off);
            if (type == NetlinkSocket.NLMSG_DONE) return 1;
            if (type == NetlinkSocket.NLMSG_ERROR) return Math.min(NetlinkSocket.error(answer, off), -1);
            if (type == SOCK_DIAG_BY_FAMILY && NetlinkSocket.messageLength(answer, off) >= NetlinkSocket.HEADER + MESSAGE) {
                into.set(Short.toUnsignedInt(answer.get(Native.NET_SHORT, off + NetlinkSocket.HEADER + SOURCE_PORT)));
            }
        }
        return 0;
    }

    /** tcp's out[]: the TCP state (include/net/tcp_states.h), receive queue, send queue, bytes acknowledged by the peer, bytes received. */
    public static final int STATE = 0, RECEIVE_QUEUE = 1, SEND_QUEUE = 2, BYTES_ACKED = 3, BYTES_RECEIVED = 4;
    /** The socket ID's fields in a request (after family, protocol, extensions, padding and states). */
    private static final int ID_SPORT = 8, ID_DPORT = 10, ID_SRC = 12, ID_DST = 28, ID_COOKIE = 48;
    /** struct inet_diag_msg's state and queues; INET_DIAG_INFO, the attribute holding struct tcp_info, asked for by its bit. */
    private static final int MSG_STATE = 1, MSG_COOKIE = 44, MSG_RQUEUE = 56, MSG_WQUEUE = 60;
    private static final short INET_DIAG_INFO = 2;
    /** struct tcp_info's tcpi_bytes_acked and tcpi_bytes_received. */
    private static final int TCPI_BYTES_ACKED = 120, TCPI_BYTES_RECEIVED = 128;

    /**
     * One TCP socket of this namespace, found by its ends (hi, lo and port each, an IPv4 address
     * as ::ffff:a.b.c.d, as {@link Sockets} has them) and its cookie (SO_COOKIE): an exact get, not a
     * dump. Fills out ({@link #STATE}...); false when there is no such socket (closed and gone).
     * Throws {@link SysException} for any other error.
     */
    public boolean tcp(long[] local, long[] remote, long cookie, long[] out) {
        boolean v4 = local[0] == 0 && (local[1] >>> 32) == 0xffff;
        int sequence = socket.begin(SOCK_DIAG_BY_FAMILY, (short) 0);
        MemorySegment r = socket.request;
        int at = socket.length;
        r.set(JAVA_BYTE, at, (byte) (v4 ? AF_INET : AF_INET6));
        r.set(JAVA_BYTE, at + 1, (byte) TCP);
        r.set(JAVA_BYTE, at + 2, (byte) (1 << (INET_DIAG_INFO - 1)));
        r.set(JAVA_INT_UNALIGNED, at + 4, -1);
        r.set(Native.NET_SHORT, at + ID_SPORT, (short) local[2]);
        r.set(Native.NET_SHORT, at + ID_DPORT, (short) remote[2]);
        address(r, at + ID_SRC, v4, local);
        address(r, at + ID_DST, v4, remote);
        r.set(JAVA_INT_UNALIGNED, at + ID_COOKIE, (int) cookie);
        r.set(JAVA_INT_UNALIGNED, at + ID_COOKIE + 4, (int) (cookie >>> 32));
        socket.length += REQUEST;
        socket.send("get a TCP socket");
        while (true) {
            int n = socket.receive("get a TCP socket");
            MemorySegment a = socket.answer;
            for (int off = 0; off + NetlinkSocket.HEADER <= n; off = NetlinkSocket.next(a, off, n)) {
                if (NetlinkSocket.sequence(a, off) != sequence) continue;
                short type = NetlinkSocket.type(a, off);
                if (type == NetlinkSocket.NLMSG_ERROR) {
                    int e = -NetlinkSocket.error(a, off);
                    if (e == Errno.ENOENT) return false;
                    throw new SysException("get a TCP socket", e);
                }
                if (type != SOCK_DIAG_BY_FAMILY) continue;
                int msg = off + NetlinkSocket.HEADER, end = off + NetlinkSocket.messageLength(a, off);
                out[STATE] = Byte.toUnsignedInt(a.get(JAVA_BYTE, msg + MSG_STATE));
                out[RECEIVE_QUEUE] = Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_RQUEUE));
                out[SEND_QUEUE] = Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_WQUEUE));
                out[BYTES_ACKED] = out[BYTES_RECEIVED] = 0;
                for (int attr = msg + MESSAGE; attr + 4 <= end; ) { // struct rtattr: u16 length, u16 type, then the value, 4-aligned
                    int len = Short.toUnsignedInt(a.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, attr));
                    short kind = a.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, attr + 2);
                    if (len < 4) break;
                    if (kind == INET_DIAG_INFO && len >= 4 + TCPI_BYTES_RECEIVED + 8) {
                        out[BYTES_ACKED] = a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, attr + 4 + TCPI_BYTES_ACKED);
                        out[BYTES_RECEIVED] = a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, attr + 4 + TCPI_BYTES_RECEIVED);
                    }
                    attr += (len + 3) & ~3;
                }
                return true;
            }
        }
    }

    /** An address of the socket ID: IPv4 in its first 4 bytes, IPv6 in all 16 (network order). */
    private static void address(MemorySegment r, int at, boolean v4, long[] hiLoPort) {
        if (v4) {
            r.set(Native.NET_INT, at, (int) hiLoPort[1]);
        } else {
            r.set(Native.NET_LONG, at, hiLoPort[0]);
            r.set(Native.NET_LONG, at + 8, hiLoPort[1]);
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
