package io.jslirp.pasta;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules one of -t, -u, -T, -U stands for in pasta's tables (what its control socket lists):
 * port lists and "all" as runs of consecutive ports with one translation (the last range naming a
 * port decides where it goes, {@link PortForwarding#target}); "all" and exclusions alone best
 * effort; "auto" as every port but the ephemeral ones, scanned. -T and -U listen on the
 * namespace's loopback interface, as pasta's rules say: every address, interface "lo".
 */
public final class RuleTable {
    private RuleTable() {}

    /**
     * The rules of ports (protocol proto: {@link ForwardRule#TCP} or {@link ForwardRule#UDP}); any
     * is the listening address of a range without one (null: both versions' any, with
     * DUAL_STACK_ANY), ephemeral the range auto leaves out.
     */
    public static List<ForwardRule> of(PortForwarding ports, int proto, InetAddress any, PortSpec.Ephemeral ephemeral) {
        List<ForwardRule> rules = new ArrayList<>();
        boolean outbound = Character.isUpperCase(ports.option());
        String loopback = outbound ? "lo" : null;
        switch (ports.mode()) {
            case NONE -> { }
            case AUTO -> {
                int scan = ForwardRule.SCAN | ForwardRule.WEAK;
                if (ephemeral.first() > 1) rules.add(ForwardRule.of(proto, any, loopback, 1, ephemeral.first() - 1, 1, scan));
                if (ephemeral.last() < 65535) {
                    rules.add(ForwardRule.of(proto, any, loopback, ephemeral.last() + 1, 65535, ephemeral.last() + 1, scan));
                }
            }
            case ALL, SPEC -> {
                for (PortSpec.Range r : ports.ranges()) {
                    InetAddress address = r.address() != null ? r.address() : any;
                    String ifname = r.ifname() != null ? r.ifname() : loopback;
                    int flags = r.everyPort() ? ForwardRule.WEAK : 0;
                    int start = r.first(), delta = to(ports, r, start) - start;
                    for (int port = r.first() + 1; port <= r.last() + 1; port++) {
                        if (port <= r.last() && to(ports, r, port) - port == delta) continue;
                        rules.add(ForwardRule.of(proto, address, ifname, start, port - 1, start + delta, flags));
                        if (port <= r.last()) {
                            start = port;
                            delta = to(ports, r, port) - port;
                        }
                    }
                }
            }
        }
        return rules;
    }

    private static int to(PortForwarding ports, PortSpec.Range r, int port) {
        int to = ports.target(port);
        return to < 0 ? r.to(port) : to;
    }
}
