package io.jslirp.capture;

import io.jslirp.wire.Arp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;

/**
 * Which frames {@code --pcap-filter} keeps: a tiny subset of tcpdump's syntax, terms joined by
 * {@code and}: {@code tcp}, {@code udp}, {@code icmp}, {@code arp}, {@code port N} (TCP or UDP,
 * either direction), {@code host A.B.C.D} (IPv4 source or destination, or ARP sender or target).
 */
public final class CaptureFilter {
    private static final int TCP = 1, UDP = 2, ICMP = 3, ARP = 4, PORT = 5, HOST = 6;

    private final int[] kinds;
    private final int[] values;

    private CaptureFilter(int[] kinds, int[] values) {
        this.kinds = kinds;
        this.values = values;
    }

    /** Parses an expression; IllegalArgumentException says what is wrong. */
    public static CaptureFilter parse(String expression) {
        String[] words = expression.trim().toLowerCase(Locale.ROOT).split("\\s+");
        int[] kinds = new int[words.length];
        int[] values = new int[words.length];
        int terms = 0;
        int i = 0;
        while (true) {
            if (i >= words.length || words[i].isEmpty()) throw bad(expression, "a term is missing");
            switch (words[i++]) {
                case "tcp" -> kinds[terms] = TCP;
                case "udp" -> kinds[terms] = UDP;
                case "icmp" -> kinds[terms] = ICMP;
                case "arp" -> kinds[terms] = ARP;
                case "port" -> {
                    kinds[terms] = PORT;
                    values[terms] = port(expression, i < words.length ? words[i++] : "");
                }
                case "host" -> {
                    kinds[terms] = HOST;
                    if (i >= words.length) throw bad(expression, "host needs an IPv4 address");
                    try {
                        values[terms] = Ipv4.parse(words[i++]);
                    } catch (IllegalArgumentException e) {
                        throw bad(expression, e.getMessage());
                    }
                }
                default -> throw bad(expression, "unknown term '" + words[i - 1] + "' (tcp, udp, icmp, arp, port N, host A.B.C.D)");
            }
            terms++;
            if (i == words.length) break;
            if (!words[i++].equals("and")) throw bad(expression, "terms are joined by 'and'");
        }
        return new CaptureFilter(Arrays.copyOf(kinds, terms), Arrays.copyOf(values, terms));
    }

    private static int port(String expression, String word) {
        try {
            int p = Integer.parseInt(word);
            if (p >= 1 && p <= 65535) return p;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(expression, "port needs a number 1-65535");
    }

    private static IllegalArgumentException bad(String expression, String why) {
        return new IllegalArgumentException("bad --pcap-filter '" + expression + "': " + why);
    }

    /** Whether the frame of length bytes passes every term. */
    public boolean matches(MemorySegment f, int length) {
        if (length < Ethernet.HEADER_LENGTH) return false;
        long l3 = Ethernet.HEADER_LENGTH;
        int protocol = -1, source = 0, destination = 0, sourcePort = -1, destinationPort = -1;
        boolean arp = false, ip = false;
        int type = Ethernet.type(f, 0);
        if (type == Ethernet.TYPE_ARP && Arp.check(f, l3, length - (int) l3) == null) {
            arp = true;
            source = Arp.senderIp(f, l3);
            destination = Arp.targetIp(f, l3);
        } else if (type == Ethernet.TYPE_IPV4 && length >= l3 + Ipv4.MIN_HEADER_LENGTH) {
            ip = true;
            protocol = Ipv4.protocol(f, l3);
            source = Ipv4.source(f, l3);
            destination = Ipv4.destination(f, l3);
            int ihl = Ipv4.headerLength(f, l3);
            boolean ported = protocol == Ipv4.PROTO_TCP || protocol == Ipv4.PROTO_UDP;
            if (ported && ihl >= Ipv4.MIN_HEADER_LENGTH && Ipv4.fragmentOffset(f, l3) == 0 && length >= l3 + ihl + 4) {
                sourcePort = Udp.sourcePort(f, l3 + ihl); // where TCP's ports are too
                destinationPort = Udp.destinationPort(f, l3 + ihl);
            }
        }
        for (int i = 0; i < kinds.length; i++) {
            int v = values[i];
            boolean pass = switch (kinds[i]) {
                case TCP -> protocol == Ipv4.PROTO_TCP;
                case UDP -> protocol == Ipv4.PROTO_UDP;
                case ICMP -> protocol == Ipv4.PROTO_ICMP;
                case ARP -> arp;
                case PORT -> sourcePort == v || destinationPort == v;
                default -> (arp || ip) && (source == v || destination == v);
            };
            if (!pass) return false;
        }
        return true;
    }
}
