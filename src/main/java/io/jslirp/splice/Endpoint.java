package io.jslirp.splice;

import io.jslirp.sys.HostSockets;

/**
 * One end of a splice: an address and port (hi:lo in {@link HostSockets}' form, IPv4 mapped) in
 * the network namespace whose sockets are sockets (the host's, or a {@code sys.NetnsSockets}).
 */
public record Endpoint(HostSockets sockets, long hi, long lo, int port) {
    /** 127.0.0.1 and ::1 in HostSockets' form. */
    public static final long LOOPBACK4_LO = 0xffff_7f00_0001L, LOOPBACK6_LO = 1;

    public boolean ipv6() {
        return !isMapped(hi, lo);
    }

    /** 127.0.0.1 (or ::1 when ipv6) at port. */
    public static Endpoint loopback(HostSockets sockets, boolean ipv6, int port) {
        return new Endpoint(sockets, 0, ipv6 ? LOOPBACK6_LO : LOOPBACK4_LO, port);
    }

    /** The same address at another port. */
    public Endpoint at(int otherPort) {
        return new Endpoint(sockets, hi, lo, otherPort);
    }

    public static boolean isMapped(long hi, long lo) {
        return hi == 0 && (lo >>> 32) == 0xffff;
    }

    /** Whether hi:lo is a loopback address: 127.0.0.0/8 (mapped) or ::1. */
    public static boolean isLoopback(long hi, long lo) {
        return io.jslirp.forward.LoopbackClients.isLoopback(hi, lo);
    }

    /** The address as text, IPv6 in brackets. */
    static String format(long hi, long lo) {
        if (isMapped(hi, lo)) return ((lo >>> 24) & 0xff) + "." + ((lo >>> 16) & 0xff) + "." + ((lo >>> 8) & 0xff) + "." + (lo & 0xff);
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        try {
            return "[" + java.net.InetAddress.getByAddress(b).getHostAddress() + "]";
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return format(hi, lo) + ":" + port;
    }
}
