package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8, host-side faults (unreachable networks: ConnectErrorsIT). A host peer that resets its
 * connection mid-transfer (SO_LINGER 0, then close) reaches the guest as a reset, never as a clean
 * end of stream that would make a cut-off transfer look complete: the guest's reads and writes fail
 * with ECONNRESET (or EPIPE), and what arrived before is an intact prefix — for the guest's own
 * connections and for forwarded ones. A host peer that stops reading holds the guest back with
 * the window, not with jslirp's memory.
 */
class HostFaultsIT {
    static final int SENT_BEFORE_RESET = 8 << 20;
    static final long SEED = 0x12E5E7L;

    /** argv: read PORT | write PORT | serve-write PORT | send-file PORT FILE. Prints what happened. */
    static final String GUEST = """
            import errno, hashlib, socket, sys
            mode = sys.argv[1]
            def outcome(e): return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) else 'eof'
            if mode == 'send-file':
                s = socket.create_connection(('10.0.2.2', int(sys.argv[2])), timeout=60)
                with open(sys.argv[3], 'rb') as f:
                    n = s.sendfile(f)
                s.shutdown(socket.SHUT_WR)
                print('sent %d server says %s' % (n, s.recv(200).decode()))
            elif mode == 'read':
                s = socket.create_connection(('10.0.2.2', int(sys.argv[2])), timeout=20)
                h, n, end = hashlib.sha256(), 0, 'eof'
                try:
                    while True:
                        b = s.recv(1 << 16)
                        if not b: break
                        h.update(b); n += len(b)
                except OSError as e:
                    end = outcome(e)
                print('received %d sha256 %s end %s' % (n, h.hexdigest(), end))
            else:
                if mode == 'write':
                    s = socket.create_connection(('10.0.2.2', int(sys.argv[2])), timeout=20)
                else:
                    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    l.bind(('0.0.0.0', int(sys.argv[2]))); l.listen(1)
                    print('listening', flush=True)
                    s, _ = l.accept(); s.settimeout(20)
                n, end, chunk = 0, 'completed', b'w' * (1 << 16)
                try:
                    while n < (1 << 30):
                        n += s.send(chunk)
                except OSError as e:
                    end = outcome(e)
                print('sent %d end %s' % (n, end))
            """;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeTools(ItEnv.python());
    }

    /** The guest downloads; the host server resets after 8 MiB. */
    @Test
    @Timeout(90)
    void hostResetDuringADownloadIsAResetInTheGuest() throws Exception {
        // slirp4netns 1.2 ends the guest's stream with a FIN on a host reset: a cut-off download looks complete there
        ItEnv.assumeJslirp("slirp4netns turns a host reset into a clean end of stream");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            CompletableFuture<Void> host = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    Blob.write(s.getOutputStream(), SEED, SENT_BEFORE_RESET);
                    s.setSoLinger(true, 0);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Cmd.Result r = ns.exec(Duration.ofSeconds(60), ItEnv.python(), "-c", GUEST, "read", Integer.toString(server.getLocalPort()));
            System.out.println("[" + Stack.Kind.selected() + "] download reset: " + r.out().strip());
            host.get(30, TimeUnit.SECONDS);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(FloodIT.match(r.out(), "end (\\S+)")).as("a reset, not the end of the stream").isEqualTo("ECONNRESET");
            int received = Integer.parseInt(FloodIT.match(r.out(), "received (\\d+)"));
            assertThat(received).isLessThanOrEqualTo(SENT_BEFORE_RESET);
            assertThat(FloodIT.match(r.out(), "sha256 (\\S+)")).as("what arrived is the start of what was sent").isEqualTo(Blob.sha256(SEED, received));
            assertThat(stack.alive()).isTrue();
        }
    }

    /** The guest uploads; the host server reads 1 MiB and resets. */
    @Test
    @Timeout(90)
    void hostResetDuringAnUploadFailsTheGuestsWrites() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            CompletableFuture<Void> host = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    readAtLeast(s.getInputStream(), 1 << 20);
                    s.setSoLinger(true, 0);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Cmd.Result r = ns.exec(Duration.ofSeconds(60), ItEnv.python(), "-c", GUEST, "write", Integer.toString(server.getLocalPort()));
            System.out.println("[" + Stack.Kind.selected() + "] upload reset: " + r.out().strip());
            host.get(30, TimeUnit.SECONDS);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(FloodIT.match(r.out(), "end (\\S+)")).isIn("ECONNRESET", "EPIPE");
            assertThat(stack.alive()).isTrue();
        }
    }

    /** A host client of a forwarded port reads 1 MiB of what the guest's server sends, then resets. */
    @Test
    @Timeout(90)
    void hostClientResettingAForwardedConnectionFailsTheGuestServersWrites() throws Exception {
        ItEnv.assumeJslirp("-t is jslirp's");
        int hostPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            hostPort = probe.getLocalPort();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("-t", hostPort + ":9000"))) {
            CompletableFuture<Cmd.Result> guest = CompletableFuture.supplyAsync(() ->
                    ns.exec(Duration.ofSeconds(60), ItEnv.python(), "-c", GUEST, "serve-write", "9000"));
            Socket client = null;
            for (int i = 0; i < 100 && client == null; i++) { // until the guest's server listens (before: reset at once)
                Socket s = new Socket(InetAddress.getLoopbackAddress(), hostPort);
                s.setSoTimeout(10_000);
                try {
                    if (s.getInputStream().read() >= 0) client = s;
                } catch (java.net.SocketException e) {
                    // not listening yet
                }
                if (client == null) {
                    s.close();
                    Namespace.sleep(100);
                }
            }
            assertThat(client).as("a connection through the forward\n%s", stack.describe()).isNotNull();
            readAtLeast(client.getInputStream(), 1 << 20);
            client.setSoLinger(true, 0);
            client.close();
            Cmd.Result r = guest.get(60, TimeUnit.SECONDS);
            System.out.println("[" + Stack.Kind.selected() + "] forwarded reset: " + r.out().strip().replace('\n', ' '));
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(FloodIT.match(r.out(), "end (\\S+)")).isIn("ECONNRESET", "EPIPE");
            assertThat(stack.alive()).isTrue();
        }
    }

    /** The host server stops reading for 4 s while the guest uploads 32 MiB: jslirp holds at most its buffers, and all arrives. */
    @Test
    @Timeout(90)
    void aHostPeerThatStopsReadingIsHeldBackByTheWindow(@TempDir Path tmp) throws Exception {
        ItEnv.assumeJslirp("jslirp's memory is checked");
        long size = 32 * Blob.MIB;
        Path file = tmp.resolve("upload.bin");
        Blob.writeFile(file, SEED, size);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured());
             ProcessMonitor monitor = new ProcessMonitor(stack.pid())) {
            long rssBefore = monitor.sampleNow().rssKib();
            long[] rssStalled = new long[1];
            CompletableFuture<Void> host = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    Thread.sleep(4000); // not reading: the kernel's buffers, then jslirp's, fill up
                    rssStalled[0] = monitor.sampleNow().rssKib();
                    java.security.MessageDigest md = Blob.sha256();
                    byte[] b = new byte[1 << 16];
                    long got = 0;
                    InputStream in = s.getInputStream();
                    for (int n; (n = in.read(b)) > 0; got += n) md.update(b, 0, n);
                    s.getOutputStream().write((java.util.HexFormat.of().formatHex(md.digest()) + "/" + got).getBytes());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Cmd.Result r = ns.exec(Duration.ofSeconds(60), ItEnv.python(), "-c", GUEST, "send-file", Integer.toString(server.getLocalPort()), file.toString());
            host.get(30, TimeUnit.SECONDS);
            System.out.printf("[%s] stalled reader: %s; VmRSS before %d MiB, while stalled %d MiB%n", Stack.Kind.selected(), r.out().strip(),
                    rssBefore / 1024, rssStalled[0] / 1024);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out()).contains("server says " + Blob.sha256(SEED, size) + "/" + size);
            // one connection's buffers grow to 1 MiB each; leave room for the JVM's own noise
            assertThat(rssStalled[0] - rssBefore).as("VmRSS growth while the host stalls (KiB)").isLessThan(24 * 1024);
        }
    }

    private static void readAtLeast(InputStream in, int bytes) throws java.io.IOException {
        byte[] b = new byte[1 << 16];
        for (int got = 0; got < bytes; ) {
            int n = in.read(b);
            if (n < 0) throw new java.io.EOFException("after " + got + " bytes");
            got += n;
        }
    }
}
