package io.jslirp.cli;

import io.jslirp.install.Installer;
import io.jslirp.install.ManPage;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.pasta.PortSpec;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jslirp install}: this jar and the launcher beside it (a checkout's {@code ./jslirp}, or an
 * installation's) installed under a prefix ({@link Installer} has the layout), with manual pages
 * made from the command line model ({@link ManPage}) and picocli's bash completion; then what it
 * wrote, and how Podman is pointed at the pasta and slirp4netns it installed.
 */
@Command(name = "install", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Install jslirp as a system tool: under /usr/local as root, else under .local in your home.",
                "It installs PREFIX/bin/jslirp; PREFIX/lib/jslirp with the launcher, the jar, and bin/pasta and"
                        + " bin/slirp4netns for Podman and RootlessKit; manual pages (PREFIX/share/man/man1) and bash"
                        + " completion (PREFIX/share/bash-completion/completions). Installing again replaces an"
                        + " installation, also one in use."},
        footer = {"", "Examples:",
                "  ./jslirp install                     # as root in /usr/local, else in ~/.local",
                "  sudo ./jslirp install                # once ./jslirp has built the jar",
                "  ./jslirp install --prefix /opt/jslirp"})
final class InstallCommand implements Callable<Integer> {
    @Option(names = "--prefix", paramLabel = "DIR", description = "where to install (default: /usr/local as root, else .local in your home)")
    Path prefix;

    @Override
    public Integer call() throws IOException {
        Installer.Layout layout = new Installer.Layout(prefix == null ? defaultPrefix() : prefix);
        Path jar = ownJar();
        Path home = launcherDirectory(jar);
        String completion = AutoComplete.bash("jslirp", Main.commandLine(null));
        List<Path> written = Installer.install(home, jar, layout, manPages(layout), completion);

        System.out.println("jslirp " + BuildInfo.CURRENT.describe() + " installed in " + layout.prefix() + ":");
        for (Path p : written) {
            System.out.println("  " + p + (Files.isSymbolicLink(p) ? " -> " + Files.readSymbolicLink(p) : ""));
        }
        System.out.println();
        System.out.println("Podman's helper directory: " + layout.helpers() + " (pasta and slirp4netns).");
        for (String line : podmanLines(layout)) System.out.println(line);
        Path bin = layout.command().getParent();
        String path = System.getenv("PATH");
        if (path != null && List.of(path.split(":")).stream().noneMatch(d -> !d.isEmpty() && Path.of(d).toAbsolutePath().normalize().equals(bin))) {
            System.out.println();
            System.out.println("Note: " + bin + " is not on PATH; run " + layout.command() + ", or add " + bin + " to PATH.");
        }
        return 0;
    }

    /** The manual pages of every command, the root's with where this installation's files are; and jslirp-pasta's. */
    static List<ManPage.Page> manPages(Installer.Layout layout) {
        String source = "jslirp " + BuildInfo.CURRENT.version();
        List<ManPage.Page> pages = new ArrayList<>(ManPage.pages(Main.commandLine(null).getCommandSpec(), source,
                List.of(new ManPage.Section("PODMAN AND ROOTLESSKIT", podmanLines(layout)),
                        new ManPage.Section("FILES", filesLines(layout))),
                List.of()));
        // pasta is in the command list (PastaEntry), but its page is pasta's own help, not picocli's summary
        ManPage.Page pasta = pastaPage(layout, source);
        pages.removeIf(p -> p.fileName().equals(pasta.fileName()));
        pages.add(pasta);
        return pages;
    }

    /** /usr/local for root, ~/.local for anyone else. */
    static Path defaultPrefix() throws IOException {
        Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (uid instanceof Integer u && u == 0) return Path.of("/usr/local");
        return home().resolve(".local");
    }

    /** $HOME, as the launcher and a shell's ~ have it (the password file's home where it is unset). */
    static Path home() {
        String h = System.getenv("HOME");
        return Path.of(h != null && !h.isBlank() ? h : System.getProperty("user.home"));
    }

    /** The jar this class came from. */
    static Path ownJar() throws IOException {
        try {
            Path p = Path.of(InstallCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(p)) throw new IOException("jslirp is not running from its jar (" + p + "): build it with mvn package");
            return p;
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new IOException("cannot tell where jslirp's jar is: " + e);
        }
    }

    /** The launcher's directory: the jar's own (an installation), or the one above target/ (a checkout). */
    static Path launcherDirectory(Path jar) throws IOException {
        Path dir = jar.toAbsolutePath().getParent();
        for (Path d : new Path[] {dir, dir.getParent()}) {
            if (d != null && Files.isRegularFile(d.resolve("jslirp")) && Files.isDirectory(d.resolve("scripts"))) return d;
        }
        throw new IOException("no jslirp launcher beside " + jar + " (install from a checkout: ./jslirp install)");
    }

    /** How Podman and RootlessKit are pointed at the installation's pasta and slirp4netns: paragraphs and indented lines. */
    static List<String> podmanLines(Installer.Layout layout) {
        Path helpers = layout.helpers();
        return List.of(
                "Podman 5 and 6 (pasta) find pasta in containers.conf's helper_binaries_dir, Podman 4 and 5",
                "(slirp4netns) take slirp4netns from network_cmd_path. In /etc/containers/containers.conf, or",
                "~/.config/containers/containers.conf for one user:",
                "  [engine]",
                "  # the directories after the first are Podman's own, where its other helpers are",
                "  helper_binaries_dir = [",
                "    \"" + helpers + "\",",
                "    \"/usr/local/libexec/podman\", \"/usr/local/lib/podman\",",
                "    \"/usr/libexec/podman\", \"/usr/lib/podman\",",
                "  ]",
                "  network_cmd_path = \"" + helpers.resolve("slirp4netns") + "\"",
                "",
                "For one Podman command instead:",
                "  CONTAINERS_HELPER_BINARY_DIR=" + helpers + " podman run ...",
                "",
                "With RootlessKit:",
                "  rootlesskit --net=slirp4netns --slirp4netns-binary=" + helpers.resolve("slirp4netns") + " ...",
                "  rootlesskit --net=pasta --pasta-binary=" + helpers.resolve("pasta") + " ...");
    }

    private static List<String> filesLines(Installer.Layout layout) {
        return List.of(
                "  " + layout.lib() + "/",
                "      the launcher (jslirp), the jar, the scripts the launcher sources",
                "  " + layout.helpers() + "/pasta, slirp4netns",
                "      pasta's and slirp4netns's command lines served by jslirp",
                "  " + layout.lib() + "/jslirp-JDKVERSION.aot",
                "  ~/.cache/jslirp/*.aot",
                "      the start-up cache: a JDK AOT cache (about 20 MB) of the classes a run",
                "      loads, made in the background by the first run of each jar and JDK;",
                "      beside the jar where the user may write there, else in the user's",
                "      cache directory. It may be removed at any time: the next run makes it",
                "      again.");
    }

    private static ManPage.Page pastaPage(Installer.Layout layout, String source) {
        PastaOptions.Outcome help = PastaOptions.parse("pasta", List.of("--help"), PortSpec.Ephemeral.DEFAULT, BuildInfo.CURRENT.describe());
        String text = help instanceof PastaOptions.Exit e ? e.stdout() : "";
        Path pasta = layout.helpers().resolve("pasta");
        return ManPage.preformatted("jslirp-pasta", "pasta's command line, served by jslirp",
                List.of(pasta + " [OPTION]... [COMMAND [ARGS]...]", pasta + " [OPTION]... PID", pasta + " [OPTION]... --netns PATH|NAME"),
                List.of(pasta + " takes pasta's options and arguments (what Podman and RootlessKit give pasta) and serves"
                        + " the namespace with jslirp (it runs jslirp pasta). Its help follows. " + layout.helpers().resolve("slirp4netns")
                        + " does the same for slirp4netns's command line (it runs jslirp attach: see jslirp-attach(1))."),
                "OPTIONS", text, source, List.of("jslirp(1)", "jslirp-attach(1)"));
    }
}
