package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 8: jslirp listens on the host only where asked. With no forward it has no listening or
 * unconnected socket in the host's namespace at all; a forward without an address listens on
 * 127.0.0.1 only.
 */
class ExposureIT {
    @Test
    @Timeout(120)
    void nothingListensUnlessAskedAndForwardsBindLoopback() throws Exception {
        ItEnv.assumeJslirp("checks jslirp's own sockets");
        ItEnv.assumeTools("ss");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // free a moment ago: the forward takes it
        }
        try (Namespace ns = Namespace.create();
             Stack.Running plain = Stack.attach(ns, Stack.Options.configured())) {
            assertThat(listening(plain.pid())).as("sockets jslirp listens on with no forward").isEmpty();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running forwarding = Stack.attach(ns, Stack.Options.configured().extra("-t", port + ":80", "-u", port + ":53"))) {
            assertThat(listening(forwarding.pid())).as("sockets jslirp listens on with -t and -u")
                    .containsExactlyInAnyOrder("tcp 127.0.0.1:" + port, "udp 127.0.0.1:" + port);
        }
    }

    /** "tcp ADDR:PORT" / "udp ADDR:PORT" for each listening TCP and unconnected UDP socket of pid and its children. */
    private static List<String> listening(long pid) {
        Cmd.Result ss = Cmd.run(Duration.ofSeconds(10), "ss", "-ltunpH");
        assertThat(ss.exit()).as("%s", ss).isZero();
        List<Long> pids = ProcessHandle.of(pid).map(p -> java.util.stream.Stream.concat(java.util.stream.Stream.of(p), p.descendants())
                .map(ProcessHandle::pid).toList()).orElse(List.of(pid));
        return ss.out().lines()
                .filter(l -> pids.stream().anyMatch(p -> l.contains("pid=" + p + ",")))
                .map(l -> l.split("\\s+"))
                .map(f -> f[0] + " " + f[4])
                .toList();
    }
}
