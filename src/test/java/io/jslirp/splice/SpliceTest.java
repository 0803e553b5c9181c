package io.jslirp.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.sys.Errno;
import io.jslirp.flow.Flows;
import io.jslirp.sys.HostSockets;
import io.jslirp.util.AddressBook;
import io.jslirp.sys.SysException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Splices between the host's loopback and the loopback of a namespace the test makes (root only):
 * bytes both ways byte-exact, half-close, resets, a refused target, the client's loopback address
 * kept, IPv6, UDP flows and their idle end.
 */
class SpliceTest {
    private TestNetns ns;
    private LoopThread lt;
    private Splices splices;

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(TestNetns.root(), "needs root");
        ns = TestNetns.create();
        lt = new LoopThread();
        splices = lt.call(() -> new Splices(lt.loop, new Flows(new AddressBook())));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (lt != null) {
            lt.run(splices::close);
            lt.close();
        }
        if (ns != null) ns.close();
    }

    private static InetAddress lo4() throws IOException {
        return InetAddress.getByName("127.0.0.1");
    }

    /** A listener on the host's 127.0.0.1 (or ::1) spliced to the namespace's at nsPort: its port. */
    private int hostToNs(boolean ipv6, int nsPort) throws Exception {
        return lt.call(() -> new SpliceListener(lt.loop, splices, Endpoint.loopback(HostSockets.SYSTEM, ipv6, 0),
                Endpoint.loopback(ns.sockets(), ipv6, nsPort), null).port());
    }

    /**
     * Pipes are sized as pasta sizes them: the largest of 8 MiB and its halves that a pool of pipes
     * all take: at least fs.pipe-max-size (anyone may set that much; more with CAP_SYS_RESOURCE).
     */
    @Test
    void pipesGetTheLargestSizeThePoolTakes() throws IOException {
        int size = Splices.probePipeSize();
        assertThat(Integer.bitCount(size)).as("a power of two: %d", size).isEqualTo(1);
        assertThat(size).isBetween(Splices.KERNEL_PIPE_SIZE, Splices.MAX_PIPE_SIZE);
        long max = Long.parseLong(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/fs/pipe-max-size")).trim());
        // fs.pipe-max-size is what anyone may set (more with CAP_SYS_RESOURCE), and 32 pipes of it
        // stay within fs.pipe-user-pages-soft's default (64 MiB)
        long allowed = Long.highestOneBit(Math.min(max, Splices.MAX_PIPE_SIZE));
        assertThat((long) size).as("fs.pipe-max-size %d", max).isGreaterThanOrEqualTo(Math.max(allowed, Splices.KERNEL_PIPE_SIZE));
    }

    @Test
    void tenMebibytesEachWayAreByteExact() throws Exception {
        try (ServerSocket server = ns.call(() -> new ServerSocket(0, 8, lo4()))) {
            int port = hostToNs(false, server.getLocalPort());
            byte[] up = random(10 << 20, 1), down = random(10 << 20, 2);
            CompletableFuture<byte[]> serverGot = async(() -> {
                try (Socket s = server.accept()) {
                    CompletableFuture<Void> send = async(() -> {
                        write(s, down, true);
                        return null;
                    });
                    byte[] got = s.getInputStream().readAllBytes();
                    send.get(60, TimeUnit.SECONDS);
                    return got;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Socket c = new Socket(lo4(), port)) {
                CompletableFuture<Void> send = async(() -> {
                    write(c, up, true);
                    return null;
                });
                byte[] got = c.getInputStream().readAllBytes();
                send.get(60, TimeUnit.SECONDS);
                assertThat(sha256(got)).isEqualTo(sha256(down));
            }
            assertThat(sha256(serverGot.get(60, TimeUnit.SECONDS))).isEqualTo(sha256(up));
            assertThat(lt.call(() -> splices.toTarget())).isEqualTo(10 << 20);
            assertThat(lt.call(() -> splices.toClient())).isEqualTo(10 << 20);
            awaitOpen(0);
            assertThat(lt.call(() -> splices.resets())).isZero();
        }
    }

    @Test
    void halfCloseIsPassedOnAndTheOtherWayStaysOpen() throws Exception {
        try (ServerSocket server = ns.call(() -> new ServerSocket(0, 8, lo4()))) {
            int port = hostToNs(false, server.getLocalPort());
            CompletableFuture<String> serverSaw = async(() -> {
                try (Socket s = server.accept()) {
                    String request = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII); // to EOF
                    s.getOutputStream().write(("got " + request).getBytes(StandardCharsets.US_ASCII));
                    return request;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Socket c = new Socket(lo4(), port)) {
                c.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
                c.shutdownOutput();
                assertThat(new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("got hello");
            }
            assertThat(serverSaw.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
            awaitOpen(0);
        }
    }

    @Test
    void aResetOnEitherSideResetsTheOther() throws Exception {
        try (ServerSocket server = ns.call(() -> new ServerSocket(0, 8, lo4()))) {
            int port = hostToNs(false, server.getLocalPort());
            // The target resets: the client sees a reset.
            try (Socket c = new Socket(lo4(), port); Socket s = server.accept()) {
                c.getOutputStream().write(1);
                assertThat(s.getInputStream().read()).isEqualTo(1);
                s.setSoLinger(true, 0);
                s.close();
                assertThatThrownBy(() -> c.getInputStream().read()).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            }
            // The client resets: the target sees a reset.
            try (Socket c = new Socket(lo4(), port); Socket s = server.accept()) {
                s.getOutputStream().write(2);
                assertThat(c.getInputStream().read()).isEqualTo(2);
                c.setSoLinger(true, 0);
                c.close();
                assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            }
            awaitOpen(0);
            assertThat(lt.call(() -> splices.resets())).isEqualTo(2);
        }
    }

    @Test
    void aRefusedTargetResetsTheClient() throws Exception {
        int port = hostToNs(false, 9); // nothing listens in the namespace
        try (Socket c = new Socket(lo4(), port)) {
            assertThatThrownBy(() -> c.getInputStream().read()).isInstanceOf(SocketException.class).hasMessageContaining("reset");
        }
        awaitOpen(0);
        assertThat(lt.call(() -> splices.refused())).isEqualTo(1);
    }

    @Test
    void theTargetSeesTheClientsLoopbackAddress() throws Exception {
        try (ServerSocket server = ns.call(() -> new ServerSocket(0, 8, InetAddress.getByName("0.0.0.0")))) {
            int port = hostToNs(false, server.getLocalPort());
            try (Socket c = new Socket()) {
                c.bind(new InetSocketAddress("127.0.0.2", 0));
                c.connect(new InetSocketAddress(lo4(), port));
                try (Socket s = server.accept()) {
                    assertThat(s.getInetAddress().getHostAddress()).isEqualTo("127.0.0.2");
                    assertThat(s.getPort()).isNotEqualTo(c.getLocalPort()); // TCP: the kernel's port, as pasta
                }
            }
        }
    }

    @Test
    void ipv6LoopbackToIpv6Loopback() throws Exception {
        InetAddress lo6 = InetAddress.getByName("::1");
        try (ServerSocket server = ns.call(() -> new ServerSocket(0, 8, lo6))) {
            int port = hostToNs(true, server.getLocalPort());
            try (Socket c = new Socket(lo6, port); Socket s = server.accept()) {
                assertThat(s.getInetAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
                c.getOutputStream().write("six".getBytes(StandardCharsets.US_ASCII));
                c.shutdownOutput();
                assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("six");
            }
        }
    }

    @Test
    void aTakenPortIsRefusedWithItsErrno() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 8, lo4())) {
            assertThatThrownBy(() -> lt.call(() -> new SpliceListener(lt.loop, splices,
                    Endpoint.loopback(HostSockets.SYSTEM, false, taken.getLocalPort()), Endpoint.loopback(ns.sockets(), false, 80), null)))
                    .isInstanceOfSatisfying(SysException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        }
    }

    @Test
    void nonLoopbackClientsGoToOthers() throws Exception {
        // A listener inside the namespace on every address; a client from an address of the namespace's own.
        ns.run("ip", "addr", "add", "10.211.0.77/32", "dev", "lo");
        CompletableFuture<String> taken = new CompletableFuture<>();
        int port = lt.call(() -> new SpliceListener(lt.loop, splices, new Endpoint(ns.sockets(), 0, 0xffff_0000_0000L, 0),
                Endpoint.loopback(HostSockets.SYSTEM, false, 9), (fd, peer) -> {
                    taken.complete(Endpoint.format(peer[0], peer[1]));
                    HostSockets.SYSTEM.close(fd);
                }).port());
        try (Socket c = ns.call(() -> {
            Socket s = new Socket();
            s.bind(new InetSocketAddress("10.211.0.77", 0));
            s.connect(new InetSocketAddress("10.211.0.77", port));
            return s;
        })) {
            assertThat(taken.get(10, TimeUnit.SECONDS)).isEqualTo("10.211.0.77");
        }
        assertThat(lt.call(() -> splices.spliced())).isZero();
    }

    /**
     * A loopback client for which no descriptor is left to splice it (a splice takes a socket and
     * two pipes; a burst of thousands of clients at once reached the limit) goes to others, the tap
     * path of -t, rather than being reset; where there are no others it is reset.
     */
    @Test
    void aLoopbackClientWithNoDescriptorsLeftForASpliceGoesToOthers() throws Exception {
        HostSockets real = ns.sockets();
        HostSockets exhausted = (HostSockets) java.lang.reflect.Proxy.newProxyInstance(HostSockets.class.getClassLoader(),
                new Class<?>[] {HostSockets.class}, (proxy, m, args) -> m.getName().equals("tcp") ? -Errno.EMFILE : m.invoke(real, args));
        CompletableFuture<String> taken = new CompletableFuture<>();
        int port = lt.call(() -> new SpliceListener(lt.loop, splices, Endpoint.loopback(HostSockets.SYSTEM, false, 0),
                Endpoint.loopback(exhausted, false, 80), (fd, peer) -> {
                    taken.complete(Endpoint.format(peer[0], peer[1]));
                    HostSockets.SYSTEM.close(fd);
                }).port());
        try (Socket c = new Socket(lo4(), port)) {
            assertThat(taken.get(10, TimeUnit.SECONDS)).isEqualTo("127.0.0.1");
        }
        assertThat(lt.call(() -> splices.declined())).isEqualTo(1);
        assertThat(lt.call(() -> splices.refused())).isZero();

        int alone = lt.call(() -> new SpliceListener(lt.loop, splices, Endpoint.loopback(HostSockets.SYSTEM, false, 0),
                Endpoint.loopback(exhausted, false, 80), null).port());
        try (Socket c = new Socket(lo4(), alone)) {
            c.setSoTimeout(10_000);
            assertThatThrownBy(() -> c.getInputStream().read()).as("reset").isInstanceOf(java.net.SocketException.class);
        }
        assertThat(lt.call(() -> splices.refused())).isEqualTo(1);
        assertThat(lt.call(() -> splices.declined())).isEqualTo(1);
    }

    @Test
    void udpFlowsKeepTheSourcePortAndEndWhenIdle() throws Exception {
        try (DatagramSocket echo = ns.call(() -> new DatagramSocket(new InetSocketAddress(lo4(), 0)))) {
            CompletableFuture<Integer> seenPort = new CompletableFuture<>();
            Thread echoer = Thread.ofPlatform().start(() -> {
                byte[] b = new byte[2048];
                try {
                    while (true) {
                        DatagramPacket p = new DatagramPacket(b, b.length);
                        echo.receive(p);
                        seenPort.complete(p.getPort());
                        echo.send(new DatagramPacket(b, p.getLength(), p.getSocketAddress()));
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            UdpSplice[] splice = new UdpSplice[1];
            int port = lt.call(() -> {
                splice[0] = new UdpSplice(lt.loop, splices, Endpoint.loopback(HostSockets.SYSTEM, false, 0),
                        Endpoint.loopback(ns.sockets(), false, echo.getLocalPort()), 300_000_000L, null);
                return splice[0].port();
            });
            try (DatagramSocket c = new DatagramSocket(new InetSocketAddress(lo4(), 0))) {
                c.setSoTimeout(5000);
                for (int i = 0; i < 3; i++) {
                    byte[] msg = ("ping " + i).getBytes(StandardCharsets.US_ASCII);
                    c.send(new DatagramPacket(msg, msg.length, lo4(), port));
                    DatagramPacket reply = new DatagramPacket(new byte[2048], 2048);
                    c.receive(reply);
                    assertThat(new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII)).isEqualTo("ping " + i);
                    assertThat(reply.getPort()).isEqualTo(port);
                }
                assertThat(seenPort.get(5, TimeUnit.SECONDS)).isEqualTo(c.getLocalPort());
                assertThat(lt.call(() -> splice[0].size())).isEqualTo(1);
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (lt.call(() -> splice[0].size()) != 0) {
                    assertThat(System.nanoTime()).as("the idle flow ends").isLessThan(deadline);
                    Thread.sleep(50);
                }
                lt.run(splice[0]::close);
            } finally {
                echo.close();
                echoer.join(5000);
            }
        }
    }

    private void awaitOpen(int n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (lt.call(() -> splices.size()) != n) {
            assertThat(System.nanoTime()).as("spliced connections close").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** task on a platform thread of its own (the common pool may have one thread on this machine). */
    static <T> CompletableFuture<T> async(java.util.function.Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                f.complete(task.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void write(Socket s, byte[] data, boolean shutdown) {
        try {
            OutputStream out = s.getOutputStream();
            for (int off = 0; off < data.length; off += 65536) out.write(data, off, Math.min(65536, data.length - off));
            out.flush();
            if (shutdown) s.shutdownOutput();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256(byte[] data) throws Exception {
        return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @SuppressWarnings("unused")
    private static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }
}
