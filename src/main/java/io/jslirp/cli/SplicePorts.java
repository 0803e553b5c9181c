package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.engine.HostTransport;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.pasta.ListeningPorts;
import io.jslirp.pasta.PastaError;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.policy.HostAddress;
import io.jslirp.ports.SpliceForwards;
import io.jslirp.splice.Endpoint;
import io.jslirp.splice.Splices;
import io.jslirp.splice.UdpFlows;
import io.jslirp.splice.UdpSplice;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.NetnsSockets;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;

import java.util.ArrayList;
import java.util.List;

/**
 * The port pieces that splice: -T and -U (the namespace's loopback to the host's), "auto" for all
 * four, and the host-loopback clients of every -t and -u forward, spliced into the namespace as
 * pasta does (UDP keeping the client's port where free): to the namespace's own address, or its loopback with --host-lo-to-ns-lo (pasta's old
 * default), so that a service listening on the namespace's loopback alone is not exposed unasked.
 * -t and -u auto open their host ports as the engine's forwards (every address of each version the
 * namespace has), their other clients through the tap. Nothing to splice (every option none, or
 * lists of -t/-u with --no-splice) opens nothing here.
 */
final class SplicePorts implements PastaPorts {
    @Override
    public void open(Context c) throws Exception {
        PastaOptions o = c.options();
        boolean outbound = active(o.tcpNs()) || active(o.udpNs());
        boolean auto = SpliceForwards.scansNamespace(o.tcp(), o.udp()) || SpliceForwards.scansHost(o.tcpNs(), o.udpNs());
        // With a control socket, forwards added at run time splice their loopback clients too.
        boolean control = o.confPath() != null;
        boolean loopbackTcp = !o.noSplice() && (control || active(o.tcp())), loopbackUdp = !o.noSplice() && (control || active(o.udp()));
        if (!outbound && !auto && !loopbackTcp && !loopbackUdp) return;
        Engine engine = c.engine();
        Splices splices = new Splices(engine.loop(), engine.flows());
        NetnsSockets ns = NetnsSockets.open(c.netnsPath());
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            if (loopbackTcp) {
                engine.transport().loopbackClients((fd, client, guestPort) ->
                        splices.splice(HostSockets.SYSTEM, fd, client, intoNamespace(c, ns, Endpoint.isMapped(client[0], client[1]), guestPort),
                                false, true));
            }
            if (loopbackUdp) {
                engine.transport().loopbackDatagrams((sockets, fd, ipv6, guestPort) -> new UdpFlows(splices, sockets, fd,
                        intoNamespace(c, ns, !ipv6, guestPort), false, UdpSplice.DEFAULT_IDLE_NANOS));
            }
            ListeningPorts nsScan = null, hostScan = null;
            if (SpliceForwards.scansNamespace(o.tcp(), o.udp())) {
                nsScan = ns.call(ListeningPorts::here);
                opened.add(nsScan);
            }
            if (SpliceForwards.scansHost(o.tcpNs(), o.udpNs())) {
                hostScan = ListeningPorts.here();
                opened.add(hostScan);
            }
            SpliceForwards forwards = new SpliceForwards(engine.loop(), splices, HostSockets.SYSTEM, ns, hostScan, nsScan,
                    o.tcp(), o.udp(), o.tcpNs(), o.udpNs(), UdpSplice.DEFAULT_IDLE_NANOS, tapInbound(c));
            opened.add(0, forwards);
            forwards.start();
        } catch (PastaError e) {
            closeAll(opened, splices, ns);
            throw new IllegalArgumentException(e.getMessage());
        } catch (RuntimeException e) {
            closeAll(opened, splices, ns);
            throw e;
        }
        engine.atShutdown(() -> {
            if (Log.debugEnabled()) Log.debug(splices::summary);
            closeAll(opened, splices, ns);
        });
    }

    private static boolean active(io.jslirp.pasta.PortForwarding f) {
        return f.mode() != io.jslirp.pasta.PortSpec.Mode.NONE;
    }

    /** Where a host-loopback client of -t goes in the namespace: its address of the client's version, or its loopback. */
    private static Endpoint intoNamespace(Context c, NetnsSockets ns, boolean ipv4, int port) {
        PastaNetwork.Side side = ipv4 ? c.network().ipv4() : c.network().ipv6();
        if (c.options().hostLoToNsLo() || side == null) return Endpoint.loopback(ns, !ipv4, port);
        HostAddress a = PastaNetwork.host(side.guest().address());
        return new Endpoint(ns, a.hi(), a.lo(), port);
    }

    /** -t and -u auto's host ports: the engine's forwards on every address of each version the namespace has. */
    private static SpliceForwards.Inbound tapInbound(Context c) {
        HostTransport transport = c.engine().transport();
        return new SpliceForwards.Inbound() {
            @Override
            public AutoCloseable tcp(int hostPort, int nsPort) {
                return open(PortForward.Protocol.TCP, hostPort, nsPort);
            }

            @Override
            public AutoCloseable udp(int hostPort, int nsPort) {
                return open(PortForward.Protocol.UDP, hostPort, nsPort);
            }

            private AutoCloseable open(PortForward.Protocol protocol, int hostPort, int nsPort) {
                List<HostForward> bound = new ArrayList<>();
                RuntimeException failure = null;
                for (PortForward f : InboundRules.forwards(c, protocol, null, hostPort, 0, nsPort)) {
                    try {
                        bound.add(transport.forward(f));
                    } catch (IllegalArgumentException e) {
                        failure = e;
                    }
                }
                if (bound.isEmpty()) throw failure != null ? failure : new SysException("no IP version to forward port " + hostPort, 0);
                return () -> bound.forEach(transport::unforward);
            }
        };
    }

    private static void closeAll(List<AutoCloseable> opened, Splices splices, NetnsSockets ns) {
        for (AutoCloseable a : opened) {
            try {
                a.close();
            } catch (Exception e) {
                Log.warn("closing port forwards: " + e);
            }
        }
        opened.clear();
        splices.close();
        ns.close();
    }
}
