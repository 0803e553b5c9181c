package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import io.jslirp.util.Log;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import picocli.CommandLine;

/**
 * Coverage-guided: any argument list (records, {@link Seeds#arguments}) as slirp4netns's
 * command line, {@code jslirp attach ARGS}: parsed as the launcher parses it and its values
 * checked as the command checks them before it serves ({@link NetworkOptions#engineConfig}),
 * without attaching anything. A bad list is a usage error (picocli's ParameterException, told
 * in one line by {@link UsageErrors}) or a refused value (IllegalArgumentException with a
 * message: Main prints it as one line), never any other exception.
 */
class AttachCommandJazzerTest {
    @FuzzTest(maxDuration = "4s")
    void badArgumentsAreAUsageErrorInOneLine(byte[] input) {
        List<String> args = new ArrayList<>(List.of("attach"));
        args.addAll(Seeds.arguments(input));
        CommandLine cl = Main.commandLine("attach");
        try {
            cl.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            oneLine(UsageErrors.describe(e));
            return;
        }
        CommandLine attach = cl.getSubcommands().get("attach");
        if (attach.isUsageHelpRequested() || attach.isVersionHelpRequested()) return;
        try {
            ((AttachCommand) attach.getCommand()).network.engineConfig();
        } catch (IllegalArgumentException e) {
            oneLine(Main.oneLine(e));
            assertThat(e.getMessage()).as("a refusal says what is wrong").isNotBlank();
        } finally {
            Log.enableDebug(false);
        }
    }

    private static void oneLine(String message) {
        assertThat(message).isNotBlank().doesNotContain("\n").doesNotContain("\r");
    }

    /** Command lines as rootlesskit, Podman and the docs give them, and a few bad ones. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Seeds.write(getClass(), "badArgumentsAreAUsageErrorInOneLine", Seeds.commandLines(List.of(
                List.of("--configure", "--mtu=65520", "1234", "tap0"),
                List.of("-c", "-t", "8080:80", "--api-socket", "/tmp/api.sock", "1234", "tap0"),
                List.of("--netns-type=path", "/run/netns/x", "tap0"),
                List.of("--enable-ipv6", "--cidr", "10.0.3.0/24", "--disable-host-loopback", "--enable-seccomp", "1234"),
                List.of("--outbound-addr", "10.0.0.1", "--outbound-addr6", "fd00::1", "1234"),
                List.of("--allow", "10.0.0.0/8", "--deny", "192.168.0.0/16", "--tcp-buffer", "4M", "--buffer-budget", "64M", "1234"),
                List.of("--pcap", "/tmp/x.pcap", "--pcap-size", "10M", "--pcap-filter", "tcp port 80", "1234"),
                List.of("-u", "127.0.0.1/5353-5355:53", "--macaddress", "02:00:00:00:00:01", "-r", "3", "-e", "4", "1234"),
                List.of("--userns-path=/proc/1/ns/user", "--busy-poll", "50", "--max-connections", "10", "--max-half-open", "5", "1"),
                List.of("--tftp", "/tmp", "--bootfile", "pxelinux.0", "--disable-dns", "--resolv-conf", "/etc/resolv.conf", "1"),
                List.of("--preserve-source", "--max-udp-flows", "100", "-t", "[::1]/8080-8081:80-81", "1"),
                List.of("--bogus"), List.of("--mtu"), List.of("-m", "70000", "1"), List.of("--help"), List.of("-v"),
                List.of("--enable-sandbox", "1"), List.of("1", "tap0", "extra"))));
    }
}
