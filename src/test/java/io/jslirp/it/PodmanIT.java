package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Rootless Podman (4.3 on Debian 12, 5.4 on Debian 13: both still have slirp4netns and
 * {@code --network-cmd-path}) of an ordinary user ({@link TestUser}) with jslirp as its slirp4netns
 * ({@code --network-cmd-path=<the user's copy>/bin/slirp4netns}), for each {@code --network
 * slirp4netns:...} option a container can see: the gateway to the host's loopback with {@code
 * allow_host_loopback=true} and closed without; {@code mtu=} and {@code cidr=} on the container's
 * interface; {@code enable_ipv6=true} (an address by SLAAC, and the host's ::1 through fd00::2);
 * and a published port through {@code port_handler=slirp4netns} (jslirp's API socket).
 * The user, its image and Podman's options: {@link PodmanFixture}.
 */
class PodmanIT {
    private static final String IMAGE = PodmanFixture.IMAGE;
    private static final Duration T = Duration.ofSeconds(90);
    private static TestUser user;

    @BeforeAll
    static void createUserAndImage() throws Exception {
        ItEnv.assumeJslirp("Podman runs jslirp's bin/slirp4netns");
        user = PodmanFixture.create();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    /** The podman command line with the options these machines need and jslirp as slirp4netns. */
    private static List<String> podman(String... args) {
        List<String> c = new ArrayList<>(PodmanFixture.podman(user, "--network-cmd-path=" + user.install().resolve("bin/slirp4netns")));
        c.addAll(List.of(args));
        return c;
    }

    /** {@code podman run --rm} of a shell script in the image with {@code --network slirp4netns:OPTIONS}. */
    private static Cmd.Result container(String options, String script) {
        return user.run(T, podman("run", "--rm", "--pull=never", "--network", "slirp4netns" + (options.isEmpty() ? "" : ":" + options),
                IMAGE, "sh", "-c", script));
    }

    @Test
    @Timeout(120)
    void allowHostLoopbackOpensTheGatewayToTheHost() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = container("allow_host_loopback=true", "wget -O- '" + http.guestUrl("/small") + "'");
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }

    /** Podman's default (slirp4netns --disable-host-loopback): a connection to the gateway fails at once. */
    @Test
    @Timeout(120)
    void withoutAllowHostLoopbackTheGatewayRefusesTheHost() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = container("", "wget -O- '" + http.guestUrl("/small") + "'; echo \"WGET=$?\"");
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).doesNotContain(HttpBlobServer.SMALL_BODY).contains("WGET=1");
            assertThat(r.err()).as("%s", r).contains("can't connect to remote host");
        }
    }

    @Test
    @Timeout(120)
    void mtuAndCidrConfigureTheContainersInterface() {
        Cmd.Result r = container("mtu=1400,cidr=10.5.0.0/24",
                "ip -o link show dev tap0; ip -o -4 addr show dev tap0; ip -4 route show default");
        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(r.out()).as("%s", r).contains(" mtu 1400 ").contains("inet 10.5.0.100/24").contains("default via 10.5.0.2 dev tap0");
    }

    /**
     * {@code enable_ipv6=true}: tap0 takes an fd00::/64 address from jslirp's Router Advertisements,
     * and fd00::2 is the host's ::1 (with allow_host_loopback=true). Only fd00::2 is addressed.
     */
    @Test
    @Timeout(120)
    void enableIpv6GivesAnAddressBySlaacAndTheHostsIpv6Loopback() throws Exception {
        try (HttpBlobServer http = new HttpBlobServer(InetAddress.getByName("::1"))) {
            Cmd.Result r = container("enable_ipv6=true,allow_host_loopback=true", """
                    for i in $(seq 100); do ip -6 -o addr show dev tap0 scope global | grep -q 'inet6 fd00:' && break; sleep 0.1; done
                    ip -6 -o addr show dev tap0 scope global | awk '{print "ADDR " $4}'
                    wget -O- 'http://[%s]:%d/small'
                    """.formatted(Namespace.GATEWAY6, http.port()));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out().lines().filter(l -> l.startsWith("ADDR ")).toList()).as("%s", r)
                    .singleElement().asString().matches("ADDR fd00::[0-9a-f:]+/64");
            assertThat(r.out()).as("%s", r).endsWith(HttpBlobServer.SMALL_BODY);
        }
    }

    /**
     * {@code -p 127.0.0.1:PORT:80} with {@code port_handler=slirp4netns}: Podman adds the forward
     * through jslirp's API socket, jslirp listens on the host (ss names the listener's process) and
     * busybox httpd in the container answers curl on the host.
     */
    @Test
    @Timeout(120)
    void aPublishedPortThroughTheSlirp4netnsPortHandler() throws Exception {
        int port = ApiSocketIT.freePort();
        String page = "published by jslirp " + System.nanoTime();
        Cmd.Result started = user.run(T, podman("run", "-d", "--name", "web", "--pull=never", "-p", "127.0.0.1:" + port + ":80",
                "--network", "slirp4netns:port_handler=slirp4netns", IMAGE,
                "sh", "-c", "echo '" + page + "' >/www/index.html && exec httpd -f -p 80 -h /www"));
        try {
            assertThat(started.exit()).as("%s", started).isZero();
            Cmd.Result r = RootlessIT.fetchFromHost("http://127.0.0.1:" + port + "/", () -> true);
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).isEqualTo(page + "\n");
            Cmd.Result listener = Cmd.run(T, "ss", "-Hltnp", "sport = :" + port);
            assertThat(listener.out()).as("%s", listener).contains("127.0.0.1:" + port).contains("\"java\"");
        } finally {
            user.run(T, podman("rm", "-f", "-t", "0", "web"));
        }
    }

    /** An ELF file without a PT_INTERP program header (no dynamic loader). */
    static boolean isStatic(Path elf) throws IOException {
        try (FileChannel ch = FileChannel.open(elf)) {
            ByteBuffer h = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(h, 0);
            if (h.getInt(0) != 0x464c457f || h.get(4) != 2) return false; // "\177ELF", 64-bit
            long phoff = h.getLong(0x20);
            int size = Short.toUnsignedInt(h.getShort(0x36)), count = Short.toUnsignedInt(h.getShort(0x38));
            ByteBuffer ph = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < count; i++) {
                ch.read(ph.clear(), phoff + (long) i * size);
                if (ph.getInt(0) == 3) return false; // PT_INTERP
            }
            return true;
        }
    }
}
