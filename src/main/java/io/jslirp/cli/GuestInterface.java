package io.jslirp.cli;

import io.jslirp.link.TapLink;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.Errno;
import io.jslirp.sys.InterfaceConfig;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;
import io.jslirp.sys.Tap;
import io.jslirp.wire.Mac;

/** The guest's tap device, created (and with --configure set up) from inside its network namespace. */
final class GuestInterface {
    static final int TAP_QUEUE_FRAMES = 1000;
    /**
     * Queues of the tap device: flows are dealt out over them, so a bulk transfer's backlog
     * delays the flows on other queues by one batch at most, not by its whole queue.
     */
    static final int TAP_QUEUES = 8;

    private GuestInterface() {}

    /**
     * Creates the tap device in the calling thread's network namespace, with vnet headers and TCP
     * offloads (the guest hands over 64 KiB segments without checksums), and returns its link.
     * A persistent device stays when the link closes, until its namespace goes.
     */
    static TapLink open(String ifname, boolean persistent) {
        int[] fds;
        try {
            fds = Tap.openQueues(ifname, TAP_QUEUES, true);
        } catch (Tap.TunUnusable e) {
            throw new IllegalStateException(tunUnusable(e, tunMode()), e);
        } catch (SysException e) {
            if (e.errno() != Errno.EPERM) throw e;
            throw new IllegalStateException(e.getMessage() + ": jslirp needs CAP_NET_ADMIN over the network namespace;"
                    + " run it as root or as the user whose user namespace owns the network namespace", e);
        }
        Tap.offloadTcp(fds[0]);
        if (persistent) Tap.persist(fds[0]);
        else if (madeByLauncher(ifname)) Tap.persist(fds[0], false); // it goes with jslirp, as slirp4netns's does
        // The tap drops what the guest sends once this many frames wait for jslirp in a queue
        // (the tun driver's default is 500): room for a burst of handshakes from many connections,
        // but no deeper: a deep queue let a guest's UDP sender at full speed keep megabytes waiting,
        // which reached the host long after the sender had stopped (docs/benchmarks.md). Best
        // effort: a user namespace may not allow it.
        try {
            InterfaceConfig.setTxQueueLength(ifname, TAP_QUEUE_FRAMES);
        } catch (SysException e) {
            Log.debug(e::getMessage);
        }
        return new TapLink(true, fds);
    }

    /**
     * The one line that says why /dev/net/tun cannot be used and how to fix it; mode is the
     * device's permissions (e.g. "rw-------") or null when it cannot be read.
     */
    static String tunUnusable(Tap.TunUnusable e, String mode) {
        String why = e.getMessage();
        if (e.errno() == Errno.ENOENT || e.errno() == Errno.ENODEV) {
            return why + ": the kernel's tun driver is missing (modprobe tun, as root)";
        }
        if (e.errno() == Errno.EACCES || e.errno() == Errno.EPERM) {
            return why + ": " + Tap.CLONE_DEVICE + (mode == null ? "" : " is mode " + mode + ", so")
                    + " this user may not open it; most distributions let everyone: chmod 0666 " + Tap.CLONE_DEVICE
                    + " (as root; a udev rule KERNEL==\"tun\", MODE=\"0666\" keeps it)";
        }
        return why;
    }

    private static String tunMode() {
        try {
            return java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(
                    java.nio.file.Path.of(Tap.CLONE_DEVICE)));
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The environment variable naming the tap device the launcher created for {@code attach}
     * before the JVM started (scripts/attach-target.sh): persistent until jslirp has it open.
     */
    static final String LAUNCHER_TAP = "JSLIRP_LAUNCHER_TAP";

    /** Whether the launcher created ifname (rather than finding it, e.g. made by rootlesskit). */
    static boolean madeByLauncher(String ifname) {
        return ifname.equals(System.getenv(LAUNCHER_TAP));
    }

    /**
     * Removes the device the launcher created, from the calling thread's network namespace, when
     * jslirp stops before serving it (its arguments were refused): nothing of it stays behind.
     * Best effort.
     */
    static void removeLaunchersTap(String ifname) {
        if (!madeByLauncher(ifname)) return;
        try {
            int[] fds = Tap.openQueues(ifname, TAP_QUEUES, true);
            Tap.persist(fds[0], false);
            for (int fd : fds) io.jslirp.sys.Libc.close(fd);
        } catch (RuntimeException e) {
            Log.debug(e::getMessage);
        }
    }

    /**
     * In the calling thread's network namespace, brings up lo and the device with the guest
     * address and a default route via the gateway, as slirp4netns --configure does (guestMac -1:
     * the kernel's).
     */
    static void configure(String ifname, NetworkConfig network, long guestMac) {
        InterfaceConfig.setUp("lo");
        if (guestMac >= 0) InterfaceConfig.setMac(ifname, Mac.toBytes(guestMac));
        InterfaceConfig.setMtu(ifname, network.mtu());
        InterfaceConfig.setIpv4(ifname, network.guest(), network.prefixLength());
        InterfaceConfig.setUp(ifname);
        InterfaceConfig.addDefaultRoute(network.gateway());
    }
}
