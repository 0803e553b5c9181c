package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * rootlesskit, run by an ordinary user ({@link TestUser}) as rootless users run it, with jslirp as
 * its slirp4netns ({@code bin/slirp4netns} of the user's copy): its slirp4netns network driver
 * (feature detection through --help, the tap it creates itself, the ready fd) and its slirp4netns
 * port driver (add_hostfwd through the API socket), with jslirp's seccomp filter on and the host's
 * loopback closed to the child, serve a web server in the child's namespace on the host's
 * 127.0.0.1. rootlesskit 1.1 starts slirp4netns as the user outside the child's user namespace and
 * passes the child's PID; jslirp's launcher joins /proc/PID/ns/user before the JVM starts.
 */
class RootlesskitIT {
    private static TestUser user;

    @BeforeAll
    static void createUser() {
        ItEnv.assumeJslirp("bin/slirp4netns is jslirp's launcher");
        ItEnv.assumeTools("rootlesskit", "newuidmap", "newgidmap", "busybox", "curl");
        user = TestUser.create();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    @Test
    @Timeout(120)
    void rootlesskitOfAnOrdinaryUserForwardsAPortToItsChildThroughJslirp() throws Exception {
        Path www = Files.createDirectories(user.work().resolve("www"));
        String page = "served through jslirp " + System.nanoTime();
        Files.writeString(www.resolve("index.html"), page);
        int port = ApiSocketIT.freePort();
        Path log = user.work().resolve("rootlesskit.log");
        Process kit = user.start(log, List.of("rootlesskit", "--net=slirp4netns", "--disable-host-loopback", "--slirp4netns-seccomp=true",
                "--slirp4netns-binary=" + user.install().resolve("bin/slirp4netns"),
                "--port-driver=slirp4netns", "-p", "127.0.0.1:" + port + ":80/tcp",
                "--", "busybox", "httpd", "-f", "-p", "80", "-h", www.toString()));
        try {
            String why = served(kit, log, port, page);

            // The network came from the user's jslirp, in the child's user namespace.
            List<ProcessHandle> procs = user.processes();
            ProcessHandle jslirp = procs.stream().filter(p -> TestUser.commandLine(p).contains(user.install() + "/target/jslirp.jar attach"))
                    .findFirst().orElseThrow(() -> new AssertionError("no jslirp attach among the user's processes: "
                            + procs.stream().map(TestUser::commandLine).toList() + "\n" + why));
            ProcessHandle httpd = procs.stream().filter(p -> TestUser.commandLine(p).startsWith("busybox httpd")).findFirst().orElseThrow();
            assertThat(Files.readSymbolicLink(Path.of("/proc/" + jslirp.pid() + "/ns/user")))
                    .isEqualTo(Files.readSymbolicLink(Path.of("/proc/" + httpd.pid() + "/ns/user")));
        } finally {
            kit.destroy(); // SIGTERM: rootlesskit stops its child and its slirp4netns
            if (!kit.waitFor(20, TimeUnit.SECONDS)) Cmd.killTree(kit.toHandle());
        }
    }

    /**
     * RootlessKit 2's {@code --net=pasta} with the implicit port driver, jslirp's bin/pasta first on
     * PATH (as a user installs it): RootlessKit starts it with its own argument list (CHILDPID,
     * {@code --tcp-ports=auto}), and a port the child binds becomes reachable on the host's loopback
     * through jslirp. RootlessKit 1.1 (Debian 12) has no pasta network; Debian13IT runs this in a
     * Debian 13 root with RootlessKit 2.0.
     */
    @Test
    @Timeout(120)
    void rootlesskitTwoWithPastaAndImplicitPorts() throws Exception {
        rootlesskitTwoWithPasta(false);
    }

    /**
     * The same with {@code --detach-netns}: the child stays in the host's network namespace and the
     * one jslirp serves is $ROOTLESSKIT_STATE_DIR/netns, where the child starts its server with
     * nsenter; the port it binds there reaches the host through jslirp.
     */
    @Test
    @Timeout(120)
    void rootlesskitTwoWithPastaAndDetachedNetns() throws Exception {
        rootlesskitTwoWithPasta(true);
    }

    private void rootlesskitTwoWithPasta(boolean detach) throws Exception {
        String version = Cmd.run(Duration.ofSeconds(10), "rootlesskit", "--version").out().trim();
        int major = Integer.parseInt(version.replaceAll("^rootlesskit version (\\d+)\\..*$", "$1"));
        Assumptions.assumeTrue(major >= 2, () -> version + " has no --net=pasta; Debian13IT runs this with RootlessKit 2.0");
        Path www = Files.createDirectories(user.work().resolve(detach ? "www-detached" : "www-pasta"));
        String page = "served through the pasta of jslirp " + System.nanoTime();
        Files.writeString(www.resolve("index.html"), page);
        int port = ApiSocketIT.freePort();
        Path log = user.work().resolve(detach ? "rootlesskit-detached.log" : "rootlesskit-pasta.log");
        List<String> cmd = new ArrayList<>(List.of("env", "PATH=" + user.install().resolve("bin") + ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
                "rootlesskit", "--net=pasta", "--disable-host-loopback", "--port-driver=implicit"));
        String httpd = "busybox httpd -f -p " + port + " -h " + www;
        if (detach) {
            cmd.addAll(List.of("--detach-netns", "--", "sh", "-c", "exec nsenter --net=\"$ROOTLESSKIT_STATE_DIR/netns\" " + httpd));
        } else {
            cmd.addAll(List.of("--", "sh", "-c", "exec " + httpd));
        }
        Process kit = user.start(log, cmd);
        try {
            String why = served(kit, log, port, page);
            List<ProcessHandle> procs = user.processes();
            assertThat(procs.stream().map(TestUser::commandLine)).as(why).anyMatch(c -> c.contains(user.install() + "/target/jslirp.jar pasta"));
        } finally {
            kit.destroy();
            if (!kit.waitFor(20, TimeUnit.SECONDS)) Cmd.killTree(kit.toHandle());
        }
    }

    /** Fetches page from the host's 127.0.0.1:port while kit runs; returns what to say if a later check fails. */
    private static String served(Process kit, Path log, int port, String page) throws java.io.IOException {
        Cmd.Result r = RootlessIT.fetchFromHost("http://127.0.0.1:" + port + "/", kit::isAlive);
        String why = r + "\nrootlesskit log:\n" + Files.readString(log);
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.out()).isEqualTo(page);
        return why;
    }
}
