package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contract item 8: {@code jslirp run -- COMMAND} runs COMMAND in a new user+network namespace
 * behind the stack and exits with its status (as an ordinary user: {@link RootlessIT}).
 * Against slirp4netns these run through a test-only shim (unshare + slirp4netns) to validate the tests.
 */
class RunCommandIT {
    @Test
    @Timeout(120)
    void exitStatusOfTheCommandIsPassedOn() {
        ItEnv.assumeStack();
        Cmd.Result r = Cmd.run(Duration.ofSeconds(90), Stack.runCommand(List.of(), List.of("sh", "-c", "exit 7")));
        assertThat(r.timedOut()).as("%s", r).isFalse();
        assertThat(r.exit()).as("%s", r).isEqualTo(7);
    }

    @Test
    @Timeout(120)
    void curlInsideRunReachesTheHostThroughTheGateway() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90),
                    Stack.runCommand(List.of(), List.of("curl", "-sS", "--max-time", "30", http.guestUrl("/small"))));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }

    /** {@code run --enable-ipv6}: the command's namespace gets its address by SLAAC and reaches host ::1 through fd00::2. */
    @Test
    @Timeout(120)
    void curlOverIpv6InsideRun() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the slirp4netns shim takes only --mtu");
        ItEnv.assumeTools("curl");
        try (HttpBlobServer http = new HttpBlobServer(java.net.InetAddress.getByName("::1"))) {
            String script = "for i in $(seq 100); do ip -6 -o addr show dev tap0 | grep -q 'inet6 fd00::.*dynamic' "
                    + "&& ! ip -6 -o addr show dev tap0 | grep -q tentative && break; sleep 0.1; done; "
                    + "curl -6 -sS --max-time 30 'http://[fd00::2]:" + http.port() + "/small'";
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90), Stack.runCommand(List.of("--enable-ipv6"), List.of("sh", "-c", script)));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }
}
