package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract item 5 (jslirp only): DNS sent to 10.0.2.3 is relayed to the first nameserver of the
 * file given with {@code --resolv-conf}: here a dnsmasq the test starts on a loopback address,
 * answering only {@code jslirp.test → 192.0.2.7}. Never run against slirp4netns: it relays to the
 * machine's own resolver, which is not on loopback.
 */
class DnsIT {
    static final byte[] ANSWER = {(byte) 192, 0, 2, 7};

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void queryToTenZeroTwoThreeReachesTheResolverFromResolvConf() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("slirp4netns would relay 10.0.2.3 to the machine's resolver");
        ItEnv.assumeTools("dnsmasq", "busybox");
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        String resolver = "127.53." + rnd.nextInt(1, 255) + "." + rnd.nextInt(1, 255);
        Path log = tmp.resolve("dnsmasq.log");
        Process dnsmasq = new ProcessBuilder("dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
                "--listen-address=" + resolver, "--bind-interfaces", "--port=53", "--address=/jslirp.test/192.0.2.7",
                "--pid-file=", "--user=root", "--log-queries")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitResolver(resolver, dnsmasq, log);
            Path resolvConf = tmp.resolve("resolv.conf");
            Files.writeString(resolvConf, "# written by DnsIT\nnameserver " + resolver + "\n");
            try (Namespace ns = Namespace.create();
                 Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--resolv-conf", resolvConf.toString()))) {
                Cmd.Result r = ns.exec(Duration.ofSeconds(30), "busybox", "nslookup", "-type=a", "jslirp.test", Namespace.DNS);
                assertThat(r.exit()).as("%s\n%s\ndnsmasq: %s", r, stack.describe(), Files.readString(log)).isZero();
                assertThat(r.out()).containsPattern("Name:\\s+jslirp\\.test\\s+Address:\\s+192\\.0\\.2\\.7");
                assertThat(Files.readString(log)).as("the query went to the test's resolver").contains("query[A] jslirp.test");
            }
        } finally {
            dnsmasq.destroy();
            if (!dnsmasq.waitFor(5, TimeUnit.SECONDS)) dnsmasq.destroyForcibly();
        }
    }

    /** Polls the resolver from the host (loopback only) until it answers jslirp.test. */
    static void awaitResolver(String resolver, Process dnsmasq, Path log) throws Exception {
        byte[] q = query(0x4a53, "jslirp.test");
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(300);
            while (System.nanoTime() < deadline) {
                if (!dnsmasq.isAlive()) throw new AssertionError("dnsmasq exited: " + Files.readString(log));
                s.send(new DatagramPacket(q, q.length, InetAddress.getByName(resolver), 53));
                byte[] buf = new byte[512];
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    s.receive(p);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                byte[] resp = Arrays.copyOf(buf, p.getLength());
                if ((resp[3] & 0x0f) == 0 && resp[7] >= 1 && Arrays.equals(Arrays.copyOfRange(resp, resp.length - 4, resp.length), ANSWER)) return;
            }
        }
        throw new AssertionError("resolver on " + resolver + " did not answer: " + Files.readString(log));
    }

    static byte[] query(int id, String name) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) (id >> 8), (byte) id, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0});
        for (String label : name.split("\\.")) {
            b.write(label.length());
            b.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
        }
        b.writeBytes(new byte[] {0, 0, 1, 0, 1});
        return b.toByteArray();
    }
}
