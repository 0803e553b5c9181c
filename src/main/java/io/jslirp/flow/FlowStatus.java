package io.jslirp.flow;

/**
 * One open flow as {@code jslirp status} shows it: a snapshot taken on the loop's thread.
 *
 * @param kind          the flow's {@link Kind} as a label: tcp, udp, ping, tcp-splice, udp-splice
 * @param protocol      "tcp", "udp" or "icmp"
 * @param state         the TCP state toward the guest (e.g. ESTABLISHED; SYN_SENT while a forwarded
 *                      connection waits for the guest's answer), or the table's state ("open")
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
public record FlowStatus(String kind, String protocol, String state, boolean forwarded, String guestAddress, int guestPort,
                         String remoteAddress, int remotePort, String hostAddress, int hostPort,
                         long fromGuest, long toGuest, long queuedToHost, long queuedToGuest, long ageNanos) {}
