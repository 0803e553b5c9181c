package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contract item 3: the gateway answers ping; other hosts are pinged through the host's
 * unprivileged ICMP sockets ("ping sockets"), when net.ipv4.ping_group_range allows them; over
 * IPv6 too, through ICMPv6 ping sockets, which the same range allows.
 */
class PingIT {
    private static final Duration T = Duration.ofSeconds(30);
    private static final String REMOTE = "192.0.2.1", REMOTE6 = "2001:db8::1";
    /** An address the host side has no route to. */
    private static final String NO_ROUTE = "203.0.113.1", NO_ROUTE6 = "2001:db8:3::1";
    /** The guest's echo identifier: ping counts a reply only when it carries this one. */
    private static final String ID = "4660";

    @Test
    @Timeout(60)
    void gatewayAnswersPing() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ping");
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(T, "ping", "-c", "3", "-W", "2", Namespace.GATEWAY);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out()).contains("3 packets transmitted, 3 received");
        }
    }

    /**
     * A host beyond the virtual network answers the guest's ping with the guest's own echo
     * identifier (the host's ping socket has another one; jslirp puts the guest's back). The
     * stack's host side runs in a namespace made here, where 192.0.2.1 is a local address and
     * no other has a route, so nothing leaves the machine. An address without a route gets a
     * "net unreachable" from the gateway.
     */
    @Test
    @Timeout(90)
    void remoteHostAnswersPingWithTheGuestsIdentifier() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns needs ping sockets the same way, but its id handling is not under test");
        ItEnv.assumeTools("ping");
        try (Namespace hostSide = remoteHostNamespace("0 2147483647"); Namespace ns = Namespace.create()) {
            ns.allowEgress(REMOTE);
            ns.allowEgress(NO_ROUTE);
            try (Stack.Running stack = attachFrom(hostSide, ns)) {
                Cmd.Result r = ns.exec(T, "ping", "-e", ID, "-c", "3", "-i", "0.2", "-W", "2", REMOTE);
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                assertThat(r.out()).contains("3 packets transmitted, 3 received");
                Cmd.Result gateway = ns.exec(T, "ping", "-c", "1", "-W", "2", Namespace.GATEWAY);
                assertThat(gateway.out()).as("%s", gateway).contains("1 received");
                Cmd.Result noRoute = ns.exec(T, "ping", "-c", "1", "-W", "2", NO_ROUTE);
                assertThat(noRoute.out()).as("the host's error comes back from the gateway: %s", noRoute)
                        .contains("From " + Namespace.GATEWAY).contains("Destination Net Unreachable");
                Map<String, Long> counters = stack.stop().counters();
                assertThat(counters.get("ping_flows")).as("one host socket for the guest's ping session: %s", counters).isEqualTo(1L);
            }
        }
    }

    /**
     * The same over IPv6: a host beyond the router answers through an ICMPv6 ping socket, with the
     * guest's identifier put back, and an address without a route gets ICMPv6 "no route" from the
     * gateway. The host side runs in a namespace made here, where 2001:db8::1 is a local address.
     */
    @Test
    @Timeout(120)
    void remoteHostAnswersPingOverIpv6WithTheGuestsIdentifier() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns relays no IPv6 ping");
        ItEnv.assumeTools("ping");
        try (Namespace hostSide = Namespace.createWithIpv6(); Namespace ns = Namespace.createWithIpv6()) {
            Cmd.Result setUp = hostSide.bash(T, "ip -6 addr add " + REMOTE6 + "/128 dev lo nodad"
                    + " && sysctl -q -w net.ipv4.ping_group_range='0 2147483647'");
            assertThat(setUp.exit()).as("%s", setUp).isZero();
            ns.allowEgress6(REMOTE6);
            ns.allowEgress6(NO_ROUTE6);
            Stack.Options options = Stack.Options.configured().enableIpv6();
            try (Stack.Running stack = attachFrom(hostSide, ns, options)) {
                Ipv6IT.awaitSlaac(ns, stack);
                Cmd.Result r = ns.exec(T, "ping", "-6", "-e", ID, "-c", "3", "-i", "0.2", "-W", "2", REMOTE6);
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                assertThat(r.out()).contains("3 packets transmitted, 3 received");
                Cmd.Result gateway = ns.exec(T, "ping", "-6", "-c", "1", "-W", "2", Namespace.GATEWAY6);
                assertThat(gateway.out()).as("%s", gateway).contains("1 received");
                Cmd.Result noRoute = ns.exec(T, "ping", "-6", "-c", "1", "-W", "2", NO_ROUTE6);
                assertThat(noRoute.out()).as("the host's error comes back from the gateway: %s", noRoute)
                        .contains("From " + Namespace.GATEWAY6).contains("No route");
                Map<String, Long> counters = stack.stop().counters();
                assertThat(counters.get("ping_flows")).as("one host socket for the guest's ping session: %s", counters).isEqualTo(1L);
            }
        }
    }

    /**
     * With ping sockets refused (ping_group_range "1 0", the kernel's default), only the gateway
     * answers, and jslirp says once why and how to allow them.
     */
    @Test
    @Timeout(90)
    void withoutPingSocketsOnlyTheGatewayAnswers() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the log line is jslirp's");
        ItEnv.assumeTools("ping");
        try (Namespace hostSide = remoteHostNamespace("1 0"); Namespace ns = Namespace.create()) {
            ns.allowEgress(REMOTE);
            try (Stack.Running stack = attachFrom(hostSide, ns)) {
                Cmd.Result remote = ns.exec(T, "ping", "-c", "2", "-i", "0.2", "-W", "1", REMOTE);
                assertThat(remote.exit()).as("%s", remote).isNotZero();
                assertThat(remote.out()).contains("0 received");
                Cmd.Result gateway = ns.exec(T, "ping", "-c", "2", "-i", "0.2", "-W", "2", Namespace.GATEWAY);
                assertThat(gateway.out()).as("%s\n%s", gateway, stack.describe()).contains("2 received");
                String stderr = stack.stop().stderr();
                assertThat(stderr.lines().filter(l -> l.contains("ping_group_range"))).as("one line says why: %s", stderr).hasSize(1);
            }
        }
    }

    /** A namespace for jslirp's host side where REMOTE is a local address, with the given ping_group_range. */
    private static Namespace remoteHostNamespace(String pingGroupRange) {
        Namespace hostSide = Namespace.create();
        try {
            Cmd.Result r = hostSide.bash(T, "ip addr add " + REMOTE + "/32 dev lo && sysctl -q -w net.ipv4.ping_group_range='" + pingGroupRange + "'");
            assertThat(r.exit()).as("%s", r).isZero();
            return hostSide;
        } catch (RuntimeException | Error e) {
            hostSide.close();
            throw e;
        }
    }

    private static Stack.Running attachFrom(Namespace hostSide, Namespace ns) {
        return attachFrom(hostSide, ns, Stack.Options.configured());
    }

    private static Stack.Running attachFrom(Namespace hostSide, Namespace ns, Stack.Options options) {
        Stack.Running stack = Stack.start(hostSide.inside(Stack.attachCommand(options, Long.toString(ns.pid()))));
        try {
            stack.awaitConfigured(ns, options.ifname, Duration.ofSeconds(90));
            return stack;
        } catch (RuntimeException | Error e) {
            stack.close();
            throw e;
        }
    }
}
