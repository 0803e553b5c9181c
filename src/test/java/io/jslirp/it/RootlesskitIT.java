package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * rootlesskit with jslirp as its slirp4netns ({@code bin/slirp4netns}): its slirp4netns network
 * driver (feature detection through --help, the tap it creates itself, the ready fd) and its
 * slirp4netns port driver (add_hostfwd through the API socket), with jslirp's seccomp filter on, serve a web server in the child's
 * namespace on the host's 127.0.0.1. As root rootlesskit needs subordinate ids for root: the test
 * gives it some in a private mount namespace (bind-mounted /etc/subuid and /etc/subgid).
 */
class RootlesskitIT {
    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void rootlesskitForwardsAPortToItsChildThroughJslirp() throws Exception {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeJslirp("bin/slirp4netns is jslirp's launcher");
        ItEnv.assumeTools("rootlesskit", "newuidmap", "busybox", "curl");
        Path www = Files.createDirectories(tmp.resolve("www"));
        String page = "served through jslirp " + System.nanoTime();
        Files.writeString(www.resolve("index.html"), page);
        for (String f : List.of("subuid", "subgid")) Files.writeString(tmp.resolve(f), "root:200000:65536\n");
        int port = ApiSocketIT.freePort();
        String script = String.join("\n",
                "set -e",
                "mount --bind " + tmp.resolve("subuid") + " /etc/subuid",
                "mount --bind " + tmp.resolve("subgid") + " /etc/subgid",
                "exec rootlesskit --subid-source=static --net=slirp4netns --disable-host-loopback --slirp4netns-seccomp=true"
                        + " --slirp4netns-binary=" + ItEnv.home().resolve("bin/slirp4netns")
                        + " --port-driver=slirp4netns -p 127.0.0.1:" + port + ":80/tcp"
                        + " -- busybox httpd -f -p 80 -h " + www);
        Process kit = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "bash", "-c", script)
                .redirectErrorStream(true).redirectOutput(tmp.resolve("rootlesskit.log").toFile()).start();
        try {
            Cmd.Result r = null;
            for (int i = 0; i < 200 && kit.isAlive(); i++) { // until rootlesskit has the forward up and httpd listens
                r = Cmd.run(Duration.ofSeconds(10), "curl", "-sS", "--max-time", "5", "http://127.0.0.1:" + port + "/");
                if (r.exit() == 0) break;
                Namespace.sleep(200);
            }
            String log = Files.readString(tmp.resolve("rootlesskit.log"));
            assertThat(r).as("rootlesskit log:\n%s", log).isNotNull();
            assertThat(r.exit()).as("%s\nrootlesskit log:\n%s", r, log).isZero();
            assertThat(r.out()).isEqualTo(page);
        } finally {
            kit.destroy(); // SIGTERM: rootlesskit stops its child and its slirp4netns
            if (!kit.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) Cmd.killTree(kit.toHandle());
        }
    }
}
