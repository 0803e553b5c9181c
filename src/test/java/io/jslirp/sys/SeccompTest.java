package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The seccomp filter, installed in a JVM of its own (it cannot be taken off again). */
class SeccompTest {
    @Test
    void blockedCallsFailWithEpermAndTheJvmCarriesOn() throws Exception {
        String out = probe();
        assertThat(out.lines()).as(out).containsExactly(
                "unshare Operation not permitted (EPERM)",
                "socket allowed",
                "new thread runs",
                "exec refused",
                "threads without the filter: 0");
    }

    @Test
    void theIsolationsFilterAlsoRefusesTheRiskierCalls() throws Exception {
        String out = probe("isolation");
        assertThat(out.lines()).as(out).containsExactly(
                "unshare Operation not permitted (EPERM)",
                "keyctl Operation not permitted (EPERM)",
                "socket allowed",
                "new thread runs",
                "exec refused",
                "threads without the filter: 0");
        // here, without a filter, the kernel itself answers the same call otherwise
        assertThat(SeccompProbe.keyctl()).doesNotContain("EPERM");
    }

    private static String probe(String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                SeccompProbe.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }
}
