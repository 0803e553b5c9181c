package io.jslirp.cli;

import io.jslirp.install.Installer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code jslirp uninstall}: removes what {@code jslirp install} put under a prefix. */
@Command(name = "uninstall", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Remove what jslirp install installed.",
                "It removes PREFIX/lib/jslirp (with its start-up caches), PREFIX/bin/jslirp, the manual pages and the bash"
                        + " completion it wrote, and your own start-up caches of its jar."},
        footer = {"", "Examples:", "  jslirp uninstall", "  sudo jslirp uninstall --prefix /usr/local"})
final class UninstallCommand implements Callable<Integer> {
    @Option(names = "--prefix", paramLabel = "DIR", description = "the installation's prefix (default: /usr/local as root, else ~/.local)")
    Path prefix;

    @Override
    public Integer call() throws IOException {
        Installer.Layout layout = new Installer.Layout(prefix == null ? InstallCommand.defaultPrefix() : prefix);
        String cache = System.getenv("XDG_CACHE_HOME");
        Path cacheDir = cache != null && !cache.isBlank() ? Path.of(cache, "jslirp") : InstallCommand.home().resolve(".cache/jslirp");
        List<Path> removed = Installer.uninstall(layout, cacheDir);
        System.out.println("jslirp removed from " + layout.prefix() + ":");
        for (Path p : removed) System.out.println("  " + p);
        return 0;
    }
}
