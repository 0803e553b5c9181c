package io.jslirp.cli;

import io.jslirp.link.TapLink;
import io.jslirp.stack.NetworkConfig;
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
        int[] fds = Tap.openQueues(ifname, TAP_QUEUES, true);
        Tap.offloadTcp(fds[0]);
        if (persistent) Tap.persist(fds[0]);
        // The tap drops what the guest sends once this many frames wait for jslirp in a queue
        // (the tun driver's default is 500): room for a burst of handshakes from many connections,
        // but no deeper. 10,000 let a guest's UDP sender at full speed queue 14 MB, so datagrams
        // reached the host for 100 ms after the sender had stopped. Best effort: a user namespace
        // may not allow it.
        try {
            InterfaceConfig.setTxQueueLength(ifname, TAP_QUEUE_FRAMES);
        } catch (SysException e) {
            Log.debug(e::getMessage);
        }
        return new TapLink(true, fds);
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
