package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A host connect that fails reaches the guest as a router would report it, at once. */
class ConnectErrorsIT {
    private static final Duration T = Duration.ofSeconds(30);

    /** A closed host port: the guest's connection is reset (RST), not left to time out. */
    @Test
    @Timeout(60)
    void closedHostPortIsRefusedAtOnce() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(Duration.ofSeconds(20), "curl", "-sS", "--connect-timeout", "5",
                    "http://" + Namespace.GATEWAY + ":" + port + "/");
            // 7 = could not connect (refused); 28 would be a timeout
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isEqualTo(7);
            assertThat(r.took()).as("refusal must be immediate").isLessThan(Duration.ofSeconds(3));
            assertThat(stack.alive()).as(stack.describe()).isTrue();
        }
    }

    /**
     * Unreachable networks and hosts, and a host firewall's refusal, come back to the guest as
     * ICMP destination unreachable: its connect fails at once with the errno a real network
     * gives. The stack's host side runs in a second namespace made here, with no default route,
     * an "unreachable" route and a "prohibit" route, so the host connects fail locally and
     * nothing is sent anywhere.
     */
    @Test
    @Timeout(90)
    void unreachableNetworksAndHostsAreReportedByIcmp() throws Exception {
        ItEnv.assumeStack();
        String noRoute = "203.0.113.1", unreachable = "192.0.2.1", prohibited = "198.51.100.1";
        try (Namespace hostSide = Namespace.create(); Namespace ns = Namespace.create()) {
            assertThat(hostSide.exec(T, "ip", "route", "add", "unreachable", "192.0.2.0/24").exit()).isZero();
            assertThat(hostSide.exec(T, "ip", "route", "add", "prohibit", "198.51.100.0/24").exit()).isZero();
            for (String a : List.of(noRoute, unreachable, prohibited)) ns.allowEgress(a);
            Stack.Options options = Stack.Options.configured();
            try (Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))))) {
                stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
                String script = """
                        import errno, socket, sys
                        for a in sys.argv[1:]:
                            s = socket.socket()
                            s.settimeout(10)
                            try:
                                s.connect((a, 80))
                                print(a, "connected")
                            except socket.timeout:
                                print(a, "timeout")
                            except OSError as e:
                                print(a, errno.errorcode.get(e.errno, e.errno))
                        """;
                Cmd.Result r = ns.exec(T, ItEnv.python(), "-c", script, noRoute, unreachable, prohibited);
                System.out.printf("[%s] connect errors: %s (%d ms)%n", Stack.Kind.selected(), r.out().strip().replace('\n', ','), r.took().toMillis());
                assertThat(r.exit()).as("%s", r).isZero();
                assertThat(r.out()).as("%s\n%s", r, stack.describe())
                        .contains(noRoute + " ENETUNREACH")
                        .contains(unreachable + " EHOSTUNREACH");
                if (Stack.Kind.selected() == Stack.Kind.JSLIRP) {
                    // slirp4netns reports every error but EHOSTUNREACH as "network unreachable"
                    assertThat(r.out()).contains(prohibited + " EHOSTUNREACH");
                }
                assertThat(stack.alive()).as(stack.describe()).isTrue();
                assertThat(r.took()).as("the errors must come at once, not after the guest's SYN retries").isLessThan(Duration.ofSeconds(8));
            }
        }
    }
}
