package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Rootless Podman of an ordinary user ({@link TestUser}) for the tests that run it (PodmanIT with
 * jslirp as its slirp4netns, PodmanPastaIT with jslirp as its pasta): Podman's options on these
 * machines (hybrid cgroups, no systemd: runc, the cgroupfs manager, vfs storage, a file for its
 * events; its storage in the user's directory), and an image made offline: {@code podman import}
 * of a tar holding a static busybox and its applet links.
 */
final class PodmanFixture {
    static final String IMAGE = "localhost/jslirp-busybox:it";
    private static final Duration T = Duration.ofSeconds(90);

    private PodmanFixture() {}

    /** Makes the user (the caller closes it) and the image; aborts where Podman or a static busybox is missing. */
    static TestUser create() throws Exception {
        ItEnv.assumeTools("podman", "runc", "conmon", "newuidmap", "newgidmap", "busybox", "tar", "curl", "ss");
        Path busybox = ItEnv.which("busybox").toRealPath();
        assumeTrue(PodmanIT.isStatic(busybox), () -> busybox + " is not linked statically (install busybox-static)");
        TestUser user = TestUser.create();
        try {
            Path podman = user.dir().resolve("podman");
            Files.createDirectory(podman);
            user.chown(podman);
            Path rootfs = user.dir().resolve("rootfs");
            Files.createDirectories(rootfs.resolve("bin"));
            Files.copy(busybox, rootfs.resolve("bin/busybox"));
            for (String applet : Cmd.run(T, busybox.toString(), "--list-full").out().lines().toList()) {
                Path link = rootfs.resolve(applet);
                if (applet.isBlank() || Files.exists(link, LinkOption.NOFOLLOW_LINKS)) continue;
                Files.createDirectories(link.getParent());
                Files.createSymbolicLink(link, Path.of("/bin/busybox"));
            }
            Files.createDirectories(rootfs.resolve("www"));
            Files.createDirectories(rootfs.resolve("tmp"));
            Path tar = user.dir().resolve("rootfs.tar");
            Cmd.Result packed = Cmd.run(T, "tar", "-C", rootfs.toString(), "--owner=0", "--group=0", "-cf", tar.toString(), ".");
            assertThat(packed.exit()).as("%s", packed).isZero();
            Cmd.Result imported = user.run(T, podman(user, "import", tar.toString(), IMAGE));
            assertThat(imported.exit()).as("%s", imported).isZero();
        } catch (Exception | Error e) {
            user.close();
            throw e;
        }
        return user;
    }

    /** The podman command line with the options these machines need, then args. */
    static List<String> podman(TestUser user, String... args) {
        Path p = user.dir().resolve("podman");
        List<String> c = new ArrayList<>(List.of("podman", "--root", p.resolve("root").toString(), "--runroot", p.resolve("runroot").toString(),
                "--tmpdir", p.resolve("tmp").toString(), "--storage-driver=vfs", "--runtime=runc", "--cgroup-manager=cgroupfs",
                "--events-backend=file"));
        c.addAll(List.of(args));
        return c;
    }

    /** Podman's major version ("podman version 5.4.2" → 5). */
    static int majorVersion() {
        String v = Cmd.run(T, "podman", "--version").out().trim();
        return Integer.parseInt(v.replaceAll("^podman version (\\d+)\\..*$", "$1"));
    }
}
