package io.jslirp.cli;

import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.pasta.ForwardRule;
import io.jslirp.policy.HostAddress;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * pasta's HOST table as jslirp serves it: the rules of -t and -u (host ports to the namespace),
 * each with the engine's forwards it opened. {@link TapForwards} fills it at start; the control
 * socket ({@link PastaControl}) lists it and changes it at run time, opening the forwards of a
 * rule added and closing those of a rule deleted, the rules it keeps untouched (their listening
 * sockets never close). "auto" rules are listed (their ports follow the namespace's) but have no
 * forwards of their own here.
 */
final class InboundRules {
    private record Entry(ForwardRule rule, List<HostForward> forwards) {}

    private final List<Entry> entries = new ArrayList<>();

    void add(ForwardRule rule, List<HostForward> forwards) {
        entries.add(new Entry(rule, List.copyOf(forwards)));
    }

    /** The rules, in the order they were added. */
    List<ForwardRule> rules() {
        return entries.stream().map(Entry::rule).toList();
    }

    /** Closes the forwards of the rule equal to rule and removes it; false when there is none. */
    boolean remove(ForwardRule rule, PastaPorts.Context c) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (!e.rule().equals(rule)) continue;
            e.forwards().forEach(c.engine().transport()::unforward);
            entries.remove(i);
            return true;
        }
        return false;
    }

    /**
     * Opens rule's forwards (on its address, or every address of each version the namespace has;
     * toward its target address, or the namespace's own) and adds it. A port that cannot be bound
     * is skipped for a best-effort rule; for any other, what was opened is closed again and
     * IllegalArgumentException says which port failed and why.
     */
    void open(ForwardRule rule, PastaPorts.Context c) {
        PortForward.Protocol protocol = rule.proto() == ForwardRule.TCP ? PortForward.Protocol.TCP : PortForward.Protocol.UDP;
        int target = rule.targetAddress() == null ? 0 : (int) PastaNetwork.host(rule.targetAddress()).lo();
        List<HostForward> opened = new ArrayList<>();
        for (int port = rule.first(); port <= rule.last(); port++) {
            for (PortForward f : forwards(c, protocol, rule.listenAddress(), port, target, rule.to(port))) {
                try {
                    opened.add(c.engine().transport().forward(rule.ifname().isEmpty() ? f : f.onDevice(rule.ifname())));
                } catch (IllegalArgumentException e) {
                    if (rule.weak()) continue;
                    opened.forEach(c.engine().transport()::unforward);
                    throw new IllegalArgumentException("Failed to bind port " + port + " (" + TapForwards.reason(e.getMessage())
                            + ") for rule " + rule.toString().strip());
                }
            }
        }
        add(rule, opened);
    }

    /**
     * The forwards of one host port: on address, or on each version's any-address the namespace
     * has; toward the namespace's IPv4 address guest4 (0: the namespace's own, and always for IPv6).
     */
    static List<PortForward> forwards(PastaPorts.Context c, PortForward.Protocol protocol, InetAddress address, int port, int guest4, int to) {
        List<PortForward> out = new ArrayList<>();
        if (address != null) {
            boolean v4 = address instanceof Inet4Address;
            if ((v4 ? c.network().ipv4() : c.network().ipv6()) == null) return out; // a version the namespace does not have
            HostAddress h = PastaNetwork.host(address);
            out.add(v4 ? new PortForward(protocol, (int) h.lo(), port, guest4, to) : new PortForward(protocol, 0, h, port, 0, to));
            return out;
        }
        if (c.network().ipv4() != null) out.add(new PortForward(protocol, 0, port, guest4, to));
        if (c.network().ipv6() != null) out.add(new PortForward(protocol, 0, new HostAddress(0, 0), port, 0, to));
        return out;
    }

    /** The listening address of a rule without one: every address of both versions (null) or of the one the namespace has. */
    static InetAddress anyAddress(PastaNetwork network) {
        if (network.ipv4() != null && network.ipv6() != null) return null;
        try {
            return InetAddress.getByName(network.ipv4() != null ? "0.0.0.0" : "::");
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
