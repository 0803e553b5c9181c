package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * For tests of forwarded-port clients from another machine: a namespace for the stack's host side
 * and one for the client, joined by a veth pair with an address at each end, each allowed to send
 * to the other (nothing there reaches the real network).
 */
final class RemoteClient implements AutoCloseable {
    private static final Duration T = Duration.ofSeconds(30);

    final Namespace hostSide;
    final Namespace client;

    /** IPv4 addresses on a /24, or with ipv6 IPv6 addresses on a /64. */
    RemoteClient(boolean ipv6, String hostSideAddress, String clientAddress) {
        hostSide = ipv6 ? Namespace.createWithIpv6() : Namespace.create();
        Namespace c = null;
        try {
            c = ipv6 ? Namespace.createWithIpv6() : Namespace.create();
            Cmd.Result veth = Cmd.run(T, "bash", "-c", "set -e; ip link add jslirp-hs0 netns " + hostSide.pid()
                    + " type veth peer name jslirp-cl0 netns " + c.pid());
            assertThat(veth.exit()).as("%s", veth).isZero();
            String prefix = ipv6 ? "/64" : "/24", options = ipv6 ? " nodad" : ""; // no duplicate address detection to wait for
            addressAndUp(hostSide, "jslirp-hs0", hostSideAddress + prefix, options);
            addressAndUp(c, "jslirp-cl0", clientAddress + prefix, options);
            if (ipv6) {
                c.allowEgress6(hostSideAddress);
                hostSide.allowEgress6(clientAddress);
            } else {
                c.allowEgress(hostSideAddress);
                hostSide.allowEgress(clientAddress);
            }
        } catch (RuntimeException | Error e) {
            if (c != null) c.close();
            hostSide.close();
            throw e;
        }
        client = c;
    }

    private static void addressAndUp(Namespace ns, String ifname, String address, String options) {
        Cmd.Result r = ns.bash(T, "ip addr add " + address + " dev " + ifname + options + " && ip link set " + ifname + " up");
        assertThat(r.exit()).as("%s", r).isZero();
    }

    /** Runs probe until it succeeds with some output (the forwards open once the tap is configured), at most 50 times. */
    static Cmd.Result retry(Supplier<Cmd.Result> probe) {
        Cmd.Result r = null;
        for (int i = 0; i < 50; i++) {
            r = probe.get();
            if (r.exit() == 0 && !r.out().isBlank()) break;
            Namespace.sleep(100);
        }
        return r;
    }

    /** Each line of lines with prefix and a space in front. */
    static String prefixed(String prefix, String lines) {
        StringBuilder b = new StringBuilder();
        for (String line : lines.strip().split("\n")) b.append(prefix).append(' ').append(line).append('\n');
        return b.toString();
    }

    @Override
    public void close() {
        client.close();
        hostSide.close();
    }
}
