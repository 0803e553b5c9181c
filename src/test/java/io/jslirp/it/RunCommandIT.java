package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contract item 8: {@code jslirp run -- COMMAND} runs COMMAND in a new user+network namespace
 * behind the stack and exits with its status; as root and as an ordinary user (rootless).
 * Against slirp4netns these run through a test-only shim (unshare + slirp4netns) to validate the tests.
 */
class RunCommandIT {
    static final String USER = "jslirp-it";

    @Test
    @Timeout(120)
    void exitStatusOfTheCommandIsPassedOn() {
        ItEnv.assumeStack();
        Cmd.Result r = Cmd.run(Duration.ofSeconds(90), Stack.runCommand(List.of(), List.of("sh", "-c", "exit 7")));
        assertThat(r.timedOut()).as("%s", r).isFalse();
        assertThat(r.exit()).as("%s", r).isEqualTo(7);
    }

    @Test
    @Timeout(120)
    void curlInsideRunReachesTheHostThroughTheGateway() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        try (HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90),
                    Stack.runCommand(List.of(), List.of("curl", "-sS", "--max-time", "30", http.guestUrl("/small"))));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }

    /** {@code run --enable-ipv6}: the command's namespace gets its address by SLAAC and reaches host ::1 through fd00::2. */
    @Test
    @Timeout(120)
    void curlOverIpv6InsideRun() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("the slirp4netns shim takes only --mtu");
        ItEnv.assumeTools("curl");
        try (HttpBlobServer http = new HttpBlobServer(java.net.InetAddress.getByName("::1"))) {
            String script = "for i in $(seq 100); do ip -6 -o addr show dev tap0 | grep -q 'inet6 fd00::.*dynamic' "
                    + "&& ! ip -6 -o addr show dev tap0 | grep -q tentative && break; sleep 0.1; done; "
                    + "curl -6 -sS --max-time 30 'http://[fd00::2]:" + http.port() + "/small'";
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90), Stack.runCommand(List.of("--enable-ipv6"), List.of("sh", "-c", script)));
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(r.out()).as("%s", r).isEqualTo(HttpBlobServer.SMALL_BODY);
        }
    }

    @Test
    @Timeout(240)
    void rootlessCurlInsideRun() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl", "useradd", "userdel", "usermod", "runuser");
        Path tun = Path.of("/dev/net/tun");
        Path subuid = Path.of("/etc/subuid"), subgid = Path.of("/etc/subgid");
        String oldSubuid = Files.exists(subuid) ? Files.readString(subuid) : null;
        String oldSubgid = Files.exists(subgid) ? Files.readString(subgid) : null;
        Set<PosixFilePermission> oldTunMode = Files.getPosixFilePermissions(tun);
        Duration t = Duration.ofSeconds(30);
        if (Cmd.run(t, "id", "-u", USER).exit() == 0) {
            // left over from an aborted run of this test: it is ours
            Cmd.run(t, "userdel", "-r", USER);
        }
        Cmd.Result add = Cmd.run(t, "useradd", "-m", "-s", "/bin/sh", USER);
        assumeTrue(add.exit() == 0, () -> "cannot create a test user: " + add);
        try {
            if (!hasRange(subuid, USER) || !hasRange(subgid, USER)) {
                long start = Math.max(nextFree(subuid), nextFree(subgid));
                String range = start + "-" + (start + 65535);
                Cmd.Result mod = Cmd.run(t, "usermod", "--add-subuids", range, "--add-subgids", range, USER);
                assertThat(mod.exit()).as("%s", mod).isZero();
            }
            Cmd.Result userns = asUser(t, List.of("unshare", "--user", "--map-root-user", "true"));
            assumeTrue(userns.exit() == 0, () -> "unprivileged user namespaces are not allowed here: " + userns);

            try (HttpBlobServer http = new HttpBlobServer()) {
                List<String> cmd = Stack.runCommand(List.of(), List.of("curl", "-sS", "--max-time", "30", http.guestUrl("/small")));
                List<String> readable = new ArrayList<>(List.of("test", "-x", cmd.get(0)));
                if (Stack.Kind.selected() == Stack.Kind.JSLIRP) {
                    readable.addAll(List.of("-a", "-r", ItEnv.home().resolve("target/jslirp.jar").toString()));
                }
                Cmd.Result canRead = asUser(t, readable);
                assumeTrue(canRead.exit() == 0, () -> "the stack (repository, jar) is not readable by an ordinary user here: " + canRead);

                Files.setPosixFilePermissions(tun, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
                try {
                    Cmd.Result r = asUser(Duration.ofSeconds(120), cmd);
                    assertThat(r.exit()).as("%s", r).isZero();
                    assertThat(r.out()).as("%s", r).isEqualTo(HttpBlobServer.SMALL_BODY);
                } finally {
                    Files.setPosixFilePermissions(tun, oldTunMode);
                }
            }
        } finally {
            Files.setPosixFilePermissions(tun, oldTunMode);
            Cmd.Result del = Cmd.run(t, "userdel", "-r", USER);
            restore(subuid, oldSubuid);
            restore(subgid, oldSubgid);
            assertThat(del.exit()).as("removing the test user: %s", del).isIn(0, 12); // 12: home dir removal issue only
        }
    }

    private static Cmd.Result asUser(Duration t, List<String> cmd) {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", USER, "--", "sh", "-c", "cd /tmp && exec \"$@\"", "sh"));
        full.addAll(cmd);
        return Cmd.run(t, full, null, Map.of("HOME", "/home/" + USER, "USER", USER, "LOGNAME", USER));
    }

    private static boolean hasRange(Path f, String user) throws Exception {
        return Files.exists(f) && Files.readAllLines(f).stream().anyMatch(l -> l.startsWith(user + ":"));
    }

    /** First id after every range listed in the file (at least 100000). */
    private static long nextFree(Path f) throws Exception {
        long next = 100000;
        if (!Files.exists(f)) return next;
        for (String l : Files.readAllLines(f)) {
            String[] p = l.split(":");
            if (p.length == 3) {
                try {
                    next = Math.max(next, Long.parseLong(p[1]) + Long.parseLong(p[2]));
                } catch (NumberFormatException ignored) {
                    // not a numeric range
                }
            }
        }
        return next;
    }

    private static void restore(Path f, String content) throws Exception {
        if (content == null) Files.deleteIfExists(f);
        else Files.writeString(f, content);
    }
}
