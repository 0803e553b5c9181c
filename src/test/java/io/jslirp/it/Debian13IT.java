package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * CI machines run Debian 12 or Debian 13, and a change must pass on both. On a Debian 12 machine,
 * this test runs the suite's Debian-13-sensitive tests in a Debian 13 root ({@code
 * scripts/debian13.sh}: made once with debootstrap and cached in /var/tmp/jslirp-debian13, entered
 * with pivot_root in a private mount namespace), so that a Debian 12 machine catches a Debian 13
 * break: {@link #SENSITIVE}, i.e. tshark's output (PcapIT), the VM image made from Debian 13's
 * kernel package (VmIT), and the callers Debian 13 ships (Podman 5.4 as PodmanIT's
 * slirp4netns user and as PodmanPastaIT's pasta user, RootlessKit 2.0). They run from a copy of this checkout (target/ left out),
 * since a second Maven run in the checkout itself would rebuild the classes this one runs from.
 * A root that cannot be made (no debootstrap, no mirror) fails the test with the script's line.
 * On a Debian 13 machine the suite runs those tests itself, and this one is skipped.
 */
class Debian13IT {
    static final List<String> SENSITIVE = List.of("PcapIT", "VmIT", "PodmanIT", "PodmanPastaIT", "RootlesskitIT");
    private static final Duration T = Duration.ofMinutes(25);
    private static final Pattern SUMMARY = Pattern.compile("Tests run: (\\d+), Failures: (\\d+), Errors: (\\d+), Skipped: (\\d+)\\s*$",
            Pattern.MULTILINE);

    @Test
    @Timeout(30 * 60)
    void theDebian13SensitiveTestsPassInADebian13Root() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the suite's own tests in a Debian 13 root");
        String codename = osRelease("VERSION_CODENAME");
        if (codename.equals("trixie")) abort("this machine is Debian 13: the suite runs " + SENSITIVE + " itself");
        assertThat(ItEnv.isRoot()).as("the Debian 13 root is made and entered as root").isTrue();
        Path checkout = Path.of("").toAbsolutePath();
        Path copy = Files.createTempDirectory("jslirp-debian13-");
        try {
            Cmd.Result copied = Cmd.run(Duration.ofMinutes(2), "sh", "-c",
                    "tar -C \"$1\" --exclude=./target -cf - . | tar -C \"$2\" -xf -", "sh", checkout.toString(), copy.toString());
            assertThat(copied.exit()).as("%s", copied).isZero();
            Cmd.Result r = Cmd.run(T, copy.resolve("scripts/debian13.sh").toString(), "./test", "-B", "-Dtest=NONE",
                    "-Dsurefire.failIfNoSpecifiedTests=false", "-Dit.test=" + String.join(",", SENSITIVE));
            String out = r.out() + r.err();
            String tail = out.lines().filter(l -> l.contains("Tests run:") || l.contains("FAIL") || l.contains("ERROR")
                    || l.startsWith("debian13:")).reduce("", (a, b) -> a + b + "\n");
            assertThat(r.timedOut()).as("the run in the Debian 13 root did not end within %s\n%s", T, tail).isFalse();
            assertThat(r.exit()).as("the Debian-13-sensitive tests in a Debian 13 root:\n%s", tail).isZero();
            Matcher m = SUMMARY.matcher(out);
            String last = null;
            while (m.find()) last = m.group();
            assertThat(last).as("Maven's summary of the run:\n%s", tail).isNotNull();
            m = SUMMARY.matcher(last);
            assertThat(m.find()).isTrue();
            assertThat(Integer.parseInt(m.group(1))).as("tests that ran there\n%s", tail).isGreaterThanOrEqualTo(SENSITIVE.size());
            assertThat(Integer.parseInt(m.group(4))).as("tests skipped there (none may be)\n%s", tail).isZero();
        } finally {
            Cmd.run(Duration.ofMinutes(1), "rm", "-rf", copy.toString());
        }
    }

    private static String osRelease(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
            if (line.startsWith(key + "=")) return line.substring(key.length() + 1).replace("\"", "");
        }
        return "";
    }
}
