package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jslirp.check.Shell;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Needs root: configures a tap device in a throwaway network namespace (it goes with the thread
 * that made it), then reads the result with ip -j from outside through nsenter.
 */
class NetlinkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeEach
    void requireRoot() throws IOException {
        Assumptions.assumeTrue(Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.matches("Uid:\\s+0\\s.*")), "needs root");
    }

    /** What the namespace thread did: where to find it, and the messages of the refusals it provoked. */
    record Configured(int pid, int tid, int tapIndex, int loIndex, List<String> errors) {}

    @Test
    void configuresAddressesRoutesAndTheLinkInTheCallersNamespace() throws Exception {
        CompletableFuture<Configured> ready = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("netlink-test").start(() -> {
            int tap = -1;
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET);
                tap = Tap.open("jtap0");
                try (Netlink nl = Netlink.open()) {
                    Netlink.Link link = nl.link("jtap0");
                    Netlink.Link lo = nl.link("lo");
                    nl.setMtu(link, 65520);
                    nl.setUp(link);
                    nl.setUp(lo);
                    nl.addAddress(link, ip("198.51.100.2"), 24);
                    nl.addAddress(link, ip("198.51.100.9"), 32);
                    nl.addAddress(link, ip("2001:db8::2"), 64);
                    nl.addRoute(link, Netlink.Route.defaultVia(ip("198.51.100.1")));
                    nl.addRoute(link, new Netlink.Route(ip("203.0.113.0"), 24, ip("198.51.100.7"), 50));
                    nl.addRoute(link, new Netlink.Route(ip("192.0.2.0"), 28, null, 0));
                    nl.addRoute(link, Netlink.Route.defaultVia(ip("2001:db8::1")));
                    nl.addRoute(link, new Netlink.Route(ip("2001:db8:1::"), 48, null, 300));

                    List<String> errors = new ArrayList<>();
                    errors.add(SysExceptions.messageOf(() -> nl.link("nosuch0")));
                    errors.add(SysExceptions.messageOf(() -> nl.addAddress(link, ip("198.51.100.2"), 24)));
                    errors.add(SysExceptions.messageOf(() -> nl.addRoute(link, Netlink.Route.defaultVia(ip("10.9.9.9")))));
                    errors.add(SysExceptions.messageOf(() -> nl.addRoute(link, new Netlink.Route(ip("203.0.113.0"), 24, ip("198.51.100.7"), 50))));
                    errors.add(SysExceptions.messageOf(() -> nl.setMtu(link, 70000)));
                    ready.complete(new Configured(Libc.getpid(), Libc.gettid(), link.index(), lo.index(), errors));
                }
                done.await();
            } catch (Throwable e) {
                ready.completeExceptionally(e);
            } finally {
                if (tap >= 0) Libc.close(tap);
            }
        });
        try {
            Configured c = ready.get(30, TimeUnit.SECONDS);
            String netns = "--net=/proc/" + c.pid() + "/task/" + c.tid() + "/ns/net";

            JsonNode link = ipJson(netns, "-j", "addr", "show", "jtap0").get(0);
            assertThat(link.get("ifindex").asInt()).isEqualTo(c.tapIndex());
            assertThat(link.get("mtu").asInt()).isEqualTo(65520);
            assertThat(texts(link.get("flags"))).contains("UP");
            List<String> addrs = new ArrayList<>();
            for (JsonNode a : link.get("addr_info")) {
                if (a.get("scope").asText().equals("link")) continue;
                addrs.add(a.get("local").asText() + "/" + a.get("prefixlen").asInt()
                        + (a.has("broadcast") ? " brd " + a.get("broadcast").asText() : "")
                        + (a.path("nodad").asBoolean() ? " nodad" : ""));
            }
            assertThat(addrs).containsExactlyInAnyOrder("198.51.100.2/24 brd 198.51.100.255", "198.51.100.9/32", "2001:db8::2/64 nodad");
            assertThat(texts(ipJson(netns, "-j", "link", "show", "lo").get(0).get("flags"))).contains("UP");
            assertThat(c.loIndex()).isEqualTo(1);

            // ip leaves out "proto boot", its own default.
            assertThat(routes(ipJson(netns, "-j", "-4", "route"))).containsExactlyInAnyOrder(
                    "default via 198.51.100.1 dev jtap0",
                    "192.0.2.0/28 dev jtap0 scope link",
                    "198.51.100.0/24 dev jtap0 proto kernel scope link",
                    "203.0.113.0/24 via 198.51.100.7 dev jtap0 metric 50");
            assertThat(routes(ipJson(netns, "-j", "-6", "route"))).contains(
                    "default via 2001:db8::1 dev jtap0 metric 1024",
                    "2001:db8:1::/48 dev jtap0 metric 300",
                    "2001:db8::/64 dev jtap0 proto kernel metric 256");

            assertThat(c.errors()).containsExactly(
                    "find interface nosuch0: No such device (ENODEV)",
                    "add address 198.51.100.2/24 to jtap0: File exists (EEXIST)",
                    "add route default via 10.9.9.9 dev jtap0: Network is unreachable (ENETUNREACH)",
                    "add route 203.0.113.0/24 via 198.51.100.7 dev jtap0: File exists (EEXIST)",
                    "set MTU 70000 on jtap0: Invalid argument (EINVAL)");
            assertThat(Shell.run("ip", "-o", "link")).doesNotContain("jtap0");
        } finally {
            done.countDown();
            t.join();
        }
    }

    @Test
    void aRouteMustMatchItsGatewaysVersion() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Netlink.Route(ip("::"), 0, ip("192.0.2.1"), 0))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Netlink.Route(ip("10.0.0.0"), 33, null, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Netlink.Route.defaultVia(ip("fd00::1")).destination()).isEqualTo(ip("::"));
    }

    private static List<String> routes(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode r : array) {
            String s = r.get("dst").asText() + (r.has("gateway") ? " via " + r.get("gateway").asText() : "")
                    + " dev " + r.get("dev").asText() + (r.has("protocol") ? " proto " + r.get("protocol").asText() : "")
                    + (r.has("scope") ? " scope " + r.get("scope").asText() : "")
                    + (r.has("metric") ? " metric " + r.get("metric").asInt() : "");
            out.add(s);
        }
        return out;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static JsonNode ipJson(String netns, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("nsenter", netns, "ip"));
        command.addAll(List.of(args));
        return JSON.readTree(Shell.run(command.toArray(String[]::new)));
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal); // a literal: no lookup
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
