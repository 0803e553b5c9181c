package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jslirp install}: jslirp installed under a prefix runs from there as a system tool does,
 * without the checkout: its command through the PREFIX/bin symbolic link from any directory, the
 * pasta and slirp4netns of PREFIX/lib/jslirp/bin, its manual pages and its bash completion; by root,
 * and by an ordinary user ({@link TestUser}), whose start-up cache then goes to ~/.cache/jslirp.
 */
class InstallIT {
    private static final Duration T = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    @Test
    @Timeout(600)
    void rootInstallsIntoAPrefixRunsFromItReinstallsAndUninstalls() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("jslirp's installation");
        ItEnv.assumeTools("curl", "flock");
        // A relative prefix, from another working directory than the checkout.
        Cmd.Result install = inDirectory(tmp, ItEnv.home().resolve("jslirp").toString(), "install", "--prefix", "rel/prefix");
        assertThat(install.exit()).as("%s", install).isZero();
        assertThat(install.err()).as("%s", install).isEmpty();
        Path prefix = tmp.resolve("rel/prefix"), lib = prefix.resolve("lib/jslirp"), helpers = lib.resolve("bin");
        assertThat(install.out()).as("%s", install)
                .contains("installed in " + prefix + ":")
                .contains("  " + prefix.resolve("bin/jslirp") + " -> ../lib/jslirp/jslirp")
                .contains("Podman's helper directory: " + helpers)
                .contains("[engine]")
                .contains("helper_binaries_dir = [\n    \"" + helpers + "\",")
                .contains("network_cmd_path = \"" + helpers.resolve("slirp4netns") + "\"");
        assertThat(lib.resolve("pom.xml")).doesNotExist();
        assertThat(lib.resolve("jslirp.jar")).isRegularFile();

        checkVersions(prefix);

        // The network, through the link, from another directory: curl in `jslirp run` reaches the host's loopback.
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result run = inDirectory(Path.of("/"), prefix.resolve("bin/jslirp").toString(), "run", "--", "curl", "-sS", "--max-time", "30",
                    http.guestUrl("/small"));
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).as("%s", run).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
        // Root may write beside the jar: the start-up cache goes there (made in the background).
        Path cache = awaitStartupCache(lib);
        assertThat(cache.getFileName().toString()).startsWith("jslirp-");

        checkManPages(prefix.resolve("share/man/man1"));
        checkCompletion(prefix.resolve("share/bash-completion/completions/jslirp"));

        // Again over it, with the absolute path: the cache made for the jar it replaced is gone.
        Cmd.Result again = Cmd.run(T, ItEnv.home().resolve("jslirp").toString(), "install", "--prefix", prefix.toString());
        assertThat(again.exit()).as("%s", again).isZero();
        assertThat(cache).doesNotExist();
        checkVersions(prefix);
        awaitStartupCache(lib); // the new jar's, made after the runs above: before its directory goes

        Cmd.Result uninstall = Cmd.run(T, prefix.resolve("bin/jslirp").toString(), "uninstall", "--prefix", prefix.toString());
        assertThat(uninstall.exit()).as("%s", uninstall).isZero();
        assertThat(lib).doesNotExist();
        assertThat(prefix.resolve("bin/jslirp")).doesNotExist();
        assertThat(prefix.resolve("share/man/man1/jslirp.1")).doesNotExist();
        assertThat(prefix.resolve("share/bash-completion/completions/jslirp")).doesNotExist();
    }

    /**
     * An ordinary user runs root's installation (the start-up cache then in ~/.cache/jslirp, as
     * root's lib/jslirp is not the user's to write), and installs jslirp under its own home (the
     * default prefix ~/.local) from a copy without pom.xml, and runs that.
     */
    @Test
    @Timeout(600)
    void anOrdinaryUserRunsRootsInstallationAndInstallsItsOwn() throws Exception {
        ItEnv.assumeJslirp("jslirp's installation");
        ItEnv.assumeTools("curl");
        try (TestUser user = TestUser.create(); HttpBlobServer http = new HttpBlobServer()) {
            Path prefix = user.dir().resolve("prefix"); // root's, readable by everyone
            Cmd.Result install = Cmd.run(T, ItEnv.home().resolve("jslirp").toString(), "install", "--prefix", prefix.toString());
            assertThat(install.exit()).as("%s", install).isZero();

            Cmd.Result run = user.run(T, prefix.resolve("bin/jslirp").toString(), "run", "--", "curl", "-sS", "--max-time", "30",
                    http.guestUrl("/small"));
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).as("%s", run).isEqualTo(HttpBlobServer.SMALL_BODY);
            Path userCache = Path.of("/home", user.name(), ".cache/jslirp");
            String cacheName = prefix.resolve("lib/jslirp/jslirp.jar").toString().replace('/', '_').substring(1) + "-";
            awaitFile(userCache, cacheName, ".aot");
            try (var s = Files.list(prefix.resolve("lib/jslirp"))) {
                assertThat(s.map(p -> p.getFileName().toString())).as("nothing of the user's in root's installation")
                        .noneMatch(n -> n.contains(".aot"));
            }

            // The user's own, from the user's copy of the launcher (no pom.xml), with the default prefix.
            Cmd.Result own = user.run(T, user.jslirp(), "install");
            assertThat(own.exit()).as("%s", own).isZero();
            Path home = Path.of("/home", user.name());
            assertThat(own.out()).as("%s", own).contains("installed in " + home.resolve(".local") + ":");
            Cmd.Result version = user.bash(T, "cd / && ~/.local/bin/jslirp --version");
            assertThat(version.exit()).as("%s", version).isZero();
            assertThat(version.out()).startsWith("jslirp ");
            Cmd.Result ownRun = user.run(T, home.resolve(".local/bin/jslirp").toString(), "run", "--", "curl", "-sS", "--max-time", "30",
                    http.guestUrl("/small"));
            assertThat(ownRun.exit()).as("%s", ownRun).isZero();
            assertThat(ownRun.out()).as("%s", ownRun).isEqualTo(HttpBlobServer.SMALL_BODY);
            assertThat(home.resolve(".local/share/man/man1/jslirp-run.1")).isRegularFile();
            assertThat(home.resolve(".local/share/bash-completion/completions/jslirp")).isRegularFile();
        }
    }

    /** jslirp, pasta and slirp4netns of the installation name the checkout's version and commit. */
    private static void checkVersions(Path prefix) throws IOException {
        Cmd.Result v = inDirectory(Path.of("/"), prefix.resolve("bin/jslirp").toString(), "--version");
        assertThat(v.exit()).as("%s", v).isZero();
        Matcher m = Pattern.compile("jslirp (\\S+) \\(commit ([0-9a-f]{7,}|unknown)(, dirty)?\\)\n").matcher(v.out());
        assertThat(m.matches()).as("%s", v).isTrue();
        String version = m.group(1), commit = m.group(2), described = v.out().strip().substring("jslirp ".length());
        Cmd.Result head = Cmd.run(T, "git", "-C", ItEnv.home().toString(), "rev-parse", "--short=7", "HEAD");
        if (head.exit() == 0) assertThat(commit).as("the checkout's HEAD, recorded when the jar was built").isEqualTo(head.out().strip());

        Path helpers = prefix.resolve("lib/jslirp/bin");
        Cmd.Result pasta = Cmd.run(T, helpers.resolve("pasta").toString(), "--version");
        assertThat(pasta.exit()).as("%s", pasta).isZero();
        assertThat(pasta.out().lines().toList()).as("%s", pasta).hasSize(2).first().isEqualTo("pasta jslirp-" + described);
        Cmd.Result slirp = Cmd.run(T, helpers.resolve("slirp4netns").toString(), "--version");
        assertThat(slirp.exit()).as("%s", slirp).isZero();
        List<String> lines = slirp.out().lines().toList();
        assertThat(lines.get(0)).as("%s", slirp).startsWith("slirp4netns version 1.2.0 (compatible: jslirp " + version + ", commit " + commit);
        assertThat(lines.get(1)).isEqualTo("commit: " + commit);
        assertThat(lines).contains("SLIRP_CONFIG_VERSION_MAX: 3");
    }

    /** Every page renders, man's warnings on, without one. */
    private static void checkManPages(Path man1) throws IOException {
        List<Path> pages;
        try (var s = Files.list(man1)) {
            pages = s.filter(p -> p.getFileName().toString().endsWith(".1")).sorted().toList();
        }
        assertThat(pages.stream().map(p -> p.getFileName().toString()))
                .contains("jslirp.1", "jslirp-run.1", "jslirp-attach.1", "jslirp-qemu.1", "jslirp-forward-add.1", "jslirp-pasta.1");
        // man-db is in .ci/run's packages: the pages are read as a user reads them, not skipped
        assertThat(ItEnv.which("man")).as("man (Debian's man-db) to read the pages").isNotNull();
        for (Path p : pages) {
            List<String> cmd = List.of("man", "--warnings", "-l", p.toString());
            Cmd.Result r = Cmd.run(T, cmd, null, Map.of("MANWIDTH", "80", "MANPAGER", "cat", "PAGER", "cat", "LC_ALL", "C.UTF-8"));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.err()).as("%s", r).isEmpty();
            // overstrikes out; groff 1.23 (Debian 13) marks them with SGR escapes
            // instead, and writes - and \- as U+2010 and U+2212 in UTF-8
            String text = r.out().replaceAll(".\u0008", "").replaceAll("\u001b\\[[0-9;]*m", "").replaceAll("[\u2010\u2212]", "-");
            assertThat(text).as("%s", r).contains("NAME").contains(p.getFileName().toString().replace(".1", "") + " - ");
        }
    }

    /** bash loads the completion, which completes the commands and a command's options. */
    private static void checkCompletion(Path file) {
        Cmd.Result r = Cmd.run(T, "bash", "-c", "source \"$1\" || exit 1"
                + "; COMP_WORDS=(jslirp ru); COMP_CWORD=1; COMP_LINE='jslirp ru'; _complete_jslirp; echo \"${COMPREPLY[*]}\""
                + "; COMP_WORDS=(jslirp ''); COMP_CWORD=1; COMP_LINE='jslirp '; _complete_jslirp; echo \"${COMPREPLY[*]}\""
                + "; COMP_WORDS=(jslirp attach --con); COMP_CWORD=2; COMP_LINE='jslirp attach --con'; _complete_jslirp; echo \"${COMPREPLY[*]}\"",
                "bash", file.toString());
        assertThat(r.exit()).as("%s", r).isZero();
        assertThat(r.out().lines().toList()).as("%s", r)
                .containsExactly("run", "attach run qemu pasta forward status seccomp-profile install uninstall", "--configure");
    }

    private static Cmd.Result inDirectory(Path dir, String... cmd) {
        List<String> c = new ArrayList<>(List.of("sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir.toString()));
        c.addAll(List.of(cmd));
        return Cmd.run(T, c);
    }

    /** The start-up cache the launcher makes in dir once a training run has ended (and released its lock). */
    private static Path awaitStartupCache(Path dir) throws Exception {
        Path cache = awaitFile(dir, "jslirp-", ".aot");
        Cmd.Result lock = Cmd.run(T, "flock", "-w", "60", cache + ".lock", "true");
        assertThat(lock.exit()).as("%s", lock).isZero();
        return cache;
    }

    private static Path awaitFile(Path dir, String prefix, String suffix) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(dir)) {
                try (var s = Files.list(dir)) {
                    var found = s.filter(p -> p.getFileName().toString().startsWith(prefix) && p.getFileName().toString().endsWith(suffix)).findFirst();
                    if (found.isPresent()) return found.get();
                }
                try (var s = Files.list(dir)) {
                    assertThat(s.map(p -> p.getFileName().toString())).as("the training run failed in %s", dir).noneMatch(n -> n.endsWith(".aot.none"));
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no " + prefix + "*" + suffix + " in " + dir);
    }
}
