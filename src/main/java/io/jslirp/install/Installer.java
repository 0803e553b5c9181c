package io.jslirp.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * jslirp installed under a prefix, as a system tool is:
 * <pre>
 *   PREFIX/lib/jslirp/jslirp            the launcher (finds JDK 25, makes the start-up cache, enters namespaces)
 *   PREFIX/lib/jslirp/jslirp.jar
 *   PREFIX/lib/jslirp/scripts/...       what the launcher sources
 *   PREFIX/lib/jslirp/bin/pasta         pasta's and slirp4netns's command lines (Podman, RootlessKit)
 *   PREFIX/lib/jslirp/bin/slirp4netns
 *   PREFIX/lib/jslirp/installed-files   what lies outside lib/jslirp: for a re-install and uninstall
 *   PREFIX/bin/jslirp                   a relative symbolic link to ../lib/jslirp/jslirp
 *   PREFIX/share/man/man1/jslirp*.1
 *   PREFIX/share/bash-completion/completions/jslirp
 * </pre>
 * Every file is written beside its place and renamed into it, so that a re-install leaves a
 * running jslirp (its jar mapped, its launcher read by bash as it goes) with the files it had.
 * Start-up caches (AOT) made for an earlier jar in lib/jslirp are removed: the new jar gets its own.
 * Modes are set whatever the umask: 0755 for directories and programs, 0644 for the rest.
 */
public final class Installer {
    private Installer() {}

    /** Files the launcher's directory must have, relative to it: the launcher, what it sources, and the two peers' commands. */
    public static final List<String> LAUNCHER_FILES = List.of("jslirp", "scripts/java-home.sh", "scripts/attach-target.sh",
            "scripts/pasta-target.sh", "bin/pasta", "bin/slirp4netns");
    /** Installed when the launcher's directory has them. */
    static final List<String> OPTIONAL_FILES = List.of("LICENSE");
    static final String MANIFEST = "installed-files";
    private static final String PROGRAM = "rwxr-xr-x", DATA = "rw-r--r--";

    /** The places under a prefix (an absolute path). */
    public record Layout(Path prefix) {
        public Layout {
            prefix = prefix.toAbsolutePath().normalize();
        }

        public Path lib() {
            return prefix.resolve("lib/jslirp");
        }

        /** The directory holding pasta and slirp4netns: Podman's helper_binaries_dir. */
        public Path helpers() {
            return lib().resolve("bin");
        }

        public Path jar() {
            return lib().resolve("jslirp.jar");
        }

        public Path command() {
            return prefix.resolve("bin/jslirp");
        }

        public Path man1() {
            return prefix.resolve("share/man/man1");
        }

        public Path completion() {
            return prefix.resolve("share/bash-completion/completions/jslirp");
        }

        Path manifest() {
            return lib().resolve(MANIFEST);
        }
    }

    /**
     * Installs the launcher's directory home (see {@link #LAUNCHER_FILES}) and jar, the pages and
     * the completion script under layout; returns what it wrote, in order.
     */
    public static List<Path> install(Path home, Path jar, Layout layout, List<ManPage.Page> pages, String completion) throws IOException {
        for (String f : LAUNCHER_FILES) {
            if (!Files.isRegularFile(home.resolve(f))) throw new IOException("not found: " + home.resolve(f));
        }
        if (!Files.isRegularFile(jar)) throw new IOException("not found: " + jar);
        Set<Path> before = readManifest(layout);
        List<Path> written = new ArrayList<>();

        Path lib = directories(layout.lib());
        // Sources are read before anything is replaced: installing an installation over itself works too.
        for (String f : LAUNCHER_FILES) {
            Path src = home.resolve(f);
            written.add(copy(src, lib.resolve(f), Files.isExecutable(src) ? PROGRAM : DATA));
        }
        for (String f : OPTIONAL_FILES) {
            if (Files.isRegularFile(home.resolve(f))) written.add(copy(home.resolve(f), lib.resolve(f), DATA));
        }
        written.add(copy(jar, layout.jar(), DATA));
        removeStartupCaches(lib);

        List<Path> outside = new ArrayList<>();
        Path command = layout.command();
        directories(command.getParent());
        if (Files.isDirectory(command, LinkOption.NOFOLLOW_LINKS)) throw new IOException(command + " is a directory");
        Path link = sibling(command);
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, command.getParent().relativize(layout.lib().resolve("jslirp")));
        Files.move(link, command, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        outside.add(command);
        directories(layout.man1());
        for (ManPage.Page p : pages) outside.add(write(layout.man1().resolve(p.fileName()), p.text()));
        directories(layout.completion().getParent());
        outside.add(write(layout.completion(), completion));
        written.addAll(outside);

        // What an earlier installation had and this one has not (a command's page gone).
        for (Path old : before) {
            if (!outside.contains(old)) deleteFile(old);
        }
        StringBuilder manifest = new StringBuilder();
        for (Path p : outside) manifest.append(layout.prefix().relativize(p)).append('\n');
        write(layout.manifest(), manifest.toString());
        return written;
    }

    /**
     * Removes an installation: the files its manifest names, lib/jslirp with its start-up caches,
     * and the invoking user's start-up caches for its jar (cacheDir: ~/.cache/jslirp, or null).
     * Returns what it removed.
     */
    public static List<Path> uninstall(Layout layout, Path cacheDir) throws IOException {
        if (!Files.isRegularFile(layout.manifest())) {
            throw new IOException("no jslirp installation in " + layout.prefix() + " (" + layout.manifest() + " not found)");
        }
        List<Path> removed = new ArrayList<>();
        for (Path p : readManifest(layout)) {
            if (deleteFile(p)) removed.add(p);
        }
        if (cacheDir != null && Files.isDirectory(cacheDir)) {
            // The launcher's name for a cache outside the jar's directory: the jar's path, '/' as '_'.
            String prefix = layout.jar().toString().replace('/', '_').substring(1) + "-";
            try (DirectoryStream<Path> caches = Files.newDirectoryStream(cacheDir, p -> p.getFileName().toString().startsWith(prefix))) {
                for (Path p : caches) {
                    if (deleteFile(p)) removed.add(p);
                }
            }
        }
        deleteTree(layout.lib());
        removed.add(layout.lib());
        return removed;
    }

    /** The paths an installation's manifest names (none when there is no installation). */
    private static Set<Path> readManifest(Layout layout) throws IOException {
        Set<Path> paths = new LinkedHashSet<>();
        if (!Files.isRegularFile(layout.manifest())) return paths;
        for (String line : Files.readAllLines(layout.manifest(), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            Path p = layout.prefix().resolve(line.strip()).normalize();
            // Only what lies under the prefix, whatever the file says.
            if (p.startsWith(layout.prefix()) && !p.equals(layout.prefix())) paths.add(p);
        }
        return paths;
    }

    /** The AOT caches, and the launcher's files about them, that an earlier jar left in lib/jslirp. */
    private static void removeStartupCaches(Path lib) throws IOException {
        try (DirectoryStream<Path> caches = Files.newDirectoryStream(lib, "jslirp-*.aot*")) {
            for (Path p : caches) deleteFile(p);
        }
    }

    /** Creates dir and its missing parents with mode 0755; returns dir. */
    private static Path directories(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path d = dir; d != null && !Files.exists(d, LinkOption.NOFOLLOW_LINKS); d = d.getParent()) missing.add(d);
        Files.createDirectories(dir);
        for (Path d : missing) Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(PROGRAM));
        return dir;
    }

    private static Path copy(Path src, Path dst, String mode) throws IOException {
        directories(dst.getParent());
        Path tmp = sibling(dst);
        Files.deleteIfExists(tmp);
        Files.copy(src, tmp);
        return replace(tmp, dst, mode);
    }

    private static Path write(Path dst, String text) throws IOException {
        Path tmp = sibling(dst);
        Files.deleteIfExists(tmp);
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        return replace(tmp, dst, DATA);
    }

    private static Path replace(Path tmp, Path dst, String mode) throws IOException {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(mode));
        Files.move(tmp, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return dst;
    }

    /** Where a file is written before it is renamed into place. */
    private static Path sibling(Path p) {
        return p.resolveSibling("." + p.getFileName() + ".jslirp-install");
    }

    /** Deletes a file or symbolic link (not a directory); true when there was one. */
    private static boolean deleteFile(Path p) throws IOException {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) return false;
        return Files.deleteIfExists(p);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
