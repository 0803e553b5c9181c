package io.jslirp.stack;

import io.jslirp.wire.Drop;

import java.util.function.ObjLongConsumer;

/**
 * What crossed the stack and what it dropped, for logs and the status report. The flows opened
 * and open are counted by the table of flows ({@code flow.Flows#figures}), beside these.
 */
public final class Counters {
    public long framesIn;
    public long framesOut;
    /** Frames dropped because they were truncated or inconsistent. */
    public long malformed;
    /** Frames dropped because an IPv4 header, TCP, UDP, ICMP or ICMPv6 checksum was wrong (over IPv4 or IPv6). */
    public long badChecksum;
    /** Well-formed frames of a kind the stack does not handle (yet), dropped. */
    public long unsupported;
    /** Frames the link refused to take (its queue was full), or that could not be addressed yet. */
    public long sendDropped;
    /** Incomplete fragmented datagrams given up (timed out, their slot was needed, or IPv6 fragments that overlap). */
    public long reassemblyDropped;
    public long tcpRefused;
    /** ICMP destination unreachable messages sent to the guest (a host connect failed). */
    public long unreachableSent;
    /** New flows refused because a limit was reached (jslirp's, or the host's on open files). */
    public long refusedAtLimit;
    /** Guest queries to the DNS address over UDP; those retried at the next nameserver; those no nameserver answered. */
    public long dnsQueries;
    public long dnsRetries;
    public long dnsUnanswered;
    /** New flows the outbound policy refused (--disable-host-loopback, --deny, --allow). */
    public long policyRefused;
    /**
     * Messages from the guest claiming an address of the gateway's, ignored: ARP for 10.0.2.2 and
     * 10.0.2.3, Neighbor Advertisements for fd00::2, fd00::3 and fe80::2.
     */
    public long arpClaims;
    /**
     * The socket bypass (jslirp run --bypass): connections put in the command's place as host sockets;
     * connects it let go through the namespace (and so through the stack); connects it answered with
     * the host's error.
     */
    public long bypassed;
    public long bypassPassed;
    public long bypassFailed;

    /** Counts a drop under the counter its reason belongs to ({@link Drop#counter()}). */
    public void dropped(Drop reason) {
        switch (reason.counter()) {
            case MALFORMED -> malformed++;
            case BAD_CHECKSUM -> badChecksum++;
            case UNSUPPORTED -> unsupported++;
            case ADDRESS_CLAIM -> arpClaims++;
            case REASSEMBLY -> reassemblyDropped++;
            case SEND -> sendDropped++;
        }
    }

    /** Each counter with its name (as in the exit line and the API's get_counters, before the table's figures). */
    public void forEach(ObjLongConsumer<String> sink) {
        sink.accept("frames_in", framesIn);
        sink.accept("frames_out", framesOut);
        sink.accept("malformed", malformed);
        sink.accept("bad_checksum", badChecksum);
        sink.accept("unsupported", unsupported);
        sink.accept("send_dropped", sendDropped);
        sink.accept("reassembly_dropped", reassemblyDropped);
        sink.accept("tcp_refused", tcpRefused);
        sink.accept("unreachable_sent", unreachableSent);
        sink.accept("refused_at_limit", refusedAtLimit);
        sink.accept("dns_queries", dnsQueries);
        sink.accept("dns_retries", dnsRetries);
        sink.accept("dns_unanswered", dnsUnanswered);
        sink.accept("policy_refused", policyRefused);
        sink.accept("arp_claims", arpClaims);
        sink.accept("bypassed", bypassed);
        sink.accept("bypass_passed", bypassPassed);
        sink.accept("bypass_failed", bypassFailed);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        forEach((name, value) -> b.append(b.isEmpty() ? "" : " ").append(name).append('=').append(value));
        return b.toString();
    }
}
