package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any argument list (records, {@link Seeds#arguments}) as pasta's command line
 * ({@link PastaOptions#parse}: getopt's rules, pasta's messages). Nothing throws; the outcome
 * is options to serve, or an exit: 0 with its text (--help, --version on stdout; pasta answers
 * --print-capabilities on stderr), or 1 with
 * nothing on stdout and pasta's message (getopt's naming the program, pasta's own as passt words
 * them: "Invalid address: ...") on stderr.
 */
class PastaOptionsJazzerTest {
    @FuzzTest(maxDuration = "4s")
    void badArgumentsExitWithPastasMessage(byte[] input) {
        PastaOptions.Outcome o = PastaOptionsTest.parse(Seeds.arguments(input).toArray(String[]::new));
        if (o instanceof PastaOptions.Exit e) {
            assertThat(e.status()).as("exit status").isIn(0, 1);
            if (e.status() == 0) {
                assertThat(e.stdout() + e.stderr()).as("--help, --version or --print-capabilities (on stderr, as pasta)").isNotBlank();
            } else {
                assertThat(e.stdout()).isEmpty();
                assertThat(e.stderr().lines().findFirst()).as("stderr: %s", e.stderr()).hasValueSatisfying(l -> assertThat(l).isNotBlank());
            }
        } else {
            assertThat(o).isInstanceOf(PastaOptions.Serve.class);
        }
    }

    /** Command lines as Podman and RootlessKit give them (PastaOptionsTest's), and a few bad ones. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Seeds.write(getClass(), "badArgumentsExitWithPastasMessage", Seeds.commandLines(List.of(
                List.of("--config-net", "--dns-forward", "169.254.1.1", "-t", "none", "-u", "none", "-T", "none", "-U", "none",
                        "--no-map-gw", "--quiet", "--netns", "/run/user/1000/netns/netns-5c3e", "--map-guest-addr", "169.254.1.2"),
                List.of("--config-net", "-t", "8080-8080:80-80", "-t", "::1/9090-9091:90-91", "-u", "5353-5353:53-53",
                        "--dns-forward", "169.254.1.1", "-T", "none", "-U", "none", "--no-map-gw", "--quiet", "--pid", "/run/conn.pid",
                        "--netns", "/run/user/1000/netns/netns-1", "--map-guest-addr", "169.254.1.2"),
                List.of("--stderr", "--ns-ifname=tap0", "--mtu=65520", "--config-net", "--address=10.0.2.100", "--netmask=24",
                        "--gateway=10.0.2.2", "--dns-forward=10.0.2.3", "--no-map-gw", "--ipv4-only", "--tcp-ports=auto",
                        "--udp-ports=none", "--host-lo-to-ns-lo", "4242"),
                List.of("--config-net", "--userns=/proc/77/ns/user", "--netns=/proc/77/ns/net", "--tcp-ports=none"),
                List.of("--confi", "--netns-o", "--map-g", "192.0.2.9", "--dns-f=192.0.2.53", "--sock", "/tmp/s", "--mt", "1280x"),
                List.of("-fqd", "-t80:8080", "-fu", "53", "-m1500", "-P", "-q"),
                List.of("-4", "-6", "--pid", "a", "-m", "1280", "-q", "-d", "-a", "192.0.2.7", "-a", "2001:db8::7", "--netmask", "255.255.0.0"),
                List.of("-t", "127.0.0.1%lo/8082:80", "-u", "4000-4002", "-T", "auto", "-U", "~5353", "-c", "/tmp/control"),
                List.of("--config-net", "ip", "-6", "route"), List.of("--", "123"), List.of("--m", "1"), List.of("--help"),
                List.of("--version"), List.of("--bogus"), List.of("-t"))));
    }
}
