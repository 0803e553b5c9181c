package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Contract item 1: 100 MiB each way through the gateway with curl, checked by sha256, at MTU 1500 and 65520. */
class TcpTransferIT {
    static final long SIZE = 100 * Blob.MIB;

    @TempDir
    Path tmp;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl", "sha256sum", "bash");
    }

    @ParameterizedTest(name = "mtu {0}")
    @ValueSource(ints = {1500, 65520})
    @Timeout(300)
    void downloadAndUpload100MiB(int mtu) throws Exception {
        long seedDown = 0x5EED0000L + mtu, seedUp = 0xC0FFEEL + mtu;
        Path upload = tmp.resolve("upload.bin");
        Blob.writeFile(upload, seedUp, SIZE);
        String expectDown = Blob.sha256(seedDown, SIZE);
        String expectUp = Blob.sha256(seedUp, SIZE);

        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().mtu(mtu));
             HttpBlobServer http = new HttpBlobServer()) {
            assertThat(ns.exec(Duration.ofSeconds(5), "ip", "-o", "link", "show", "tap0").out()).contains("mtu " + mtu);

            String url = http.guestUrl("/blob?seed=" + seedDown + "&size=" + SIZE);
            Cmd.Result down = ns.bash(Duration.ofSeconds(200),
                    "curl -sS --fail --max-time 180 '" + url + "' | sha256sum");
            assertThat(down.exit()).as("download\n%s\n%s", down, stack.describe()).isZero();
            assertThat(down.out().split("\\s+")[0]).as("sha256 of the download").isEqualTo(expectDown);
            report("download", mtu, down.took());

            Cmd.Result up = ns.exec(Duration.ofSeconds(200), "curl", "-sS", "--fail", "--max-time", "180",
                    "-H", "Expect:", "-T", upload.toString(), http.guestUrl("/upload"));
            assertThat(up.exit()).as("upload\n%s\n%s", up, stack.describe()).isZero();
            assertThat(up.out().strip()).as("what the server got").isEqualTo(expectUp + " " + SIZE);
            assertThat(http.lastUpload()).isEqualTo(new HttpBlobServer.Upload(expectUp, SIZE));
            report("upload", mtu, up.took());

            assertThat(stack.alive()).as(stack.describe()).isTrue();
            Map<String, Long> counters = stack.stop().counters();
            if (Stack.Kind.selected() == Stack.Kind.JSLIRP) {
                assertThat(counters).as("counters line on SIGTERM").containsKeys("frames_in", "frames_out", "malformed");
            }
        }
    }

    static void report(String what, int mtu, Duration took) {
        double secs = took.toNanos() / 1e9;
        System.out.printf("[%s] %s 100 MiB at MTU %d: %.2f s, %.2f Gbit/s (incl. process start)%n",
                Stack.Kind.selected(), what, mtu, secs, SIZE * 8 / secs / 1e9);
    }
}
