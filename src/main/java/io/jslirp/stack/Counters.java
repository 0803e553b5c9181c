package io.jslirp.stack;

/** What crossed the stack and what it dropped, for logs and the status report. */
public final class Counters {
    public long framesIn;
    public long framesOut;
    /** Frames dropped because they were truncated or inconsistent. */
    public long malformed;
    /** Well-formed frames of a kind the stack does not handle (yet), dropped. */
    public long unsupported;
    /** Frames the link refused to take (its queue was full). */
    public long sendDropped;
    /** Incomplete fragmented datagrams given up (timed out, or their slot was needed). */
    public long reassemblyDropped;
    public long tcpConnections;
    public long tcpRefused;
    /** ICMP destination unreachable messages sent to the guest (a host connect failed). */
    public long unreachableSent;
    public long udpFlows;
    /** Guest queries to the DNS address over UDP; those retried at the next nameserver; those no nameserver answered. */
    public long dnsQueries;
    public long dnsRetries;
    public long dnsUnanswered;
    /** ICMP echo flows opened through host ping sockets. */
    public long pingFlows;

    @Override
    public String toString() {
        return "frames_in=" + framesIn + " frames_out=" + framesOut + " malformed=" + malformed
                + " unsupported=" + unsupported + " send_dropped=" + sendDropped
                + " reassembly_dropped=" + reassemblyDropped + " tcp_connections=" + tcpConnections + " tcp_refused=" + tcpRefused
                + " unreachable_sent=" + unreachableSent + " udp_flows=" + udpFlows
                + " dns_queries=" + dnsQueries + " dns_retries=" + dnsRetries + " dns_unanswered=" + dnsUnanswered
                + " ping_flows=" + pingFlows;
    }
}
