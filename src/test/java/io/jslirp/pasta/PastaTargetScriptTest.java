package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * scripts/pasta-target.sh, which the launcher runs before the JVM starts to find the user namespace
 * pasta joins and whether it stays in the foreground, reads the command line as pasta's getopt
 * does: the same options take a value, and it stops at the first operand.
 */
class PastaTargetScriptTest {
    private static final Path SCRIPT = Path.of("scripts/pasta-target.sh");

    @Test
    void theScriptKnowsEveryOptionThatTakesAValue() throws Exception {
        Set<String> longs = new TreeSet<>();
        for (Getopt.LongOption o : PastaParser.LONG_OPTIONS) if (o.hasArgument()) longs.add("--" + o.name());
        assertThat(new TreeSet<>(bash("printf '%s\\n' $pasta_value_long").lines().toList())).isEqualTo(longs);
        StringBuilder shorts = new StringBuilder();
        String optstring = PastaParser.OPTSTRING;
        for (int i = 1; i < optstring.length(); i++) {
            if (i + 1 < optstring.length() && optstring.charAt(i + 1) == ':') shorts.append(optstring.charAt(i));
        }
        assertThat(bash("printf '%s' \"$pasta_value_short\"")).isEqualTo(shorts.toString());
    }

    @Test
    void findsTheUserNamespaceAndForeground() throws Exception {
        assertThat(parse("--config-net", "--netns", "/run/netns/x", "--map-guest-addr", "169.254.1.2")).isEqualTo("- f0 c0");
        assertThat(parse("--stderr", "--ns-ifname=tap0", "--config-net", "--address=10.0.2.100", "--tcp-ports=none", "4242"))
                .isEqualTo("/proc/4242/ns/user f0 c0");
        assertThat(parse("--userns=/proc/7/ns/user", "--netns=/run/x")).isEqualTo("/proc/7/ns/user f0 c0");
        assertThat(parse("--userns", "/u", "--netns-only", "--netns", "/n")).isEqualTo("- f0 c0");
        assertThat(parse("-f", "-t", "8080", "-P", "/p", "77")).isEqualTo("/proc/77/ns/user f1 c0");
        assertThat(parse("-qf", "--netns", "/n")).isEqualTo("- f1 c0");
        assertThat(parse("-tf", "--netns", "/n")).as("-t's value is \"f\"").isEqualTo("- f0 c0");
        assertThat(parse("--foreground", "--", "12")).isEqualTo("/proc/12/ns/user f1 c0");
        assertThat(parse("-t", "none", "ip", "-f", "link")).as("a command: options end at it").isEqualTo("- f0 c1");
        assertThat(parse("--config-net")).as("a shell").isEqualTo("- f0 c1");
        assertThat(parse("--version")).isEqualTo("- f0 c0");
        assertThat(parse("-h")).isEqualTo("- f0 c0");
    }

    private static String parse(String... args) throws Exception {
        StringBuilder quoted = new StringBuilder();
        for (String a : args) quoted.append(" '").append(a.replace("'", "'\\''")).append('\'');
        return bash("pasta_parse" + quoted + "; echo \"${pasta_userns:--} f$pasta_foreground c$pasta_command\"").strip();
    }

    private static String bash(String script) throws Exception {
        return io.jslirp.check.Shell.sourced(SCRIPT, script);
    }
}
