package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --enable-sandbox} as slirp4netns's own tests check it, run as they run: an ordinary user
 * ({@link TestUser}) starts {@code bin/slirp4netns} for a namespace of its own. The checks of
 * slirp4netns 1.3's {@code test-slirp4netns-sandbox.sh} (getpcaps shows cap_net_bind_service and
 * not cap_sys_admin; the process's root has /etc and /run, not /home, /root or /var) and of {@code
 * test-slirp4netns-sandbox-no-unmount.sh} (the caller's shared mount under /run stays mounted), each
 * once the sandboxed program has said it is ready (the upstream no-unmount script looks as soon as
 * the device exists, before the sandbox is made), and beyond them: every capability set and the
 * bounding set down to CAP_NET_BIND_SERVICE, no_new_privs, the seccomp filter on every thread, no
 * /proc or /tmp in the root, what the program itself meets from inside (a mount, a write and a
 * filtered call refused: the test-only probe, {@code JSLIRP_SANDBOX_PROBE}), and the network still
 * served through it: 1 MiB from the host's 127.0.0.1 byte-exact, the API socket answering.
 */
class SandboxIT {
    private static final Duration T = Duration.ofSeconds(90);
    private static TestUser user;

    /** Waits (up to 30 s) for the ready file to say 1 while $slirp lives. */
    private static final String AWAIT_READY = """
            for i in $(seq 300); do grep -q 1 ready.file 2>/dev/null && break; kill -0 $slirp 2>/dev/null || break; sleep 0.1; done
            echo "READY $(cat ready.file)"
            """;

    @BeforeAll
    static void createUser() {
        ItEnv.assumeJslirp("the user runs bin/slirp4netns");
        ItEnv.assumeTools("curl", "sha256sum", "getpcaps", "findmnt", "nsenter");
        user = TestUser.create();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) user.close();
    }

    @AfterEach
    void killTheUsersProcesses() {
        if (user != null) user.killProcesses();
    }

    @Test
    @Timeout(180)
    void sandboxKeepsOnlyWhatItNeedsAndServes() throws Exception {
        Process holder = user.start(user.work().resolve("holder.log"),
                List.of("unshare", "--user", "--map-root-user", "--net", "sleep", "infinity"));
        Namespace.awaitOwnNetns(holder);
        Namespace.guardEgress("/proc/" + holder.pid() + "/ns/net", false);
        String api = user.runtimeDir().resolve("api.sock").toString();
        try (HttpBlobServer http = new HttpBlobServer()) {
            String script = """
                    cd "$1"
                    JSLIRP_SANDBOX_PROBE=1 PATH="$2/bin:$PATH" slirp4netns --ready-fd=3 --enable-sandbox --enable-seccomp --configure \\
                        --api-socket "$3" "$4" tap11 3>ready.file 2>slirp.err &
                    slirp=$!
                    %s
                    getpcaps $slirp 2>&1 | tail -n1 | sed 's/^/CAPS /'
                    grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/$slirp/status | tr -d '\\t' | sed 's/^/STATUS /'
                    for t in /proc/$slirp/task/*; do grep -q '^Seccomp:.2' $t/status || echo "UNFILTERED $t"; done
                    for d in etc run usr home root var tmp proc; do test -e /proc/$slirp/root/$d && echo "HAS $d"; done
                    nsenter --preserve-credentials -U -n -t "$4" -- curl -sS --max-time 30 "$5" | sha256sum | sed 's/ .*//; s/^/SHA /'
                    "$2/jslirp" status --api-socket "$3" >status.out 2>&1; echo "API $?"
                    kill -0 $slirp && echo ALIVE
                    kill $slirp; wait $slirp
                    sed 's/^/ERR /' slirp.err
                    """.formatted(AWAIT_READY);
            Cmd.Result r = user.run(T, "bash", "-c", script, "sandbox", user.work().toString(), user.install().toString(), api,
                    Long.toString(holder.pid()), http.guestUrl("/blob?seed=46&size=" + Blob.MIB));
            String out = r.out();
            assertThat(out).as("%s", r).contains("READY 1", "ALIVE", "API 0");
            String caps = line(out, "CAPS ");
            assertThat(caps).as("test-slirp4netns-sandbox.sh's check").contains("cap_net_bind_service").doesNotContain("cap_sys_admin");
            // CAP_NET_BIND_SERVICE (bit 10) alone in every set but the ambient one, which is empty
            assertThat(out).contains("STATUS CapPrm:0000000000000400", "STATUS CapEff:0000000000000400",
                    "STATUS CapBnd:0000000000000400", "STATUS CapAmb:0000000000000000", "STATUS NoNewPrivs:1");
            assertThat(out).as("every thread under the filter").doesNotContain("UNFILTERED");
            assertThat(out).as("what the root holds").contains("HAS etc", "HAS run", "HAS usr")
                    .doesNotContain("HAS home", "HAS root", "HAS var", "HAS tmp", "HAS proc");
            assertThat(line(out, "SHA ")).as("%s", r).isEqualTo(Blob.sha256(46, Blob.MIB));
            assertThat(Files.readString(user.work().resolve("status.out"))).contains("tcp_connections");
            // from inside (the test-only probe): a mount and a write refused, unshare refused by the
            // filter, the host's directories gone
            assertThat(line(out, "ERR jslirp: sandbox probe: ")).isEqualTo("mount refused Operation not permitted (EPERM); unshare(0) refused"
                    + " Operation not permitted (EPERM); write /etc refused FileSystemException; /home absent; /root absent; /var absent;"
                    + " /tmp absent; /proc absent");
        }
    }

    /**
     * test-slirp4netns-sandbox-no-unmount.sh: in a mount namespace of the user's, /run a tmpfs made
     * rshared with another tmpfs at /run/foo; the sandbox's detaching of its old root must not
     * unmount /run/foo in the caller's namespace. Checked once the sandbox is made (ready), and
     * /run/foo is seen inside the sandbox too (its /run a slave of the caller's).
     */
    @Test
    @Timeout(180)
    void sandboxLeavesTheCallersMountsAlone() {
        String script = """
                cd "$1"
                mount -t tmpfs tmpfs /run
                mkdir /run/foo
                mount -t tmpfs tmpfs /run/foo
                mount --make-rshared /run
                unshare -n sleep infinity &
                child=$!
                for i in $(seq 100); do [ "$(readlink /proc/$child/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.1; done
                PATH="$2/bin:$PATH" slirp4netns --ready-fd=3 --enable-sandbox --netns-type=path /proc/$child/ns/net tap11 3>ready.file 2>slirp.err &
                slirp=$!
                %s
                findmnt /run/foo >/dev/null && echo MOUNTED
                test -d /proc/$slirp/root/run/foo && echo INSIDE
                kill $slirp $child; wait
                sed 's/^/ERR /' slirp.err
                """.formatted(AWAIT_READY);
        Cmd.Result r = user.run(T, "unshare", "--user", "--map-root-user", "--mount", "bash", "-c", script, "no-unmount",
                user.work().toString(), user.install().toString());
        assertThat(r.out()).as("%s", r).contains("READY 1", "MOUNTED", "INSIDE");
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new AssertionError("no line " + prefix + "in:\n" + out));
    }
}
