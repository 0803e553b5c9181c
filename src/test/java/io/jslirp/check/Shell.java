package io.jslirp.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands for tests: bash code with one of the launcher's scripts sourced (strict mode), for
 * tests of the launcher's argument scans, and a command whose output a test reads.
 */
public final class Shell {
    private Shell() {}

    /** What script, sourced, then body print (stdout and stderr); fails the test unless it exits 0. */
    public static String sourced(Path script, String body) throws Exception {
        assertThat(Files.exists(script)).as(script.toString()).isTrue();
        Process p = new ProcessBuilder(List.of("bash", "-c", "set -euo pipefail; source " + script + "; " + body))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    /** What command printed (stdout and stderr); fails the test unless it exits 0. */
    public static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("%s: %s", String.join(" ", command), out).isZero();
        return out;
    }
}
