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

    /**
     * What a user types wrong, answered in the user's terms, through the launcher as users run it:
     * an unknown command or option named as such by every entry point (getopt's words, as
     * slirp4netns, pasta and unshare say it), a hint where run's options meet the command's, one
     * {@code jslirp:} prefix, and 127 or 126 for a command that cannot be run, as shells exit.
     */
    @Test
    @Timeout(180)
    void errorsAreNamedInTheUsersTerms() throws Exception {
        ItEnv.assumeJslirp("error-message format is jslirp's own contract");
        String bin = Stack.Kind.JSLIRP.executable();
        String slirp4netns = ItEnv.home().resolve("bin/slirp4netns").toString();
        expect(1, "jslirp: unknown command 'bogus' (commands: attach, run, qemu, pasta, forward, status, seccomp-profile, install, uninstall) (see 'jslirp --help')",
                bin, "bogus");
        expect(1, "jslirp: unrecognized option '--bogus' (see 'jslirp --help')", bin, "--bogus");
        expect(1, "jslirp: unrecognized option '--bogus' (see 'jslirp attach --help')", bin, "attach", "--bogus");
        expect(1, "jslirp: unrecognized option '--bogus' (see 'jslirp attach --help')", slirp4netns, "--bogus");
        expect(1, "jslirp: unrecognized option '--bogus' (see 'jslirp status --help')", bin, "status", "--bogus");
        expect(1, "jslirp: unrecognized option '--bogus' (see 'jslirp forward list --help')", bin, "forward", "list", "--bogus");
        expect(1, "jslirp: unrecognized option '-s'; jslirp run's own options come first, then the command with its options:"
                + " jslirp run [OPTION]... [--] COMMAND [ARG]... (see 'jslirp run --help')", bin, "run", "-s", "curl");
        expect(1, "jslirp: missing required argument (specify one of these): (--socket=PATH | --tcp=[ADDR:]PORT | --dgram=PATH"
                + " | --vhost-user=PATH | --fd=FD) (see 'jslirp qemu --help')", bin, "qemu");
        expect(127, "jslirp: cannot run nosuchcommand-xyz: command not found", bin, "run", "--", "nosuchcommand-xyz");
        expect(127, "jslirp: cannot run /nonexistent/cmd: No such file or directory", bin, "run", "/nonexistent/cmd");
        expect(126, "jslirp: cannot run /etc/passwd: Permission denied", bin, "run", "--", "/etc/passwd");
        expect(126, "jslirp: cannot run /etc: Is a directory", bin, "run", "/etc");
        expect(1, "jslirp: no network namespace at /nonexistent/ns: No such file or directory",
                bin, "attach", "--netns-type=path", "/nonexistent/ns", "tap0");
        java.nio.file.Path notASocket = java.nio.file.Files.createTempFile("jslirp-it-not-a-socket", ".txt");
        try {
            expect(1, "jslirp: cannot connect to the API socket " + notASocket + ": it is not a socket",
                    bin, "status", "--api-socket", notASocket.toString());
        } finally {
            java.nio.file.Files.deleteIfExists(notASocket);
        }
        // The command's own options after its name, without --, are the command's (as with unshare).
        Cmd.Result options = Cmd.run(Duration.ofSeconds(60), bin, "run", "sh", "-c", "exit 7");
        assertThat(options.exit()).as("sh -c reached sh: %s", options).isEqualTo(7);
        assertThat(options.err()).as("%s", options).isEmpty();
    }

    private static void expect(int exit, String line, String... cmd) {
        Cmd.Result r = Cmd.run(Duration.ofSeconds(50), cmd);
        assertThat(r.timedOut()).as("must exit by itself: %s", r).isFalse();
        assertThat(r.exit()).as("%s", r).isEqualTo(exit);
        assertThat(r.err().lines().toList()).as("%s", r).containsExactly(line);
    }
}
