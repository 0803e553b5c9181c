package io.jslirp.ports;

import io.jslirp.loop.Reactor;
import io.jslirp.loop.Timer;
import io.jslirp.pasta.AutoPorts;
import io.jslirp.pasta.ListeningPorts;
import io.jslirp.pasta.PastaError;
import io.jslirp.pasta.PortForwarding;
import io.jslirp.pasta.PortSpec;
import io.jslirp.splice.SpliceListener;
import io.jslirp.splice.Splices;
import io.jslirp.splice.UdpSplice;
import io.jslirp.sys.Errno;
import io.jslirp.sys.HostSockets;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * pasta's port forwards that splice, and "auto" for all four options. -T and -U listen on the
 * namespace's loopback (127.0.0.1 and ::1) and splice each client to the host's loopback, at the
 * same or the translated port; -T/-U auto forward the ports bound on the host. -t and -u auto
 * forward the ports bound in the namespace, each opened on the host by the {@link Inbound} (its
 * loopback clients spliced to the namespace's loopback, the others through the tap). Both scans
 * run every {@link #SCAN_NANOS} on the loop (sock_diag: a dump of the listening sockets only),
 * each leaving out what the other direction forwards, as pasta's fwd_scan_ports does.
 */
public final class SpliceForwards implements AutoCloseable {
    /** pasta rescans once a second; a sock_diag dump costs microseconds, so four times as often. */
    public static final long SCAN_NANOS = 250_000_000L;

    /** Opens a host port forwarded into the namespace (-t, -u): host port to the namespace's port. */
    public interface Inbound {
        AutoCloseable tcp(int hostPort, int nsPort);

        AutoCloseable udp(int hostPort, int nsPort);
    }

    private final Reactor loop;
    private final Splices splices;
    private final HostSockets host, ns;
    private final ListeningPorts hostScan, nsScan;
    private final PortForwarding t, u, tOut, uOut;
    private final long udpIdleNanos;
    private final PortFollower tAuto, uAuto, tOutAuto, uOutAuto;
    private final List<AutoCloseable> fixed = new ArrayList<>();
    private final Timer scan = new Timer(this::scan);
    private long scans;

    /**
     * t, u, tOut, uOut: -t, -u, -T, -U as parsed; hostScan and nsScan: the listening sockets of
     * the host and the namespace (either may be null when no option of its direction is auto);
     * host and ns: sockets made in each; inbound: how -t and -u auto open a host port.
     */
    public SpliceForwards(Reactor loop, Splices splices, HostSockets host, HostSockets ns, ListeningPorts hostScan, ListeningPorts nsScan,
                      PortForwarding t, PortForwarding u, PortForwarding tOut, PortForwarding uOut, long udpIdleNanos, Inbound inbound) {
        this.loop = loop;
        this.splices = splices;
        this.host = host;
        this.ns = ns;
        this.hostScan = hostScan;
        this.nsScan = nsScan;
        this.t = t;
        this.u = u;
        this.tOut = tOut;
        this.uOut = uOut;
        this.udpIdleNanos = udpIdleNanos;
        this.tAuto = auto(t) ? new PortFollower("-t auto", p -> inbound.tcp(p, p)) : null;
        this.uAuto = auto(u) ? new PortFollower("-u auto", p -> inbound.udp(p, p)) : null;
        this.tOutAuto = auto(tOut) ? new PortFollower("-T auto", p -> outboundTcp(p, p)) : null;
        this.uOutAuto = auto(uOut) ? new PortFollower("-U auto", p -> outboundUdp(p, p)) : null;
    }

    /** The Inbound of splices alone: every client of a host port (on every address) spliced to the namespace's loopback. */
    public static Inbound spliced(Reactor loop, Splices splices, HostSockets host, HostSockets ns, long udpIdleNanos,
                                  SpliceListener.Others tcpOthers, UdpSplice.Others udpOthers) {
        return new Inbound() {
            @Override
            public AutoCloseable tcp(int hostPort, int nsPort) {
                return Pair.tcp(loop, splices, host, true, hostPort, ns, nsPort, tcpOthers);
            }

            @Override
            public AutoCloseable udp(int hostPort, int nsPort) {
                return Pair.udp(loop, splices, host, true, hostPort, ns, nsPort, udpIdleNanos, udpOthers);
            }
        };
    }

    /** Whether the option asks for auto (pasta's default when unset). */
    public static boolean auto(PortForwarding f) {
        return f != null && f.mode() == PortSpec.Mode.AUTO;
    }

    /** Whether a scan of the host (-T or -U auto) or of the namespace (-t or -u auto) is needed. */
    public static boolean scansHost(PortForwarding tOut, PortForwarding uOut) {
        return auto(tOut) || auto(uOut);
    }

    public static boolean scansNamespace(PortForwarding t, PortForwarding u) {
        return auto(t) || auto(u);
    }

    /**
     * Opens -T's and -U's lists and "all", and runs the first scan: everything is listening when
     * this returns. Throws {@link PastaError} with pasta's words when a listed port cannot be bound.
     */
    public void start() {
        openFixed(tOut, true);
        openFixed(uOut, false);
        scan();
    }

    private void openFixed(PortForwarding f, boolean tcp) {
        if (f == null || (f.mode() != PortSpec.Mode.SPEC && f.mode() != PortSpec.Mode.ALL)) return;
        for (PortSpec.Range r : f.ranges()) {
            boolean bound = false;
            for (int p = r.first(); p <= r.last(); p++) {
                int to = f.target(p);
                try {
                    fixed.add(tcp ? outboundTcp(p, to) : outboundUdp(p, to));
                    bound = true;
                } catch (SysException e) {
                    if (Errno.isDescriptorLimit(e.errno())) throw new PastaError(PortForwarding.descriptorsFailure(r.spec()));
                    if (!r.everyPort()) throw new PastaError(f.bindFailure(p, Errno.describe(e.errno()), r.spec()));
                }
            }
            if (r.everyPort() && !bound && r == f.ranges().get(f.ranges().size() - 1) && fixed.isEmpty()) {
                throw new PastaError(f.bindNoneFailure(r.spec()));
            }
        }
    }

    private AutoCloseable outboundTcp(int nsPort, int hostPort) {
        return Pair.tcp(loop, splices, ns, false, nsPort, host, hostPort, null);
    }

    private AutoCloseable outboundUdp(int nsPort, int hostPort) {
        return Pair.udp(loop, splices, ns, false, nsPort, host, hostPort, udpIdleNanos, null);
    }

    /** One scan of both sides, then the next in {@link #SCAN_NANOS}. */
    private void scan() {
        scans++;
        try {
            if (tAuto != null || uAuto != null) {
                BitSet tcp = nsScan.tcp();
                if (tAuto != null) tAuto.follow(AutoPorts.tcp(tcp, reverse(tOutAuto, tOut)));
                if (uAuto != null) uAuto.follow(AutoPorts.udp(nsScan.udp(), tcp, reverse(uOutAuto, uOut), reverse(tOutAuto, tOut)));
            }
            if (tOutAuto != null || uOutAuto != null) {
                BitSet tcp = hostScan.tcp();
                if (tOutAuto != null) tOutAuto.follow(AutoPorts.tcp(tcp, reverse(tAuto, t)));
                if (uOutAuto != null) uOutAuto.follow(AutoPorts.udp(hostScan.udp(), tcp, reverse(uAuto, u), reverse(tAuto, t)));
            }
        } catch (RuntimeException e) {
            Log.warn("port scan failed: " + e.getMessage());
        }
        loop.schedule(scan, loop.clock().now() + SCAN_NANOS);
    }

    /** What the other direction forwards: its followed ports when auto, else its lists' ports (none: nothing). */
    private static BitSet reverse(PortFollower auto, PortForwarding f) {
        if (auto != null) return auto.view();
        return f == null ? new BitSet() : f.ports();
    }

    /** Scans run so far. */
    public long scans() {
        return scans;
    }

    /** The ports -t, -u, -T, -U auto forward now (empty when not auto). */
    public BitSet autoPorts(char option) {
        PortFollower f = switch (option) {
            case 't' -> tAuto;
            case 'u' -> uAuto;
            case 'T' -> tOutAuto;
            case 'U' -> uOutAuto;
            default -> throw new IllegalArgumentException("option " + option);
        };
        return f == null ? new BitSet() : f.ports();
    }

    @Override
    public void close() {
        loop.schedule(scan, Long.MAX_VALUE);
        for (PortFollower f : new PortFollower[] {tAuto, uAuto, tOutAuto, uOutAuto}) if (f != null) f.close();
        for (AutoCloseable c : fixed) {
            try {
                c.close();
            } catch (Exception e) {
                Log.warn("closing a forward: " + e);
            }
        }
        fixed.clear();
    }
}
