package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PidFdTest {
    @Test
    void becomesReadableWhenTheProcessExits() throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        try (PidFd pidfd = PidFd.open((int) child.pid()); Epoll ep = new Epoll(2)) {
            ep.add(pidfd.fd(), Epoll.IN);
            assertThat(ep.wait(100)).as("readable while the child runs").isZero();
            assertThat(pidfd.exited()).isFalse();

            child.destroy();
            assertThat(ep.wait(10_000)).isEqualTo(1);
            assertThat(ep.readyFd(0)).isEqualTo(pidfd.fd());
            assertThat(pidfd.exited()).isTrue();
            assertThat(pidfd.pid()).isEqualTo((int) child.pid());
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anUnreapedProcessIsReadableAtOnce() throws Exception {
        // The child exits once its parent has become `sleep`, which never reaps it: a zombie (a child
        // that exited before the exec could be reaped by the shell, and then its PID names nothing).
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.3 & echo $!; exec sleep 30").start();
        try {
            int zombie = Integer.parseInt(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream())).readLine().trim());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!Files.readString(Path.of("/proc/" + zombie + "/stat")).contains(") Z ")) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(10);
            }
            try (PidFd pidfd = PidFd.open(zombie)) {
                assertThat(pidfd.exited()).isTrue();
            }
        } finally {
            parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReapedProcessIsNotFound() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();
        // The JDK has reaped it: its PID names no process (unless reused at once, which this kernel does not do).
        assertThatThrownBy(() -> PidFd.open((int) child.pid()))
                .isInstanceOfSatisfying(SysException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ESRCH))
                .hasMessage("pidfd_open " + child.pid() + ": No such process (ESRCH)");
    }

    @Test
    void refusesANonPositivePid() {
        assertThatThrownBy(() -> PidFd.open(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
