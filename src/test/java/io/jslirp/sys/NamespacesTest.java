package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.check.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Needs root: creates throwaway network namespaces, which vanish with their last thread or process. */
class NamespacesTest {
    @BeforeEach
    void requireRoot() throws IOException {
        Assumptions.assumeTrue(Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.matches("Uid:\\s+0\\s.*")), "needs root");
    }

    /** Where the tap thread stands while the test inspects its namespace from outside. */
    record NetnsThread(int pid, int tid, String tapError, String confError) {}

    @Test
    void tapInUnsharedNamespaceIsConfigured() throws Exception {
        CompletableFuture<NetnsThread> ready = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("netns-test").start(() -> {
            int tap = -1;
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET);
                tap = Tap.open("jtap0");
                assertThat(tap).isPositive();
                InterfaceConfig.setMtu("jtap0", 65520);
                InterfaceConfig.setMac("jtap0", new byte[] {0x02, 0x50, 0, 0, 0, 0x02});
                InterfaceConfig.setIpv4("jtap0", 0x0A000264, 24);
                InterfaceConfig.setUp("jtap0");
                InterfaceConfig.setUp("lo");
                InterfaceConfig.addDefaultRoute(0x0A000202);
                // Failures, safely inside the throwaway namespace.
                String tapError = SysExceptions.messageOf(() -> Tap.open("bad/name"));
                String confError = SysExceptions.messageOf(() -> InterfaceConfig.setMtu("nosuchif0", 1500));
                ready.complete(new NetnsThread(Libc.getpid(), Libc.gettid(), tapError, confError));
                done.await();
            } catch (Throwable e) {
                ready.completeExceptionally(e);
            } finally {
                if (tap >= 0) {
                    Libc.close(tap);
                }
            }
        });
        try {
            NetnsThread n = ready.get(30, TimeUnit.SECONDS);
            String netns = "--net=/proc/" + n.pid() + "/task/" + n.tid() + "/ns/net";
            String addrs = Shell.run("nsenter", netns, "ip", "-o", "addr");
            assertThat(addrs).contains("jtap0    inet 10.0.2.100/24 brd 10.0.2.255");
            assertThat(addrs).contains("lo    inet 127.0.0.1/8");
            String link = Shell.run("nsenter", netns, "ip", "-o", "link", "show", "jtap0");
            assertThat(link).contains("mtu 65520").contains("link/ether 02:50:00:00:00:02").contains(",UP");
            assertThat(Shell.run("nsenter", netns, "ip", "route"))
                    .contains("default via 10.0.2.2 dev jtap0")
                    .contains("10.0.2.0/24 dev jtap0 proto kernel scope link src 10.0.2.100");
            assertThat(Shell.run("ip", "-o", "link")).doesNotContain("jtap0");

            assertThat(n.tapError()).isEqualTo("cannot create tap device bad/name: Invalid argument (EINVAL)");
            assertThat(n.confError()).isEqualTo("set MTU 1500 on nosuchif0: No such device (ENODEV)");
        } finally {
            done.countDown();
            t.join();
        }
    }

    @Test
    void callInNetnsRunsInTheTargetNamespace() throws Exception {
        Process sleeper = new ProcessBuilder("unshare", "--net", "sleep", "30").start();
        try {
            String target = "/proc/" + sleeper.pid() + "/ns/net";
            String own = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Files.readSymbolicLink(Path.of(target)).toString().equals(own)) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(10);
            }
            String targetNs = Files.readSymbolicLink(Path.of(target)).toString();

            String inside = Namespaces.callInNetns(target,
                    () -> Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString());
            assertThat(inside).isEqualTo(targetNs).isNotEqualTo(own);
            assertThat(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString()).isEqualTo(own);

            // A socket made inside stays in that namespace, where loopback is down.
            int fd = Namespaces.callInNetns(target, Sockets::tcp4);
            try {
                assertThat(fd).isPositive();
                assertThat(Sockets.connect4(fd, TcpPair.LOOPBACK, 9)).isEqualTo(-Errno.ENETUNREACH);
            } finally {
                Libc.close(fd);
            }

            IOException thrown = new IOException("from task");
            assertThatThrownBy(() -> Namespaces.callInNetns(target, () -> { throw thrown; })).isSameAs(thrown);
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void callInMissingNamespaceThrows() {
        assertThatThrownBy(() -> Namespaces.callInNetns("/nonexistent/ns/net", () -> 1))
                .isInstanceOfSatisfying(SysException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
    }

    @Test
    void setnsWithWrongTypeFails() {
        int fd = Libc.open("/proc/self/ns/net", Libc.O_RDONLY | Libc.O_CLOEXEC);
        try {
            assertThatThrownBy(() -> Namespaces.setns(fd, Namespaces.CLONE_NEWUSER))
                    .isInstanceOfSatisfying(SysException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        } finally {
            Libc.close(fd);
        }
    }
}
