package io.jslirp.host;

import io.jslirp.wire.Ipv4;

import java.util.List;

/**
 * {@code --allow} and {@code --deny}: which host destinations the guest may reach. A destination
 * in a denied network is refused; when any network is allowed, so is every destination outside
 * them. Checked once per new flow, so a linear scan is enough.
 */
public final class DestinationRules {
    public static final DestinationRules NONE = new DestinationRules(List.of(), List.of());

    /** An IPv4 network in CIDR notation. */
    public record Network(int address, int prefixLength) {
        /** Parses A.B.C.D/N (N 0-32) or a single A.B.C.D; throws IllegalArgumentException naming the bad text. */
        public static Network parse(String text) {
            int slash = text.indexOf('/');
            int prefix = 32;
            if (slash >= 0) {
                String p = text.substring(slash + 1);
                if (p.isEmpty() || p.length() > 2 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 32) {
                    throw new IllegalArgumentException("not an IPv4 network (A.B.C.D/0-32): " + text);
                }
                prefix = Integer.parseInt(p);
            }
            int address = Ipv4.parse(slash >= 0 ? text.substring(0, slash) : text);
            return new Network(address & Ipv4.netmask(prefix), prefix);
        }

        boolean contains(int a) {
            return (a & Ipv4.netmask(prefixLength)) == address;
        }

        @Override
        public String toString() {
            return Ipv4.format(address) + "/" + prefixLength;
        }
    }

    private final Network[] allowed, denied;

    public DestinationRules(List<Network> allowed, List<Network> denied) {
        this.allowed = allowed.toArray(Network[]::new);
        this.denied = denied.toArray(Network[]::new);
    }

    /** Whether the guest may reach host destination address (IPv4, host order). */
    public boolean permits(int address) {
        for (Network n : denied) if (n.contains(address)) return false;
        if (allowed.length == 0) return true;
        for (Network n : allowed) if (n.contains(address)) return true;
        return false;
    }
}
