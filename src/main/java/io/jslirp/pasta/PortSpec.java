package io.jslirp.pasta;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One argument of -t, -u, -T or -U, read as pasta's conf_ports() reads it: "none", "auto", "all",
 * or a comma-separated list of ranges {@code [ADDR[%IF]/]FIRST[-LAST][:TOFIRST[-TOLAST]]} and
 * exclusions {@code ~FIRST[-LAST]}. Exclusions alone mean every port but those and the ephemeral
 * ones; with ranges, the ranges less the exclusions. ADDR is an IPv4 or IPv6 address written
 * plainly ({@code ::1/8080}; brackets allowed), %IF binds to an interface, and either only for -t
 * and -u: -T and -U listen on the namespace's loopback.
 */
public record PortSpec(Mode mode, List<Range> ranges) {
    /** What an argument asks for. */
    public enum Mode {
        /** Forward nothing. */
        NONE,
        /** Forward what listens on the other side, followed as it changes (pasta's default for all four). */
        AUTO,
        /** Every port but the ephemeral ones (passt's mode; pasta itself refuses it, jslirp takes it). */
        ALL,
        /** The ports listed. */
        SPEC
    }

    /**
     * Ports first..last of the listening side forwarded to toFirst.. of the other, listening on
     * address (null: every address, IPv4 and IPv6) and interface ifname (null: any); from the
     * argument spec. everyPort: from "all" or exclusions alone, where pasta binds what it can and
     * gives up only when no port at all could be bound.
     */
    public record Range(InetAddress address, String ifname, int first, int last, int toFirst, boolean everyPort, String spec) {
        public boolean contains(int port) {
            return port >= first && port <= last;
        }

        /** The port that port goes to. */
        public int to(int port) {
            return toFirst + (port - first);
        }

        @Override
        public String toString() {
            String where = address == null && ifname == null ? ""
                    : (address == null ? "" : Inet.text(address)) + (ifname == null ? "" : "%" + ifname) + "/";
            String from = first == last ? String.valueOf(first) : first + "-" + last;
            String to = toFirst == first ? "" : ":" + (first == last ? String.valueOf(toFirst) : toFirst + "-" + to(last));
            return where + from + to;
        }
    }

    /**
     * The ports the kernel hands out as local ports (net.ipv4.ip_local_port_range), which pasta
     * leaves out of "all" and of exclusions alone: a service is not meant to listen there.
     */
    public record Ephemeral(int first, int last) {
        /** RFC 6335's range, which pasta assumes when it cannot read the kernel's. */
        public static final Ephemeral DEFAULT = new Ephemeral(49152, 65535);
        private static final Path SYSCTL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

        /** The range in ip_local_port_range's text ("32768\t60999\n"), or {@link #DEFAULT} if it does not parse. */
        public static Ephemeral parse(String text) {
            String[] parts = text.trim().split("\\s+");
            try {
                if (parts.length == 2) {
                    int first = Integer.parseInt(parts[0]), last = Integer.parseInt(parts[1]);
                    if (first >= 0 && last <= 65535 && first <= last) return new Ephemeral(first, last);
                }
            } catch (NumberFormatException notNumbers) {
                // as pasta: fall back to RFC 6335
            }
            return DEFAULT;
        }

        /** This machine's range (this network namespace's, as pasta reads it before joining the target's). */
        public static Ephemeral read() {
            try {
                return parse(Files.readString(SYSCTL));
            } catch (IOException e) {
                return DEFAULT;
            }
        }

        public boolean contains(int port) {
            return port >= first && port <= last;
        }
    }

    private static final int PORTS = 65536, IFNAMSIZ = 16;

    /**
     * Reads one argument of option ('t', 'u', 'T' or 'U'). Throws {@link PastaError} with pasta's
     * words: "Invalid port specifier SPEC" or "Overlapping excluded ranges SPEC".
     */
    public static PortSpec parse(char option, String spec, Ephemeral ephemeral) {
        switch (spec) {
            case "none" -> {
                return new PortSpec(Mode.NONE, List.of());
            }
            case "auto" -> {
                return new PortSpec(Mode.AUTO, List.of());
            }
            case "all" -> {
                return new PortSpec(Mode.ALL, everyPort(null, null, new BitSet(), ephemeral, spec));
            }
            default -> {
                return new PortSpec(Mode.SPEC, ranges(option, spec, ephemeral));
            }
        }
    }

    private static List<Range> ranges(char option, String spec, Ephemeral ephemeral) {
        InetAddress address = null;
        String ifname = null;
        String list = spec;
        int slash = spec.indexOf('/');
        if (slash >= 0) {
            if (option != 't' && option != 'u') throw bad(spec);
            String where = spec.substring(0, slash);
            list = spec.substring(slash + 1);
            int percent = where.indexOf('%');
            if (percent >= 0) {
                ifname = where.substring(percent + 1);
                if (ifname.length() >= IFNAMSIZ) throw bad(spec);
                if (ifname.isEmpty()) ifname = null;
                where = where.substring(0, percent);
            }
            if (percent != 0) { // "%IF/..." is an interface without an address
                if (where.length() >= 2 && where.startsWith("[") && where.endsWith("]")) where = where.substring(1, where.length() - 1);
                address = Inet.parse(where);
                if (address == null) throw bad(spec);
            }
        }
        String[] chunks = list.split(",", -1);
        // Exclusions first: they may come after the ranges they cut.
        BitSet excluded = new BitSet(PORTS);
        boolean exclusionsOnly = true;
        for (String chunk : chunks) {
            if (!chunk.startsWith("~")) {
                exclusionsOnly = false;
                continue;
            }
            int[] r = range(chunk.substring(1), spec);
            if (r[2] != chunk.length() - 1) throw bad(spec);
            if (excluded.nextSetBit(r[0]) >= 0 && excluded.nextSetBit(r[0]) <= r[1]) {
                throw new PastaError("Overlapping excluded ranges " + spec);
            }
            excluded.set(r[0], r[1] + 1);
        }
        if (exclusionsOnly) return everyPort(address, ifname, excluded, ephemeral, spec);
        List<Range> out = new ArrayList<>();
        for (String chunk : chunks) {
            if (chunk.startsWith("~")) continue;
            int[] from = range(chunk, spec);
            int[] to = from;
            int end = from[2];
            if (end < chunk.length() && chunk.charAt(end) == ':') {
                to = range(chunk.substring(end + 1), spec);
                if (to[1] - to[0] != from[1] - from[0]) throw bad(spec);
                end += 1 + to[2];
            }
            if (end != chunk.length()) throw bad(spec);
            // The range less its exclusions, as runs of consecutive ports.
            for (int p = from[0]; p <= from[1]; ) {
                if (excluded.get(p)) {
                    p++;
                    continue;
                }
                int runEnd = Math.min(from[1], excluded.nextSetBit(p) < 0 ? from[1] : excluded.nextSetBit(p) - 1);
                out.add(new Range(address, ifname, p, runEnd, to[0] + (p - from[0]), false, spec));
                p = runEnd + 1;
            }
        }
        return out;
    }

    /** Ports 1-65535 but the ephemeral and excluded ones, each to itself (port 0 means "any" to sockets: never). */
    private static List<Range> everyPort(InetAddress address, String ifname, BitSet excluded, Ephemeral ephemeral, String spec) {
        List<Range> out = new ArrayList<>();
        int p = 1;
        while (p < PORTS) {
            if (excluded.get(p) || ephemeral.contains(p)) {
                p++;
                continue;
            }
            int q = p;
            while (q + 1 < PORTS && !excluded.get(q + 1) && !ephemeral.contains(q + 1)) q++;
            out.add(new Range(address, ifname, p, q, p, true, spec));
            p = q + 1;
        }
        return out;
    }

    /**
     * FIRST[-LAST] at the start of text: {first, last, characters read}. Decimal digits only;
     * LAST below FIRST, a port above 65535, or port 0 (which sockets take as "any port") is bad.
     */
    private static int[] range(String text, String spec) {
        int i = digits(text, 0);
        if (i == 0) throw bad(spec);
        int first = port(text.substring(0, i), spec), last = first;
        if (i < text.length() && text.charAt(i) == '-') {
            int j = digits(text, i + 1);
            if (j == i + 1) throw bad(spec);
            last = port(text.substring(i + 1, j), spec);
            i = j;
        }
        if (last < first) throw bad(spec);
        return new int[] {first, last, i};
    }

    private static int digits(String text, int from) {
        int i = from;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') i++;
        return i;
    }

    private static int port(String digits, String spec) {
        long p = digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits);
        if (p < 1 || p >= PORTS) throw bad(spec);
        return (int) p;
    }

    private static PastaError bad(String spec) {
        return new PastaError("Invalid port specifier " + spec);
    }
}
