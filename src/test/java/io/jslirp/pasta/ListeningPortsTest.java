package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.InterfaceConfig;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Sockets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ListeningPortsTest {
    private static final String TCP = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:DE27 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1245876 1 00000000136ba9e9 100 0 0 10 0
               1: 0100007F:C84B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1242023 1 00000000c6c520a8 100 0 0 10 0
               2: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 555 1 00000000e5aceb2f 100 0 0 10 0
               3: 0100007F:E8EA 0100007F:DE27 01 00000000:00000000 00:00000000 00000000     0        0 1245885 1 000000006ebe5563 20 4 29 14 -1
               4: garbage
               5: 0100007F:GGGG 00000000:0000 0A 00000000:00000000
            """;
    private static final String UDP6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
              10: 00000000000000000000000001000000:14E9 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000   104        0 21310 2 0000000000000000 0
              11: 00000000000000000000000001000000:1770 00000000000000000000000001000000:1771 01 00000000:00000000 00:00000000 00000000     0        0 21311 2 0000000000000000 0
            """;

    private static List<Integer> parse(String text, int state) {
        BitSet ports = new BitSet();
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        ListeningPorts.parse(b, b.length, state, ports);
        return ports.stream().boxed().toList();
    }

    @Test
    void listenersFromProcNetText() {
        assertThat(parse(TCP, ListeningPorts.TCP_LISTEN)).containsExactly(2024, 51275, 56871);
        assertThat(parse(UDP6, ListeningPorts.UDP_UNCONNECTED)).as("not the connected socket").containsExactly(5353);
        assertThat(parse(TCP.lines().findFirst().orElseThrow(), ListeningPorts.TCP_LISTEN)).isEmpty();
        assertThat(parse("", ListeningPorts.TCP_LISTEN)).isEmpty();
    }

    @Test
    void autoRules() {
        BitSet listening = bits(22, 80, 5201), reverse = bits(80), udp = bits(53, 6000);
        assertThat(AutoPorts.tcp(listening, reverse).stream().boxed().toList()).containsExactly(22, 5201);
        assertThat(AutoPorts.udp(udp, listening, bits(6000), reverse).stream().boxed().toList())
                .as("UDP with auto TCP's ports, less both reverse maps").containsExactly(22, 53, 5201);
        assertThat(AutoPorts.udp(udp, null, new BitSet(), new BitSet()).stream().boxed().toList()).containsExactly(53, 6000);
        assertThat(listening.cardinality()).as("inputs unchanged").isEqualTo(3);
    }

    private static BitSet bits(int... ports) {
        BitSet b = new BitSet();
        for (int p : ports) b.set(p);
        return b;
    }

    /** A platform thread in a network namespace of its own, running what it is given. */
    private static final class NetnsThread implements AutoCloseable {
        private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
        private final Thread thread;
        private final String path;

        NetnsThread() throws Exception {
            CompletableFuture<String> ready = new CompletableFuture<>();
            thread = Thread.ofPlatform().name("netns").start(() -> {
                try {
                    Namespaces.unshare(Namespaces.CLONE_NEWNET);
                    InterfaceConfig.setUp("lo");
                    ready.complete("/proc/" + Libc.getpid() + "/task/" + Libc.gettid() + "/ns/net");
                    for (Runnable r; (r = work.take()) != STOP; ) r.run();
                } catch (Throwable e) {
                    ready.completeExceptionally(e);
                }
            });
            path = ready.get(10, TimeUnit.SECONDS);
        }

        <T> T call(Callable<T> task) throws Exception {
            CompletableFuture<T> result = new CompletableFuture<>();
            work.add(() -> {
                try {
                    result.complete(task.call());
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
            return result.get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            work.add(STOP);
            thread.join();
        }

        private static final Runnable STOP = () -> {};
    }

    @Test
    void scansANamespaceFromOutsideAndSeesItChange() throws Exception {
        Assumptions.assumeTrue(Files.readAllLines(Path.of("/proc/self/status")).stream().anyMatch(l -> l.matches("Uid:\\s+0\\s.*")),
                "needs root");
        int loopback = 0x7F000001;
        try (NetnsThread ns = new NetnsThread()) {
            int tcp4 = ns.call(() -> {
                int fd = Sockets.tcp4();
                return ok(fd, Sockets.bind4(fd, loopback, 7777), Sockets.listen(fd, 8));
            });
            int tcp6 = ns.call(() -> {
                int fd = Sockets.tcp6();
                return ok(fd, Sockets.bind(fd, 0, 0, 8443), Sockets.listen(fd, 8));
            });
            int udp4 = ns.call(() -> {
                int fd = Sockets.udp4();
                return ok(fd, Sockets.bind4(fd, 0, 5353), 0);
            });
            int udp6Connected = ns.call(() -> {
                int fd = Sockets.udp6();
                return ok(fd, Sockets.bind(fd, 0, 1, 6000), Sockets.connect(fd, 0, 1, 0, 6001));
            });
            int client = ns.call(() -> {
                int fd = Sockets.tcp4();
                int r = Sockets.connect4(fd, loopback, 7777);
                assertThat(r == 0 || r == -io.jslirp.sys.Errno.EINPROGRESS).isTrue();
                return fd;
            });
            try (ListeningPorts diag = ListeningPorts.open(ns.path);
                 ListeningPorts proc = Namespaces.callInNetns(ns.path, () -> ListeningPorts.here(false))) {
                assertThat(diag.fromProc(true) || diag.fromProc(false)).as("this kernel dumps TCP and UDP sockets").isFalse();
                assertThat(proc.fromProc(true) && proc.fromProc(false)).isTrue();
                for (ListeningPorts ports : List.of(diag, proc)) {
                    assertThat(ports.tcp().stream().boxed().toList()).containsExactly(7777, 8443);
                    assertThat(ports.udp().stream().boxed().toList()).containsExactly(5353);
                }
                ns.call(() -> Libc.close(tcp4));
                int udp6 = ns.call(() -> {
                    int fd = Sockets.udp6();
                    return ok(fd, Sockets.bind(fd, 0, 0, 9999), 0);
                });
                for (ListeningPorts ports : List.of(diag, proc)) {
                    assertThat(ports.tcp().stream().boxed().toList()).as("asked anew").containsExactly(8443);
                    assertThat(ports.udp().stream().boxed().toList()).containsExactly(5353, 9999);
                }
                ns.call(() -> Libc.close(udp6));
                assertThat(diag.udp().stream().boxed().toList()).containsExactly(5353);
            } finally {
                for (int fd : new int[] {tcp6, udp4, udp6Connected, client}) ns.call(() -> Libc.close(fd));
            }
        }
    }

    /** fd, once it and the calls made on it (bind, listen, connect) have succeeded. */
    private static int ok(int fd, int... results) {
        assertThat(fd).isPositive();
        assertThat(results).containsOnly(0);
        return fd;
    }
}
