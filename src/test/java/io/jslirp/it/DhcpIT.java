package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Contract item 2: udhcpc on an unconfigured tap is offered 10.0.2.15, router 10.0.2.2, DNS 10.0.2.3. */
class DhcpIT {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void udhcpcGetsTheDefaultLease() throws Exception {
        ItEnv.assumeStack();
        String udhcpc = ItEnv.which("udhcpc") != null ? "udhcpc" : null;
        if (udhcpc == null) ItEnv.assumeTools("busybox");
        Path script = tmp.resolve("udhcpc.script");
        Files.writeString(script, """
                #!/bin/sh
                case "$1" in
                  bound|renew) echo "LEASE ip=$ip router=$router dns=$dns mtu=$mtu lease=$lease subnet=$subnet" ;;
                esac
                exit 0
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));

        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.unconfigured())) {
            assertThat(ns.exec(Duration.ofSeconds(10), "ip", "link", "set", "tap0", "up").exit()).isZero();
            String cmd = (udhcpc != null ? "udhcpc" : "busybox udhcpc")
                    + " -i tap0 -f -q -n -t 5 -T 2 -O mtu -s " + script;
            Cmd.Result r = ns.bash(Duration.ofSeconds(60), cmd);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            String line = r.out().lines().filter(l -> l.startsWith("LEASE ")).findFirst().orElse(null);
            assertThat(line).as("lease line in %s", r).isNotNull();
            Map<String, String> lease = new HashMap<>();
            for (String kv : line.substring(6).split(" ")) {
                int i = kv.indexOf('=');
                if (i > 0) lease.put(kv.substring(0, i), kv.substring(i + 1));
            }
            System.out.println("[" + Stack.Kind.selected() + "] " + line);
            assertThat(lease.get("ip")).isEqualTo("10.0.2.15");
            assertThat(lease.get("router")).isEqualTo(Namespace.GATEWAY);
            assertThat(lease.getOrDefault("dns", "").split(" ")[0]).isEqualTo(Namespace.DNS);
            assertThat(lease.get("subnet")).isEqualTo("255.255.255.0");
            assertThat(stack.alive()).as(stack.describe()).isTrue();
        }
    }
}
