package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * Socket dumps through NETLINK_SOCK_DIAG (what ss uses), in the network namespace of the thread
 * that opens it: the local ports of the TCP or UDP sockets in given states ({@link #localPorts});
 * the open TCP sockets with their cookies, ends, queues and byte counts ({@link #openTcp}, for the
 * socket bypass's connections in the status report). For "auto" port
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
        dump(protocol, states, 0, ports(into));
    }

    /** A message's local port into into. */
    private static Message ports(BitSet into) {
        return (a, msg, end) -> into.set(Short.toUnsignedInt(a.get(Native.NET_SHORT, msg + SOURCE_PORT)));
    }

    /** One socket's inet_diag_msg in a dump: the datagram, where the message starts, where it (and its attributes) end. */
    @FunctionalInterface
    interface Message {
        void accept(MemorySegment answer, int msg, int end);
    }

    /**
     * Dumps the sockets of protocol in one of states, IPv4 then IPv6, with the extensions (a bit per
     * INET_DIAG_* attribute) asked for: each message to sink. Throws {@link SysException}.
     */
    private void dump(int protocol, int states, int extensions, Message sink) {
        for (int family : new int[] {AF_INET, AF_INET6}) {
            String what = "dump " + (protocol == TCP ? "TCP" : "UDP") + (family == AF_INET ? "" : "v6") + " sockets";
            int sequence = socket.begin(SOCK_DIAG_BY_FAMILY, NetlinkSocket.NLM_F_DUMP);
            MemorySegment r = socket.request;
            int at = socket.length;
            r.set(JAVA_BYTE, at, (byte) family);
            r.set(JAVA_BYTE, at + 1, (byte) protocol);
            r.set(JAVA_BYTE, at + 2, (byte) extensions);
            r.set(JAVA_INT_UNALIGNED, at + 4, states);
            socket.length += REQUEST;
            socket.send(what);
            int status;
            do {
                int n = socket.receive(what);
                status = parse(socket.answer, n, sequence, sink);
            } while (status == 0);
            if (status < 0) throw new SysException(what, -status);
        }
    }

    /** One datagram of a dump, each socket's message to sink: 1 at its end (NLMSG_DONE), 0 if more is to come, -errno for an error. */
    static int parse(MemorySegment answer, int length, int sequence, Message sink) {
        for (int off = 0; off + NetlinkSocket.HEADER <= length; off = NetlinkSocket.next(answer, off, length)) {
            if (NetlinkSocket.sequence(answer, off) != sequence) continue;
            short type = NetlinkSocket.type(answer, off);
            if (type == NetlinkSocket.NLMSG_DONE) return 1;
            if (type == NetlinkSocket.NLMSG_ERROR) return Math.min(NetlinkSocket.error(answer, off), -1);
            if (type == SOCK_DIAG_BY_FAMILY && NetlinkSocket.messageLength(answer, off) >= NetlinkSocket.HEADER + MESSAGE) {
                sink.accept(answer, off + NetlinkSocket.HEADER, off + NetlinkSocket.messageLength(answer, off));
            }
        }
        return 0;
    }

    /** As {@link #parse(MemorySegment, int, int, Message)}, the local ports into into. */
    static int parse(MemorySegment answer, int length, int sequence, BitSet into) {
        return parse(answer, length, sequence, ports(into));
    }

    /**
     * One open TCP socket of a dump ({@link #openTcp}): its cookie (SO_COOKIE), state
     * (include/net/tcp_states.h), ends (hi, lo as {@link Sockets} has them, an IPv4 address as
     * ::ffff:a.b.c.d; port), queues, and the bytes its peer acknowledged and it received (tcp_info).
     */
    public record TcpSocket(long cookie, int state, long localHi, long localLo, int localPort, long remoteHi, long remoteLo,
                            int remotePort, long receiveQueue, long sendQueue, long bytesAcked, long bytesReceived) {}

    /** struct inet_diag_msg's state, socket ID (ports, addresses, cookie) and queues. */
    private static final int MSG_STATE = 1, MSG_SPORT = 4, MSG_DPORT = 6, MSG_SRC = 8, MSG_DST = 24, MSG_COOKIE = 44,
            MSG_RQUEUE = 56, MSG_WQUEUE = 60;
    /** INET_DIAG_INFO: the attribute holding struct tcp_info, asked for by its bit in the request's extensions. */
    private static final short INET_DIAG_INFO = 2;
    /** struct tcp_info's tcpi_bytes_acked and tcpi_bytes_received. */
    private static final int TCPI_BYTES_ACKED = 120, TCPI_BYTES_RECEIVED = 128;
    private static final long V4_MAPPED = 0xffffL << 32;

    /**
     * Gives sink every TCP socket of this namespace, IPv4 and IPv6, that is not closed or in
     * TIME_WAIT: one dump of each family, with each socket's tcp_info. Throws {@link SysException}.
     */
    public void openTcp(java.util.function.Consumer<TcpSocket> sink) {
        dump(TCP, 0xfff & ~(1 << 6) & ~(1 << 7), 1 << (INET_DIAG_INFO - 1),
                (a, msg, end) -> sink.accept(tcpSocket(a, msg, end, a.get(JAVA_BYTE, msg) == AF_INET)));
    }

    /** The socket an inet_diag_msg at msg (ending at end, its attributes after it) describes. */
    static TcpSocket tcpSocket(MemorySegment a, int msg, int end, boolean v4) {
        long acked = 0, received = 0;
        for (int attr = msg + MESSAGE; attr + 4 <= end; ) { // struct rtattr: u16 length, u16 type, the value; 4-aligned
            int len = Short.toUnsignedInt(a.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, attr));
            if (len < 4) break;
            if (a.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, attr + 2) == INET_DIAG_INFO && len >= 4 + TCPI_BYTES_RECEIVED + 8) {
                acked = a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, attr + 4 + TCPI_BYTES_ACKED);
                received = a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, attr + 4 + TCPI_BYTES_RECEIVED);
            }
            attr += (len + 3) & ~3;
        }
        long cookie = Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_COOKIE)) | (long) a.get(JAVA_INT_UNALIGNED, msg + MSG_COOKIE + 4) << 32;
        return new TcpSocket(cookie, Byte.toUnsignedInt(a.get(JAVA_BYTE, msg + MSG_STATE)),
                v4 ? 0 : a.get(Native.NET_LONG, msg + MSG_SRC), v4 ? V4_MAPPED | Integer.toUnsignedLong(a.get(Native.NET_INT, msg + MSG_SRC))
                        : a.get(Native.NET_LONG, msg + MSG_SRC + 8), Short.toUnsignedInt(a.get(Native.NET_SHORT, msg + MSG_SPORT)),
                v4 ? 0 : a.get(Native.NET_LONG, msg + MSG_DST), v4 ? V4_MAPPED | Integer.toUnsignedLong(a.get(Native.NET_INT, msg + MSG_DST))
                        : a.get(Native.NET_LONG, msg + MSG_DST + 8), Short.toUnsignedInt(a.get(Native.NET_SHORT, msg + MSG_DPORT)),
                Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_RQUEUE)), Integer.toUnsignedLong(a.get(JAVA_INT_UNALIGNED, msg + MSG_WQUEUE)),
                acked, received);
    }

    @Override
    public void close() {
        socket.close();
    }
}
