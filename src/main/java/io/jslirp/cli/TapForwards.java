package io.jslirp.cli;

import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.pasta.ForwardRule;
import io.jslirp.pasta.PortForwarding;
import io.jslirp.pasta.PortSpec;
import io.jslirp.pasta.RuleTable;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * -t and -u with port lists or "all": host ports forwarded through the tap to the namespace's own
 * address (its latest, of the client's IP version), through the engine's forward listeners. A
 * range without an address listens on every address of each version the namespace has (0.0.0.0,
 * and :: with IPV6_V6ONLY); %IF binds the sockets to that interface. A listed port that cannot be bound ends the setup in pasta's words;
 * of "all" and exclusions alone, whatever can be bound is, and only none at all is an error.
 * "none" opens nothing; "auto" is another piece's. Each rule goes into the HOST table
 * ({@link InboundRules}) with its forwards, for the control socket.
 */
final class TapForwards implements PastaPorts {
    @Override
    public void open(Context c) {
        forward(c, c.options().tcp(), PortForward.Protocol.TCP);
        forward(c, c.options().udp(), PortForward.Protocol.UDP);
    }

    private static void forward(Context c, PortForwarding ports, PortForward.Protocol protocol) {
        PortSpec.Mode mode = ports.mode();
        if (mode != PortSpec.Mode.SPEC && mode != PortSpec.Mode.ALL) return;
        // The forwards opened, by listening address, interface and port: the rules' keys below.
        Map<String, List<HostForward>> opened = new HashMap<>();
        InetAddress any = InboundRules.anyAddress(c.network());
        for (PortSpec.Range r : ports.ranges()) {
            InetAddress listen = r.address() != null ? r.address() : any;
            int bound = 0;
            String failure = null;
            for (int port = r.first(); port <= r.last(); port++) {
                int to = ports.target(port);
                for (PortForward f : InboundRules.forwards(c, protocol, r.address(), port, 0, to < 0 ? r.to(port) : to)) {
                    try {
                        opened.computeIfAbsent(key(listen, r.ifname(), port), k -> new ArrayList<>())
                                .add(c.engine().transport().forward(r.ifname() == null ? f : f.onDevice(r.ifname())));
                        bound++;
                    } catch (IllegalArgumentException e) {
                        String reason = reason(e.getMessage());
                        if (!r.everyPort()) {
                            throw new IllegalArgumentException(isDescriptors(reason) ? PortForwarding.descriptorsFailure(r.spec())
                                    : ports.bindFailure(port, reason, r.spec()));
                        }
                        if (isDescriptors(reason)) throw new IllegalArgumentException(PortForwarding.descriptorsFailure(r.spec()));
                        failure = reason;
                    }
                }
            }
            if (r.everyPort() && bound == 0 && failure != null) throw new IllegalArgumentException(ports.bindNoneFailure(r.spec()));
        }
        // The table the control socket lists: each rule with the forwards of its ports (a port
        // two ranges name on one address is listed under both, its forwards under the first).
        int proto = protocol == PortForward.Protocol.TCP ? ForwardRule.TCP : ForwardRule.UDP;
        for (ForwardRule rule : RuleTable.of(ports, proto, any, PortSpec.Ephemeral.DEFAULT)) {
            List<HostForward> its = new ArrayList<>();
            for (int port = rule.first(); port <= rule.last(); port++) {
                List<HostForward> f = opened.remove(key(rule.listenAddress(), rule.ifname(), port));
                if (f != null) its.addAll(f);
            }
            c.inbound().add(rule, its);
        }
    }

    /** A listening socket's address (null: both versions' any), interface (null or "": any) and port, as one key. */
    private static String key(InetAddress address, String ifname, int port) {
        return (address == null ? "*" : address.getHostAddress()) + "%" + (ifname == null ? "" : ifname) + ":" + port;
    }

    /** "Address already in use" from "cannot listen on ...: Address already in use (EADDRINUSE)". */
    static String reason(String message) {
        String m = message == null ? "" : message;
        int colon = m.lastIndexOf(": ");
        if (colon >= 0) m = m.substring(colon + 2);
        return m.replaceAll(" \\(E[A-Z0-9]+\\)$", "");
    }

    private static boolean isDescriptors(String reason) {
        return reason.startsWith("Too many open files");
    }
}
