package io.jslirp.nat;

/**
 * One open flow as {@code jslirp status} shows it: a snapshot taken on the loop's thread.
 *
 * @param protocol      "tcp" or "udp"
 * @param state         the TCP state toward the guest (e.g. ESTABLISHED; SYN_SENT while a forwarded
 *                      connection waits for the guest's answer), or "open" for UDP
 * @param forwarded     whether a host client opened it through a forwarded port
 * @param guestAddress  the guest's end (as text: dotted IPv4, or IPv6 in brackets) and port
 * @param remoteAddress the other end as the guest sees it (for a forward: the gateway) and port
 * @param hostAddress   the host socket's peer: where an outbound flow goes (e.g. 127.0.0.1 for the
 *                      gateway), or the host client of a forward; and its port
 * @param fromGuest     payload bytes the guest sent that went out on the host socket
 * @param toGuest       payload bytes read from the host socket for the guest
 * @param queuedToHost  bytes the guest sent that the host peer has not acknowledged: held by
 *                      jslirp for the socket, and in the socket's send queue (SIOCOUTQ)
 * @param queuedToGuest bytes from the host peer that the guest has not acknowledged, sent or not:
 *                      they wait in the host socket's receive queue (SIOCINQ)
 * @param ageNanos      time since the flow opened
 */
public record FlowStatus(String protocol, String state, boolean forwarded, String guestAddress, int guestPort,
                         String remoteAddress, int remotePort, String hostAddress, int hostPort,
                         long fromGuest, long toGuest, long queuedToHost, long queuedToGuest, long ageNanos) {
    /** A flow that queues nothing of its own (UDP; a connection still being opened). */
    public FlowStatus(String protocol, String state, boolean forwarded, String guestAddress, int guestPort,
                      String remoteAddress, int remotePort, String hostAddress, int hostPort,
                      long fromGuest, long toGuest, long ageNanos) {
        this(protocol, state, forwarded, guestAddress, guestPort, remoteAddress, remotePort, hostAddress, hostPort,
                fromGuest, toGuest, 0, 0, ageNanos);
    }
}
