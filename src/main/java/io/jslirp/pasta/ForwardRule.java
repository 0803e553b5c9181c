package io.jslirp.pasta;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One forwarding rule of pasta's tables, as its control socket carries it (passt's struct fwd_rule,
 * {@link #SIZE} bytes, its ports big-endian; addresses IPv6, an IPv4 one as ::ffff:a.b.c.d):
 *
 * <pre>
 *  offset  size
 *       0    16  addr    the listening address; :: with DUAL_STACK_ANY (both versions' any)
 *      16    16  taddr   the target address on the other side; unspecified: the namespace's own
 *      32    16  ifname  the interface the listening sockets are bound to, NUL-terminated; "": none
 *      48     2  first   the first listening port
 *      50     2  last    the last listening port
 *      52     2  to      the target port of first (first + i goes to to + i)
 *      54     1  proto   6 (TCP) or 17 (UDP)
 *      55     1  flags   DUAL_STACK_ANY 1, WEAK 2 (bound where possible), SCAN 4 (auto: ports
 *                        bound on the other side, as a scan finds them)
 * </pre>
 *
 * A rule read from a client is taken as it is ({@link #read} fails only where the bytes cannot be
 * a rule); {@link #problem} says what pasta's fwd_rule_add would refuse it for.
 */
public record ForwardRule(InetAddress address, InetAddress target, String ifname, int first, int last, int to, int proto, int flags) {
    public static final int SIZE = 56;
    public static final int TCP = 6, UDP = 17;
    public static final int DUAL_STACK_ANY = 1, WEAK = 2, SCAN = 4;
    public static final int IFNAMSIZ = 16;
    private static final int ADDR = 0, TADDR = 16, IFNAME = 32, FIRST = 48, LAST = 50, TO = 52, PROTO = 54, FLAGS = 55;
    private static final InetAddress ANY6 = address(new byte[16]);

    public ForwardRule {
        if (first < 0 || first > 0xffff || last < 0 || last > 0xffff || to < 0 || to > 0xffff) {
            throw new IllegalArgumentException("ports are 16-bit: " + first + "-" + last + ":" + to);
        }
        ifname = ifname == null ? "" : ifname;
    }

    /** A rule listening on address (null: every address of both versions: {@link #DUAL_STACK_ANY}) toward the namespace's own address. */
    public static ForwardRule of(int proto, InetAddress address, String ifname, int first, int last, int to, int flags) {
        return new ForwardRule(address == null ? ANY6 : address, ANY6, ifname, first, last, to,
                proto, flags | (address == null ? DUAL_STACK_ANY : 0));
    }

    /** Reads a rule at buffer's position (which moves on by {@link #SIZE}); null when its interface name is not NUL-terminated. */
    public static ForwardRule read(ByteBuffer b) {
        int at = b.position();
        byte[] name = new byte[IFNAMSIZ];
        b.get(at + IFNAME, name);
        int nul = indexOfNul(name);
        b.position(at + SIZE);
        if (nul < 0) return null;
        return new ForwardRule(address(bytes(b, at + ADDR)), address(bytes(b, at + TADDR)),
                new String(name, 0, nul, StandardCharsets.ISO_8859_1), b.getShort(at + FIRST) & 0xffff,
                b.getShort(at + LAST) & 0xffff, b.getShort(at + TO) & 0xffff, b.get(at + PROTO) & 0xff, b.get(at + FLAGS) & 0xff);
    }

    /** Writes the rule at buffer's position, which moves on by {@link #SIZE}. */
    public void write(ByteBuffer b) {
        int at = b.position();
        b.put(at + ADDR, wire(address));
        b.put(at + TADDR, wire(target));
        byte[] name = Arrays.copyOf(ifname.getBytes(StandardCharsets.ISO_8859_1), IFNAMSIZ);
        b.put(at + IFNAME, name);
        b.putShort(at + FIRST, (short) first).putShort(at + LAST, (short) last).putShort(at + TO, (short) to);
        b.put(at + PROTO, (byte) proto).put(at + FLAGS, (byte) flags);
        b.position(at + SIZE);
    }

    public boolean dualStack() {
        return (flags & DUAL_STACK_ANY) != 0;
    }

    public boolean weak() {
        return (flags & WEAK) != 0;
    }

    public boolean scan() {
        return (flags & SCAN) != 0;
    }

    /** The listening address, null for every address of both versions. */
    public InetAddress listenAddress() {
        return dualStack() ? null : address;
    }

    /** The target address, null for the namespace's own. */
    public InetAddress targetAddress() {
        return target.isAnyLocalAddress() ? null : target;
    }

    /** The target port of listening port port. */
    public int to(int port) {
        return to + (port - first);
    }

    /**
     * What pasta's fwd_rule_add refuses this rule for in a table of capabilities caps (the
     * {@link ControlProtocol} CAP bits) that holds rules already: its words, or null when the
     * rule may be added.
     */
    public String problem(int caps, List<ForwardRule> rules) {
        if (first > last) return "Rule has invalid port range " + first + "-" + last;
        if (first == 0) return "Forwarding rule attempts to map from port 0";
        if (to == 0 || to + last - first > 0xffff) return "Forwarding rule attempts to map to port 0";
        if ((flags & ~(WEAK | SCAN | DUAL_STACK_ANY)) != 0) return "Rule has invalid flags 0x" + Integer.toHexString(flags & ~(WEAK | SCAN | DUAL_STACK_ANY));
        if (dualStack()) {
            if (!address.equals(ANY6)) return "Dual stack rule has non-wildcard address " + Inet.text(address);
            if ((caps & ControlProtocol.CAP_IPV4) == 0) return "Dual stack forward, but IPv4 not enabled";
            if ((caps & ControlProtocol.CAP_IPV6) == 0) return "Dual stack forward, but IPv6 not enabled";
        } else if (address instanceof Inet4Address ? (caps & ControlProtocol.CAP_IPV4) == 0 : (caps & ControlProtocol.CAP_IPV6) == 0) {
            return (address instanceof Inet4Address ? "IPv4" : "IPv6") + " forward, but " + (address instanceof Inet4Address ? "IPv4" : "IPv6")
                    + " not enabled";
        }
        if (proto == TCP ? (caps & ControlProtocol.CAP_TCP) == 0 : proto == UDP ? (caps & ControlProtocol.CAP_UDP) == 0 : true) {
            return proto == TCP ? "Can't add TCP forwarding rule, TCP not enabled" : proto == UDP ? "Can't add UDP forwarding rule, UDP not enabled"
                    : "Unsupported protocol 0x" + Integer.toHexString(proto) + " for forwarding rule";
        }
        if (scan() && (caps & ControlProtocol.CAP_SCAN) == 0) return "'auto' port forwarding is not available here";
        if (!ifname.isEmpty() && (caps & ControlProtocol.CAP_IFNAME) == 0) return "Device binding unsupported";
        if (targetAddress() != null) {
            if (target.isMulticastAddress()) return "Multicast target address " + Inet.text(target) + " for forwarding rule";
            if (dualStack()) return "Dual stack forward to " + version(target) + " address " + Inet.text(target) + " unsupported";
            if ((address instanceof Inet4Address) != (target instanceof Inet4Address)) {
                return "Forward from " + version(address) + " (" + Inet.text(address) + ") to " + version(target) + " ("
                        + Inet.text(target) + ") unsupported";
            }
        }
        for (ForwardRule r : rules) {
            if (conflicts(r)) return "Forwarding configuration conflict: " + this + " versus " + r;
        }
        if (rules.size() >= ControlProtocol.MAX_RULES) return "Too many rules (maximum " + ControlProtocol.MAX_RULES + ")";
        return null;
    }

    /** Whether this rule and other listen on a common port of one protocol on overlapping addresses (pasta's fwd_rule_conflicts). */
    public boolean conflicts(ForwardRule other) {
        if (proto != other.proto) return false;
        if (last < other.first || other.last < first) return false;
        InetAddress a = listenAddress(), b = other.listenAddress();
        if (a == null || b == null) return true;
        if ((a instanceof Inet4Address) != (b instanceof Inet4Address)) return false;
        return a.isAnyLocalAddress() || b.isAnyLocalAddress() || a.equals(b);
    }

    /** As pasta prints a rule: "TCP [*]:8080  =&gt;  8080 ", "UDP [127.0.0.1]%lo:9000-9002  =&gt;  10.0.2.15:1000-1002 (best effort) ". */
    @Override
    public String toString() {
        String p = proto == TCP ? "TCP" : proto == UDP ? "UDP" : "proto " + proto;
        String where = dualStack() ? "*" : Inet.text(address);
        String on = ifname.isEmpty() ? "" : "%" + ifname;
        String toAddress = targetAddress() == null ? "" : Inet.text(target) + ":";
        String ports = first == last ? String.valueOf(first) : first + "-" + last;
        String toPorts = first == last ? String.valueOf(to) : to + "-" + to(last);
        return p + " [" + where + "]" + on + ":" + ports + "  =>  " + toAddress + toPorts + " " + (weak() ? "(best effort)" : "")
                + (scan() ? "(auto-scan)" : "");
    }

    private static String version(InetAddress a) {
        return a instanceof Inet4Address ? "IPv4" : "IPv6";
    }

    private static byte[] bytes(ByteBuffer b, int at) {
        byte[] a = new byte[16];
        b.get(at, a);
        return a;
    }

    private static int indexOfNul(byte[] name) {
        for (int i = 0; i < name.length; i++) if (name[i] == 0) return i;
        return -1;
    }

    /** The address of 16 bytes: an IPv4-mapped one as its IPv4 address. */
    private static InetAddress address(byte[] a) {
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // 16 bytes are always an address
        }
    }

    /** 16 bytes of address: IPv4 as ::ffff:a.b.c.d. */
    private static byte[] wire(InetAddress a) {
        byte[] raw = a.getAddress();
        if (raw.length == 16) return raw;
        byte[] mapped = new byte[16];
        mapped[10] = mapped[11] = (byte) 0xff;
        System.arraycopy(raw, 0, mapped, 12, 4);
        return mapped;
    }
}
