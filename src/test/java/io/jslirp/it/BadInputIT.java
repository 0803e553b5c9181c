package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Contract item 9 (jslirp only): bad command lines fail with a non-zero exit and exactly one line on stderr. */
class BadInputIT {
    @Test
    @Timeout(180)
    void badCommandLinesGiveOneLineAndNonZeroExit() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("error-message format is jslirp's own contract");
        String bin = Stack.Kind.JSLIRP.executable();
        try (Namespace ns = Namespace.create()) {
            for (List<String> cmd : List.of(
                    List.of(bin, "attach", "--no-such-flag", "1", "tap0"),
                    List.of(bin, "attach", "--cidr", "10.0.2.0/99", Long.toString(ns.pid()), "tap0"),
                    List.of(bin, "attach", "999999999", "tap0"),
                    List.of(bin, "attach", "--enable-ipv6", "--mtu", "1000", Long.toString(ns.pid()), "tap0"), // IPv6 needs 1280
                    // this JVM shares the host's network namespace: jslirp must not put a tap there
                    List.of(bin, "attach", "--configure", Long.toString(ProcessHandle.current().pid()), "jslirpbad0"))) {
                Cmd.Result r = Cmd.run(Duration.ofSeconds(50), cmd);
                assertThat(r.timedOut()).as("must exit by itself: %s", r).isFalse();
                assertThat(r.exit()).as("%s", r).isNotZero();
                List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
                assertThat(lines).as("exactly one line on stderr: %s", r).hasSize(1);
                assertThat(r.err()).as("no stack trace: %s", r).doesNotContain("Exception").doesNotContain("\tat ");
            }
        }
    }
}
