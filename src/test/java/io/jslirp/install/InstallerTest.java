package io.jslirp.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstallerTest {
    @TempDir
    Path tmp;

    Path home, jar;
    Installer.Layout layout;

    /** A launcher's directory as a checkout has it: the files (with their modes), and the jar under target/. */
    @BeforeEach
    void checkout() throws IOException {
        home = tmp.resolve("checkout");
        for (String f : Installer.LAUNCHER_FILES) {
            Path p = home.resolve(f);
            Files.createDirectories(p.getParent());
            Files.writeString(p, "content of " + f);
            boolean program = f.equals("jslirp") || f.startsWith("bin/");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(program ? "rwxrwxr-x" : "rw-rw-r--"));
        }
        Files.writeString(home.resolve("LICENSE"), "license");
        jar = Files.createDirectories(home.resolve("target")).resolve("jslirp.jar");
        Files.writeString(jar, "jar v1");
        layout = new Installer.Layout(tmp.resolve("prefix"));
    }

    private static List<ManPage.Page> pages(String... names) {
        return java.util.Arrays.stream(names).map(n -> new ManPage.Page(n, ".TH " + n + "\n")).toList();
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void installsTheLayoutWithItsModesAndARelativeLink() throws IOException {
        List<Path> written = Installer.install(home, jar, layout, pages("jslirp.1", "jslirp-run.1"), "complete -F x jslirp\n");
        Path lib = tmp.resolve("prefix/lib/jslirp");
        for (String f : Installer.LAUNCHER_FILES) {
            assertThat(lib.resolve(f)).hasContent("content of " + f);
            boolean program = f.equals("jslirp") || f.startsWith("bin/");
            assertThat(mode(lib.resolve(f))).as(f).isEqualTo(program ? "rwxr-xr-x" : "rw-r--r--");
        }
        assertThat(lib.resolve("jslirp.jar")).hasContent("jar v1");
        assertThat(mode(lib.resolve("jslirp.jar"))).isEqualTo("rw-r--r--");
        assertThat(lib.resolve("LICENSE")).hasContent("license");
        assertThat(mode(lib)).isEqualTo("rwxr-xr-x");
        assertThat(mode(lib.resolve("bin"))).isEqualTo("rwxr-xr-x");

        Path command = tmp.resolve("prefix/bin/jslirp");
        assertThat(Files.isSymbolicLink(command)).isTrue();
        assertThat(Files.readSymbolicLink(command)).isEqualTo(Path.of("../lib/jslirp/jslirp"));
        assertThat(command.toRealPath()).isEqualTo(lib.resolve("jslirp").toRealPath());

        assertThat(tmp.resolve("prefix/share/man/man1/jslirp-run.1")).hasContent(".TH jslirp-run.1");
        assertThat(mode(tmp.resolve("prefix/share/man/man1/jslirp-run.1"))).isEqualTo("rw-r--r--");
        assertThat(tmp.resolve("prefix/share/bash-completion/completions/jslirp")).hasContent("complete -F x jslirp");
        assertThat(written).contains(command, lib.resolve("jslirp.jar"), tmp.resolve("prefix/share/man/man1/jslirp.1"));
        assertThat(lib.resolve("installed-files")).hasContent("bin/jslirp\nshare/man/man1/jslirp.1\nshare/man/man1/jslirp-run.1\n"
                + "share/bash-completion/completions/jslirp");
        try (var s = Files.walk(tmp.resolve("prefix"))) {
            assertThat(s.filter(p -> p.getFileName().toString().endsWith(".jslirp-install"))).as("no temporary file left").isEmpty();
        }
    }

    @Test
    void reinstallingReplacesFilesRemovesStalePagesAndStartupCachesAndKeepsOpenFilesIntact() throws IOException {
        Installer.install(home, jar, layout, pages("jslirp.1", "jslirp-old.1"), "v1");
        Path lib = layout.lib();
        Files.writeString(lib.resolve("jslirp-25.0.3.aot"), "cache");
        Files.writeString(lib.resolve("jslirp-25.0.3.aot.none"), "");
        Files.writeString(lib.resolve("jslirp-25.0.3.aot.lock"), "");
        Path mine = Files.writeString(layout.man1().resolve("someone-else.1"), "theirs");
        var open = Files.newInputStream(layout.jar()); // a running jslirp's jar
        Files.writeString(jar, "jar v2");

        Installer.install(home, jar, layout, pages("jslirp.1", "jslirp-new.1"), "v2");

        assertThat(layout.jar()).hasContent("jar v2");
        assertThat(new String(open.readAllBytes())).as("the old jar's file is replaced, not rewritten").isEqualTo("jar v1");
        open.close();
        assertThat(layout.man1().resolve("jslirp-old.1")).doesNotExist();
        assertThat(layout.man1().resolve("jslirp-new.1")).exists();
        assertThat(mine).as("not ours").hasContent("theirs");
        assertThat(lib.resolve("jslirp-25.0.3.aot")).doesNotExist();
        assertThat(lib.resolve("jslirp-25.0.3.aot.none")).doesNotExist();
        assertThat(lib.resolve("jslirp-25.0.3.aot.lock")).doesNotExist();
        assertThat(layout.completion()).hasContent("v2");
    }

    @Test
    void anInstallationInstallsItselfElsewhereAndOverItself() throws IOException {
        Installer.install(home, jar, layout, pages("jslirp.1"), "c");
        Installer.Layout other = new Installer.Layout(tmp.resolve("other"));
        Installer.install(layout.lib(), layout.jar(), other, pages("jslirp.1"), "c");
        assertThat(other.jar()).hasContent("jar v1");
        assertThat(other.lib().resolve("LICENSE")).hasContent("license");
        Installer.install(layout.lib(), layout.jar(), layout, pages("jslirp.1"), "c");
        assertThat(layout.jar()).hasContent("jar v1");
        assertThat(layout.lib().resolve("jslirp")).hasContent("content of jslirp");
    }

    @Test
    void uninstallRemovesWhatInstallWroteAndTheUsersCachesOfItsJar() throws IOException {
        Installer.install(home, jar, layout, pages("jslirp.1", "jslirp-run.1"), "c");
        Path other = Files.writeString(layout.man1().resolve("other.1"), "x");
        Path cacheDir = Files.createDirectories(tmp.resolve("cache/jslirp"));
        String name = layout.jar().toString().replace('/', '_').substring(1);
        Path cache = Files.writeString(cacheDir.resolve(name + "-25.0.3.aot"), "");
        Path someoneElses = Files.writeString(cacheDir.resolve("opt_jslirp_jslirp.jar-25.0.3.aot"), "");

        List<Path> removed = Installer.uninstall(layout, cacheDir);

        assertThat(removed).contains(layout.command(), layout.man1().resolve("jslirp-run.1"), layout.completion(), cache, layout.lib());
        assertThat(layout.lib()).doesNotExist();
        assertThat(layout.command()).doesNotExist();
        assertThat(layout.man1().resolve("jslirp.1")).doesNotExist();
        assertThat(layout.completion()).doesNotExist();
        assertThat(cache).doesNotExist();
        assertThat(someoneElses).exists();
        assertThat(other).exists();
        assertThatThrownBy(() -> Installer.uninstall(layout, cacheDir)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("no jslirp installation in " + layout.prefix());
    }

    @Test
    void aMissingLauncherFileIsSaidBeforeAnythingIsWritten() throws IOException {
        Files.delete(home.resolve("scripts/pasta-target.sh"));
        assertThatThrownBy(() -> Installer.install(home, jar, layout, pages("jslirp.1"), "c")).isInstanceOf(IOException.class)
                .hasMessage("not found: " + home.resolve("scripts/pasta-target.sh"));
        assertThat(layout.prefix()).doesNotExist();
    }

    @Test
    void aRelativePrefixIsTheWorkingDirectorys() {
        assertThat(new Installer.Layout(Path.of("rel/x")).prefix()).isEqualTo(Path.of(System.getProperty("user.dir"), "rel/x"));
    }
}
