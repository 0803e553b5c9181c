package io.jslirp.cli;

import io.jslirp.forward.PortForward;
import io.jslirp.pasta.PortForwarding;
import io.jslirp.pasta.PortSpec;
import io.jslirp.policy.HostAddress;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * -t and -u with port lists or "all": host ports forwarded through the tap to the namespace's own
 * address (its latest, of the client's IP version), through the engine's forward listeners. A
 * range without an address listens on every address of each version the namespace has (0.0.0.0,
 * and :: with IPV6_V6ONLY); %IF binds the sockets to that interface. A listed port that cannot be bound ends the setup in pasta's words;
 * of "all" and exclusions alone, whatever can be bound is, and only none at all is an error.
 * "none" opens nothing; "auto" is another piece's.
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
        for (PortSpec.Range r : ports.ranges()) {
            int bound = 0;
            String failure = null;
            for (int port = r.first(); port <= r.last(); port++) {
                int to = ports.target(port);
                for (PortForward f : forwards(c, protocol, r.address(), port, to < 0 ? r.to(port) : to)) {
                    try {
                        c.engine().transport().forward(r.ifname() == null ? f : f.onDevice(r.ifname()));
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
    }

    /** The forwards of one host port: on address, or on each version's any-address the namespace has. */
    static List<PortForward> forwards(Context c, PortForward.Protocol protocol, InetAddress address, int port, int to) {
        List<PortForward> out = new ArrayList<>();
        if (address != null) {
            boolean v4 = address instanceof Inet4Address;
            if ((v4 ? c.network().ipv4() : c.network().ipv6()) == null) return out; // a version the namespace does not have
            HostAddress h = PastaNetwork.host(address);
            out.add(v4 ? new PortForward(protocol, (int) h.lo(), port, 0, to) : new PortForward(protocol, 0, h, port, 0, to));
            return out;
        }
        if (c.network().ipv4() != null) out.add(new PortForward(protocol, 0, port, 0, to));
        if (c.network().ipv6() != null) out.add(new PortForward(protocol, 0, new HostAddress(0, 0), port, 0, to));
        return out;
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
