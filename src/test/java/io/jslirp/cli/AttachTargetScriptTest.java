package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * scripts/attach-target.sh, which the launcher runs before the JVM starts to find the target of
 * {@code jslirp attach} (its user namespace, its tap device), reads the command line as picocli
 * does: the same options take a value, and the same words are the PID|PATH and the TAPNAME.
 */
class AttachTargetScriptTest {
    private static final Path SCRIPT = Path.of("scripts/attach-target.sh");

    @Test
    void theScriptKnowsEveryOptionThatTakesAValue() throws Exception {
        CommandLine attach = Main.commandLine("attach").getSubcommands().get("attach");
        Set<String> expected = new TreeSet<>();
        for (CommandLine.Model.OptionSpec o : attach.getCommandSpec().options()) {
            if (o.arity().max() > 0) expected.addAll(Arrays.asList(o.names()));
        }
        String listed = bash("printf '%s\\n' $attach_value_options");
        assertThat(new TreeSet<>(listed.lines().toList())).isEqualTo(expected);
    }

    @Test
    void findsTheTargetAndTapAsPicocliDoes() throws Exception {
        assertThat(parse("-c", "-r", "3", "--mtu", "65520", "1234", "tap1")).isEqualTo("1234 tap1 pid - c1 a0");
        assertThat(parse("--mtu=1500", "--disable-host-loopback", "--api-socket", "/tmp/a.sock", "77")).isEqualTo("77 tap0 pid - c0 a1");
        assertThat(parse("-cr3", "-6", "4321", "tap2")).isEqualTo("4321 tap2 pid - c1 a0");
        assertThat(parse("-r3", "-e", "4", "-m", "1400", "99", "tap3")).isEqualTo("99 tap3 pid - c0 a0");
        assertThat(parse("--userns-path=/proc/5/ns/user", "--netns-type=path", "/run/netns/x", "tap0"))
                .isEqualTo("/run/netns/x tap0 path /proc/5/ns/user c0 a0");
        assertThat(parse("--netns-type", "path", "--userns-path", "/u", "/n")).isEqualTo("/n tap0 path /u c0 a0");
        assertThat(parse("--", "55", "tap4")).isEqualTo("55 tap4 pid - c0 a0");
        assertThat(parse("-t", "8080:80", "-u", "5353:53", "--allow", "10.0.0.0/8", "66", "tap5")).isEqualTo("66 tap5 pid - c0 a0");
        assertThat(parse("--configure", "-a/tmp/s", "66")).isEqualTo("66 tap0 pid - c1 a1");
        assertThat(parse("-6c", "--api-socket=/tmp/s", "66")).isEqualTo("66 tap0 pid - c1 a1");
    }

    @Test
    void helpVersionAndIncompleteLinesHaveNoTarget() throws Exception {
        assertThat(parse("--help")).isEqualTo("- tap0 pid - c0 a0");
        assertThat(parse("-v")).isEqualTo("- tap0 pid - c0 a0");
        assertThat(parse("1234", "tap0", "--version")).isEqualTo("- tap0 pid - c0 a0");
        assertThat(parse("-ch", "1234")).isEqualTo("- tap0 pid - c1 a0");
        assertThat(parse("1234", "--mtu")).isEqualTo("- tap0 pid - c0 a0");
        assertThat(parse("1234", "tap0", "extra")).isEqualTo("- tap0 pid - c0 a0");
    }

    private static String parse(String... args) throws Exception {
        StringBuilder quoted = new StringBuilder();
        for (String a : args) quoted.append(" '").append(a.replace("'", "'\\''")).append('\'');
        return bash("attach_parse attach" + quoted
                + "; echo \"${attach_target:--} $attach_tap $attach_netns_type ${attach_userns_path:--}"
                + " c$attach_configure a$attach_api\"").strip();
    }

    private static String bash(String script) throws Exception {
        return io.jslirp.check.Shell.sourced(SCRIPT, script);
    }
}
