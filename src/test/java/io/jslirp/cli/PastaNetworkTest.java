package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.engine.EngineConfig;
import io.jslirp.pasta.HostNetwork;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.pasta.PortSpec;
import io.jslirp.policy.AddressPlan;
import io.jslirp.sys.Netlink;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** pasta's network model from its options and a host like the test machine's (eth0: 192.0.2.2/24 via .1, fd00::2/64 via fd00::1). */
class PastaNetworkTest {
    private static final HostNetwork HOST = new HostNetwork(
            new HostNetwork.Template("eth0", List.of(p("192.0.2.2", 24)), ip("192.0.2.1"),
                    List.of(Netlink.Route.defaultVia(ip("192.0.2.1")), new Netlink.Route(ip("192.0.2.0"), 24, null, 0)), null),
            new HostNetwork.Template("eth0", List.of(p("fd00::2", 64)), ip("fd00::1"),
                    List.of(new Netlink.Route(ip("::"), 0, ip("fd00::1"), 1024), new Netlink.Route(ip("fd00::"), 64, null, 256)), ip("fe80::1")),
            List.of(ip("10.255.255.53")));

    private static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static HostNetwork.Prefixed p(String a, int n) {
        return new HostNetwork.Prefixed(ip(a), n);
    }

    private static PastaNetwork of(String... args) {
        PastaOptions.Outcome o = PastaOptions.parse("pasta", List.of(args), PortSpec.Ephemeral.DEFAULT, "t");
        assertThat(o).isInstanceOf(PastaOptions.Serve.class);
        return PastaNetwork.of(((PastaOptions.Serve) o).options(), HOST);
    }

    @Test
    void podmansDefaultCopiesTheTemplateAndMapsTheGuestAddress() {
        PastaNetwork n = of("--config-net", "--dns-host", "127.0.0.1", "--dns-forward", "169.254.1.1", "-t", "none", "-u", "none", "-T", "none",
                "-U", "none", "--no-map-gw", "--quiet", "--netns", "/run/netns/x", "--map-guest-addr", "169.254.1.2");
        assertThat(n.ifname()).isEqualTo("eth0");
        assertThat(n.mtu()).isEqualTo(65520);
        assertThat(n.ipv4().guest()).isEqualTo(p("192.0.2.2", 24));
        assertThat(n.ipv4().addresses()).containsExactly(p("192.0.2.2", 24));
        assertThat(n.ipv4().routes()).as("on-link routes first").extracting(Netlink.Route::toString)
                .containsExactly("192.0.2.0/24", "default via 192.0.2.1");
        assertThat(n.ipv4().toLoopback()).as("--no-map-gw").isNull();
        assertThat(n.ipv4().mapGuest()).isEqualTo(ip("169.254.1.2"));
        assertThat(n.ipv4().hostOwn()).isEqualTo(ip("192.0.2.2"));
        assertThat(n.ipv6().guest()).isEqualTo(p("fd00::2", 64));
        assertThat(n.ipv6().gateway()).isEqualTo(ip("fd00::1"));
        assertThat(n.nameservers()).extracting(Object::toString).containsExactly("127.0.0.1");

        EngineConfig c = n.engineConfig(PastaNetwork.PASTA_MAC).build();
        assertThat(c.network().guest()).isEqualTo(Ipv4.parse("192.0.2.2"));
        assertThat(c.network().gateway()).isEqualTo(Ipv4.parse("192.0.2.1"));
        assertThat(c.network().dns()).isEqualTo(Ipv4.parse("169.254.1.1"));
        assertThat(c.network().proxyNeighbours()).isTrue();
        assertThat(c.network().gatewayMac()).isEqualTo(0x9a559a559a55L);
        assertThat(c.ipv6().fixedGuest()).isTrue();
        assertThat(c.ipv6().guestLo()).isEqualTo(Ipv6.parse("fd00::2")[1]);
        assertThat(c.preserveSource()).isTrue();
        assertThat(c.plan4().kind(0, Ipv4.mapped(Ipv4.parse("169.254.1.2")))).isEqualTo(AddressPlan.Kind.MAPPED);
        assertThat(c.plan4().kind(0, Ipv4.mapped(Ipv4.parse("192.0.2.2")))).isEqualTo(AddressPlan.Kind.VIRTUAL);
        assertThat(c.plan4().kind(0, Ipv4.mapped(Ipv4.parse("192.0.2.1")))).isEqualTo(AddressPlan.Kind.HOST);
        assertThat(c.plan4().gateway()).isNull();
    }

    @Test
    void rootlesskitsAddressNetmaskGatewayAndIpv4Only() {
        PastaNetwork n = of("--stderr", "--ns-ifname=tap0", "--mtu=65520", "--config-net", "--address=10.0.2.100", "--netmask=24",
                "--gateway=10.0.2.2", "--dns-forward=10.0.2.3", "--no-map-gw", "--ipv4-only", "--tcp-ports=none", "--udp-ports=none", "1234");
        assertThat(n.ifname()).isEqualTo("tap0");
        assertThat(n.ipv6()).isNull();
        assertThat(n.ipv4().guest()).isEqualTo(p("10.0.2.100", 24));
        assertThat(n.ipv4().addresses()).containsExactly(p("10.0.2.100", 24));
        assertThat(n.ipv4().routes()).extracting(Netlink.Route::toString).containsExactly("default via 10.0.2.2");
        assertThat(n.nameservers()).as("the host's first nameserver").extracting(Object::toString).containsExactly("10.255.255.53");
    }

    /** Each version's --dns-forward address asks its own version's host nameserver first, as pasta's dns_host of each version. */
    @Test
    void nameserversAreKeptPerIpVersion() {
        PastaNetwork n = of("--config-net", "--dns-host", "127.0.0.1", "--dns-host", "::1", "--dns-forward", "169.254.1.1",
                "--dns-forward", "fd00::53", "--netns", "x");
        assertThat(n.nameservers()).extracting(Object::toString).containsExactly("127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(n.nameservers6()).extracting(Object::toString).containsExactly("0:0:0:0:0:0:0:1", "127.0.0.1");
        EngineConfig c = n.engineConfig(PastaNetwork.PASTA_MAC).build();
        assertThat(c.nameservers()).extracting(Object::toString).containsExactly("127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(c.nameservers6()).extracting(Object::toString).containsExactly("0:0:0:0:0:0:0:1", "127.0.0.1");
    }

    @Test
    void theGatewayStandsForLoopbackUnlessToldOtherwise() {
        assertThat(of("--config-net", "--netns", "x").ipv4().toLoopback()).isEqualTo(ip("192.0.2.1"));
        assertThat(of("--config-net", "--netns", "x").ipv6().toLoopback()).isEqualTo(ip("fd00::1"));
        assertThat(of("--config-net", "--map-host-loopback", "169.254.1.3", "--netns", "x").ipv4().toLoopback()).isEqualTo(ip("169.254.1.3"));
        assertThat(of("--config-net", "--netns", "x").nameservers()).as("no --dns-forward, no DNS service").isEmpty();
    }

    @Test
    void versionsAndMtu() {
        assertThat(of("--config-net", "-6", "--netns", "x").ipv4()).isNull();
        assertThat(of("--config-net", "-6", "--netns", "x").ifname()).isEqualTo("eth0");
        assertThat(of("--config-net", "-4", "--netns", "x").ipv6()).isNull();
        assertThat(of("--config-net", "-m", "1000", "--netns", "x").ipv6()).as("IPv6 needs 1280").isNull();
        PastaNetwork a6 = of("--config-net", "-a", "2001:db8::100", "-g", "2001:db8::1", "--netns", "x");
        assertThat(a6.ipv6().addresses()).containsExactly(p("2001:db8::100", 64));
        assertThat(a6.ipv6().routes()).extracting(Netlink.Route::toString).containsExactly("default via 2001:db8::1");
        assertThat(a6.ipv4().guest()).as("IPv4 still copied").isEqualTo(p("192.0.2.2", 24));
        PastaOptions.Outcome o = PastaOptions.parse("pasta", List.of("--config-net", "--netns", "x"), PortSpec.Ephemeral.DEFAULT, "t");
        HostNetwork none = new HostNetwork(null, null, List.of());
        assertThatThrownBy(() -> PastaNetwork.of(((PastaOptions.Serve) o).options(), none)).hasMessageContaining("External interface not usable");
    }

    @Test
    void forwardsListenOnEachVersionTheNamespaceHas() {
        PastaPorts.Context both = new PastaPorts.Context(null, null, null, of("--config-net", "--netns", "x"));
        PastaPorts.Context v4 = new PastaPorts.Context(null, null, null, of("--config-net", "-4", "--netns", "x"));
        assertThat(InboundRules.forwards(both, io.jslirp.forward.PortForward.Protocol.TCP, null, 8080, 0, 80)).extracting(Object::toString)
                .containsExactly("tcp 0.0.0.0/8080:80", "tcp [::]/8080:80");
        assertThat(InboundRules.forwards(v4, io.jslirp.forward.PortForward.Protocol.UDP, null, 53, 0, 53)).extracting(Object::toString)
                .containsExactly("udp 0.0.0.0/53:53");
        assertThat(InboundRules.forwards(v4, io.jslirp.forward.PortForward.Protocol.TCP, ip("::1"), 8080, 0, 80)).as("no IPv6 there").isEmpty();
        assertThat(InboundRules.forwards(both, io.jslirp.forward.PortForward.Protocol.TCP, ip("127.0.0.1"), 8080, 0, 81).getFirst()
                .onDevice("lo")).hasToString("tcp 127.0.0.1%lo/8080:81");
        assertThat(InboundRules.forwards(v4, io.jslirp.forward.PortForward.Protocol.TCP, null, 8080, 0x0a590005, 80)).extracting(Object::toString)
                .as("toward another address of the namespace (a rule's target)").containsExactly("tcp 0.0.0.0/8080:10.89.0.5/80");
    }

    @Test
    void bindFailureReasons() {
        assertThat(TapForwards.reason("cannot listen on 0.0.0.0:80 for forward x: Address already in use (EADDRINUSE)"))
                .isEqualTo("Address already in use");
    }
}
