package io.jslirp.pasta;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * What one of -t, -u, -T, -U asks for over all its occurrences, as pasta combines them: none, auto
 * or all once, or any number of port lists. -t and -u forward host ports to the namespace, -T and
 * -U ports of the namespace's loopback to the host. Unset, each is auto.
 */
public final class PortForwarding {
    private final char option;
    private PortSpec.Mode mode; // null: not given
    private final List<PortSpec.Range> ranges = new ArrayList<>();
    private final List<String> specs = new ArrayList<>();
    private final BitSet mapped = new BitSet(65536);

    PortForwarding(char option) {
        this.option = option;
    }

    /**
     * Adds one argument as conf_ports() does, in its order of checks. Throws {@link PastaError}:
     * "Port forwarding mode 'none' conflicts with previous mode", "Specific ports cannot be
     * specified together with all/none/auto", "TCP port forwarding requested but TCP is disabled",
     * or {@link PortSpec#parse}'s. A port mapped again is remapped, with pasta's warning.
     */
    void add(String spec, boolean protocolDisabled, PortSpec.Ephemeral ephemeral, List<String> warnings) {
        boolean keyword = spec.equals("none") || spec.equals("auto") || spec.equals("all");
        if (spec.equals("none") && mode != null) throw conflict(spec);
        if (!spec.equals("none") && protocolDisabled) {
            String protocol = Character.toLowerCase(option) == 't' ? "TCP" : "UDP";
            throw new PastaError(protocol + " port forwarding requested but " + protocol + " is disabled");
        }
        if (keyword && mode != null) throw conflict(spec);
        if (!keyword && mode != null && mode != PortSpec.Mode.SPEC) {
            throw new PastaError("Specific ports cannot be specified together with all/none/auto");
        }
        PortSpec parsed = PortSpec.parse(option, spec, ephemeral);
        mode = parsed.mode();
        specs.add(spec);
        boolean remapped = false;
        for (PortSpec.Range r : parsed.ranges()) {
            int clash = mapped.nextSetBit(r.first());
            if (!r.everyPort() && clash >= 0 && clash <= r.last()) remapped = true;
            mapped.set(r.first(), r.last() + 1);
            ranges.add(r);
        }
        if (remapped) warnings.add("Altering mapping of already mapped port number: " + spec);
    }

    private static PastaError conflict(String spec) {
        return new PastaError("Port forwarding mode '" + spec + "' conflicts with previous mode");
    }

    /** 't', 'u', 'T' or 'U'. */
    public char option() {
        return option;
    }

    /** The mode, {@link PortSpec.Mode#AUTO} when the option was not given (pasta's default). */
    public PortSpec.Mode mode() {
        return mode == null ? PortSpec.Mode.AUTO : mode;
    }

    /** Whether the option was given; pasta's rule that UDP follows TCP's ports applies to both set and unset auto. */
    public boolean isSet() {
        return mode != null;
    }

    /** The ranges of "all" or of the port lists, in their order; later ones decide a port's target. */
    public List<PortSpec.Range> ranges() {
        return List.copyOf(ranges);
    }

    /** The arguments given, in order. */
    public List<String> specs() {
        return List.copyOf(specs);
    }

    /**
     * Where a connection to port goes (for "all" and port lists): the translation of the last range
     * that names it. pasta keeps one translation per port, so with "-t 127.0.0.1/80:8080 -t
     * 192.0.2.2/80:9090" both listeners go to 9090. -1 if no range names it (and for none and auto,
     * whose ports map to themselves as the scan finds them).
     */
    public int target(int port) {
        for (int i = ranges.size() - 1; i >= 0; i--) {
            PortSpec.Range r = ranges.get(i);
            if (r.contains(port)) return r.to(port);
        }
        return -1;
    }

    /** The ports "all" or the lists forward (a copy): for auto's scan of the other direction, ports not to take. */
    public BitSet ports() {
        return (BitSet) mapped.clone();
    }

    /** pasta's words when a port of a list cannot be bound: setup fails. */
    public String bindFailure(int port, String reason, String spec) {
        return "Failed to bind port " + port + " (" + reason + ") for option '-" + option + " " + spec + "', exiting";
    }

    /** pasta's words when "all" or exclusions alone bound no port at all (single ports may fail there). */
    public String bindNoneFailure(String spec) {
        return "Failed to bind any port for '-" + option + " " + spec + "', exiting";
    }

    /** pasta's words when descriptors ran out (EMFILE, ENFILE) while binding spec. */
    public static String descriptorsFailure(String spec) {
        return "Can't open enough sockets for port specifier: " + spec;
    }

    @Override
    public String toString() {
        return "-" + option + " " + (mode == null ? "auto (unset)" : mode == PortSpec.Mode.SPEC ? ranges.toString() : mode.name().toLowerCase());
    }
}
