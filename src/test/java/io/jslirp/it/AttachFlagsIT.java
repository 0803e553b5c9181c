package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** slirp4netns's remaining attach flags, each seen working against the kernel (valid for both stacks). */
class AttachFlagsIT {
    private static final Duration T = Duration.ofSeconds(20);

    @Test
    @Timeout(120)
    void readyFdIsWrittenAndExitFdStopsTheStack() throws Exception {
        ItEnv.assumeStack();
        Path ready = Files.createTempFile("jslirp-it-ready", ".txt");
        try (Namespace ns = Namespace.create()) {
            List<String> attach = Stack.attachCommand(Stack.Options.configured().extra("--ready-fd", "3", "--exit-fd", "4"),
                    Long.toString(ns.pid()));
            // fd 3: a file for the ready signal; fd 4: a pipe that reaches EOF when `sleep` ends.
            String script = "exec \"$@\" 3>'" + ready + "' 4< <(sleep 8)";
            List<String> cmd = new java.util.ArrayList<>(List.of("bash", "-c", script, "bash"));
            cmd.addAll(attach);
            Cmd.Result r = Cmd.run(Duration.ofSeconds(90), cmd);
            assertThat(r.timedOut()).as("the exit fd must stop the stack: %s", r).isFalse();
            assertThat(r.exit()).as("%s", r).isZero();
            assertThat(Files.readString(ready)).as("ready fd").isEqualTo("1");
        } finally {
            Files.deleteIfExists(ready);
        }
    }

    @Test
    @Timeout(120)
    void netnsTypePathAndMacAddress() {
        ItEnv.assumeStack();
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.start(Stack.attachCommand(
                     Stack.Options.configured().extra("--netns-type=path", "--macaddress=02:00:5e:10:20:30"), ns.netnsPath()))) {
            stack.awaitConfigured(ns, "tap0", Duration.ofSeconds(90));
            assertThat(ns.exec(T, "ip", "link", "show", "tap0").out()).contains("02:00:5e:10:20:30");
            assertThat(ns.exec(T, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY).exit()).as(stack.describe()).isZero();
        }
    }

    @Test
    @Timeout(120)
    void disableHostLoopbackClosesTheGatewayToHostLoopback() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().disableHostLoopback())) {
            Cmd.Result r = ns.exec(T, "curl", "-sS", "--connect-timeout", "5",
                    "http://" + Namespace.GATEWAY + ":" + listening.getLocalPort() + "/");
            assertThat(r.exit()).as("a listening host port must not be reachable: %s", r).isIn(7, 28);
        }
    }

    @Test
    @Timeout(120)
    void userNamespacePathForARootlessNamespace() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("unshare");
        // A rootless-style holder: its own user namespace owns its network namespace.
        Stack.Running holder = Stack.start(List.of("unshare", "--user", "--map-root-user", "--net", "--", "sleep", "infinity"));
        try {
            long pid = holder.pid();
            awaitOwnUserns(pid);
            try (Stack.Running stack = Stack.start(Stack.attachCommand(
                    Stack.Options.configured().extra("--userns-path=/proc/" + pid + "/ns/user"), Long.toString(pid)))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                String[] enter = {"nsenter", "--user=/proc/" + pid + "/ns/user", "--net=/proc/" + pid + "/ns/net", "--"};
                while (System.nanoTime() < deadline) {
                    Cmd.Result a = Cmd.run(T, concat(enter, "ip", "-o", "-4", "addr", "show", "tap0"));
                    if (a.out().contains("10.0.2.100/")) break;
                    assertThat(stack.alive()).as(stack.describe()).isTrue();
                    Namespace.sleep(100);
                }
                Cmd.Result ping = Cmd.run(T, concat(enter, "ping", "-c", "1", "-W", "5", Namespace.GATEWAY));
                assertThat(ping.exit()).as("%s\n%s", ping, stack.describe()).isZero();
            }
        } finally {
            holder.close();
        }
    }

    private static void awaitOwnUserns(long pid) {
        try {
            Path self = Path.of("/proc/self/ns/user");
            Path other = Path.of("/proc/" + pid + "/ns/user");
            for (int i = 0; i < 200; i++) {
                if (Files.exists(other) && !Files.isSameFile(self, other)
                        && Files.readString(Path.of("/proc/" + pid + "/comm")).strip().equals("sleep")) {
                    return;
                }
                Namespace.sleep(20);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new AssertionError("unshare --user --net did not start");
    }

    private static List<String> concat(String[] head, String... tail) {
        List<String> l = new java.util.ArrayList<>(List.of(head));
        l.addAll(List.of(tail));
        return l;
    }
}
