package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * jslirp's command line as a user meets it: errors in the user's terms (one line, one prefix, the
 * status a shell would give) and help text that reads whole at 80 columns.
 */
class CommandLineTest {
    /** Runs {@code jslirp ARGS} in this JVM: its exit status and what it printed on stderr. */
    private record Outcome(int status, String err) {}

    private static Outcome jslirp(String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int status = Main.commandLine(args.length > 0 ? args[0] : null).execute(args);
            return new Outcome(status, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(saved);
        }
    }

    @Test
    void anUnknownCommandIsNamedWithTheCommandsThereAre() {
        assertThat(jslirp("bogus")).isEqualTo(new Outcome(1,
                "jslirp: unknown command 'bogus' (commands: attach, run, qemu, pasta, forward, status, seccomp-profile, install, uninstall) (see 'jslirp --help')\n"));
        assertThat(jslirp("forward", "bogus").err())
                .isEqualTo("jslirp: unknown command 'bogus' (commands: add, list, remove) (see 'jslirp forward --help')\n");
    }

    @Test
    void anUnknownOptionIsNamedBeforeAMissingOperand() {
        // picocli alone would say "Missing required parameter: 'PID|PATH'"
        assertThat(jslirp("attach", "--bogus")).isEqualTo(new Outcome(1, "jslirp: unrecognized option '--bogus' (see 'jslirp attach --help')\n"));
        assertThat(jslirp("--bogus").err()).isEqualTo("jslirp: unrecognized option '--bogus' (see 'jslirp --help')\n");
        assertThat(jslirp("status", "-x", "--api-socket", "/x").err()).startsWith("jslirp: unrecognized option '-x'");
    }

    @Test
    void runHintsWhereItsOptionsAndTheCommandsGo() {
        assertThat(jslirp("run", "-s", "curl").err()).isEqualTo("jslirp: unrecognized option '-s'; jslirp run's own options come first,"
                + " then the command with its options: jslirp run [OPTION]... [--] COMMAND [ARG]... (see 'jslirp run --help')\n");
    }

    @Test
    void runTakesTheCommandWithItsOptionsFromItsFirstOperand() {
        CommandLine cl = Main.commandLine("run");
        cl.parseArgs("run", "--mtu", "9000", "curl", "-s", "--mtu", "1", "http://x/");
        RunCommand run = (RunCommand) cl.getSubcommands().get("run").getCommand();
        assertThat(run.command).containsExactly("curl", "-s", "--mtu", "1", "http://x/");
        assertThat(run.network.mtu).isEqualTo(9000);
    }

    @Test
    void anUnrecognizedOptionWithALineBreakIsToldInOneLine() {
        // found by AttachCommandJazzerTest: the option was quoted as it was, line break and all
        assertThat(jslirp("attach", "--allow\n10.0.0.0/8", "1")).isEqualTo(new Outcome(1,
                "jslirp: unrecognized option '--allow 10.0.0.0/8' (see 'jslirp attach --help')\n"));
    }

    @Test
    void aRefusedValueWithACarriageReturnIsToldInOneLine() {
        // found by AttachCommandJazzerTest in the fuzz stage: a forward's value with a carriage return (and a form feed)
        CommandLine cl = Main.commandLine("attach");
        cl.parseArgs("attach", "-t", "\f--a\r/tmp:80", "1");
        AttachCommand attach = (AttachCommand) cl.getSubcommands().get("attach").getCommand();
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, attach.network::engineConfig);
        assertThat(refused.getMessage()).contains("\r");
        assertThat(Main.oneLine(refused)).startsWith("forward").contains("--a /tmp:80").doesNotContain("\r").doesNotContain("\f");
    }

    @Test
    void anArgumentStartingWithAnAtSignIsNoFileOfArguments() {
        // found by AttachCommandJazzerTest: "@." was read as an argument file and failed with a stack trace
        CommandLine cl = Main.commandLine("attach");
        cl.parseArgs("attach", "@.", "@tap");
        AttachCommand attach = (AttachCommand) cl.getSubcommands().get("attach").getCommand();
        assertThat(attach.target).isEqualTo("@.");
        assertThat(attach.tapName).isEqualTo("@tap");
    }

    @Test
    void picocliMessagesCarryOnePrefix() {
        Outcome qemu = jslirp("qemu");
        assertThat(qemu.err()).startsWith("jslirp: missing required argument (specify one of these): (--socket=PATH").doesNotContain("Error");
        assertThat(jslirp("status").err()).isEqualTo("jslirp: missing required option: '--api-socket=PATH' (see 'jslirp status --help')\n");
        assertThat(UsageErrors.plain("Error: Missing x")).isEqualTo("missing x");
        assertThat(UsageErrors.plain("IPv6 needs 1280")).isEqualTo("IPv6 needs 1280");
    }

    @Test
    void aCommandThatCannotBeRunExitsAsAShellWould(@TempDir Path dir) throws Exception {
        assertThat(jslirp("run", "--", "nosuchcommand-xyz-" + ProcessHandle.current().pid()).status()).isEqualTo(127);
        Path plain = Files.writeString(dir.resolve("plain"), "data");
        Outcome notExecutable = jslirp("run", plain.toString());
        assertThat(notExecutable).isEqualTo(new Outcome(126, "jslirp: cannot run " + plain + ": Permission denied\n"));
        assertThat(jslirp("run", dir.toString())).isEqualTo(new Outcome(126, "jslirp: cannot run " + dir + ": Is a directory\n"));
        assertThat(jslirp("run", dir.resolve("absent").toString()).err())
                .isEqualTo("jslirp: cannot run " + dir.resolve("absent") + ": No such file or directory\n");
    }

    @Test
    void aCommandIsLookedUpOnPathAsAShellDoes(@TempDir Path dir) throws Exception {
        Path bin1 = Files.createDirectories(dir.resolve("bin1"));
        Path bin2 = Files.createDirectories(dir.resolve("bin2"));
        Files.writeString(bin1.resolve("tool"), "not executable");
        Path tool = Files.writeString(bin2.resolve("tool"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Executable.check("tool", bin1 + ":" + bin2); // a later directory's executable one is found
        assertThatStatus(() -> Executable.check("tool", bin1.toString())).isEqualTo(126);
        assertThatStatus(() -> Executable.check("tool", dir.resolve("none").toString())).isEqualTo(127);
        assertThatStatus(() -> Executable.check("", bin2.toString())).isEqualTo(127);
    }

    private static org.assertj.core.api.AbstractIntegerAssert<?> assertThatStatus(Runnable check) {
        try {
            check.run();
        } catch (ExitStatus e) {
            return assertThat(e.status());
        }
        return assertThat(0);
    }

    /**
     * Every command's help at 80 columns: no line is longer, and no word is split: the words are
     * those of the same help rendered without wrapping.
     */
    @Test
    void helpWrapsAtWordsWithinEightyColumns() {
        List<CommandLine> all = new ArrayList<>();
        collect(Main.commandLine(null), all);
        assertThat(all).hasSizeGreaterThan(8);
        for (CommandLine c : all) {
            String narrow = usage(c, 80);
            String wide = usage(c, 2000);
            assertThat(narrow.lines().filter(l -> l.length() > 80).toList()).as(c.getCommandName()).isEmpty();
            assertThat(firstDifference(words(narrow), words(wide))).as("words of %s --help", c.getCommandSpec().qualifiedName()).isEmpty();
            for (String footerLine : c.getCommandSpec().usageMessage().footer()) {
                if (!footerLine.startsWith(" ")) continue; // prose: wrapped at words is fine
                assertThat(footerLine.length()).as("example in the footer of %s (picocli would wrap it at column 0): %s",
                        c.getCommandName(), footerLine).isLessThanOrEqualTo(80);
            }
        }
    }

    private static void collect(CommandLine c, List<CommandLine> into) {
        into.add(c);
        c.getSubcommands().values().forEach(s -> collect(s, into));
    }

    private static String usage(CommandLine c, int width) {
        c.setUsageHelpWidth(width);
        StringWriter w = new StringWriter();
        c.usage(new PrintWriter(w), CommandLine.Help.Ansi.OFF);
        return w.toString();
    }

    /** Where two lists of words first differ, with the words around it; empty when they are the same. */
    private static String firstDifference(List<String> a, List<String> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return "wrapped: " + a.subList(Math.max(0, i - 3), Math.min(a.size(), i + 3)) + ", unwrapped: "
                        + b.subList(Math.max(0, i - 3), Math.min(b.size(), i + 3));
            }
        }
        return a.size() == b.size() ? "" : "lengths " + a.size() + " and " + b.size();
    }

    private static List<String> words(String text) {
        return Arrays.stream(text.split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }
}
