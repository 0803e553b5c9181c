package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jslirp run} resolves names on a host whose resolver is on loopback (systemd-resolved's
 * 127.0.0.53 on Ubuntu and Fedora), which the command's network namespace cannot reach: the
 * command gets a resolv.conf naming the DNS address 10.0.2.3, with the host's search domains and
 * options, and its lookups go through jslirp to the host's nameserver. The "host" here is a
 * private mount namespace whose /etc/resolv.conf names a dnsmasq on 127.0.0.2 that the test starts.
 */
class RunDnsIT {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void aLookupInsideRunGoesThroughTheDnsAddressToALoopbackResolver() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns's shim leaves the command the host's resolv.conf");
        ItEnv.assumeTools("dnsmasq", "getent");
        String resolver = "127.0.0.2";
        Path hostResolvConf = tmp.resolve("resolv.conf");
        Files.writeString(hostResolvConf, "# the host's\nnameserver " + resolver + "\nsearch jslirp.internal\noptions timeout:2 attempts:2\n");
        Files.setPosixFilePermissions(hostResolvConf, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = DnsIT.startDnsmasq(List.of(), resolver, log);
        try {
            DnsIT.awaitResolver(resolver, dnsmasq, log);
            String inside = "cat /etc/resolv.conf; echo LOOKUP; getent ahostsv4 jslirp.test";
            String host = "mount --bind " + hostResolvConf + " /etc/resolv.conf && exec "
                    + String.join(" ", Stack.runCommand(List.of(), List.of("sh", "-c", "'" + inside + "'")));
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90), "unshare", "--mount", "--propagation", "private", "sh", "-c", host);
            assertThat(r.exit()).as("%s\ndnsmasq: %s", r, Files.readString(log)).isZero();
            String resolvConf = r.out().substring(0, r.out().indexOf("LOOKUP"));
            assertThat(resolvConf.lines().filter(l -> l.startsWith("nameserver")).toList()).containsExactly("nameserver 10.0.2.3");
            assertThat(resolvConf).contains("search jslirp.internal\n").contains("options timeout:2 attempts:2\n");
            assertThat(r.out()).as("%s\ndnsmasq: %s", r, Files.readString(log)).containsPattern("(?m)^192\\.0\\.2\\.7\\s+STREAM jslirp\\.test");
            assertThat(Files.readString(log)).as("the query reached the host's resolver").contains("query[A] jslirp.test");
            String mine = Files.readString(Path.of("/etc/resolv.conf"));
            assertThat(mine).as("the test's own /etc/resolv.conf is untouched").doesNotContain("10.0.2.3");
        } finally {
            DnsIT.stop(dnsmasq);
        }
    }
}
