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

    @Override
    public void close() {
        socket.close();
    }
}
