package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100 MiB each way intact through 2% random loss of TCP segments in both directions (this kernel
 * has no netem: nftables {@code numgen random} drop rules on the namespace's input and output
 * hooks). Loss recovery both ways: the guest's SACK-driven retransmissions into jslirp's
 * out-of-order store, and jslirp's NewReno retransmissions toward the guest.
 */
class LossIT {
    static final long SIZE = 100 * Blob.MIB;

    @TempDir
    Path tmp;

    @Test
    @Timeout(400)
    void hundredMiBEachWayThroughTwoPercentLoss() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl", "sha256sum", "bash", "nft");
        long seedDown = 0x1055D0L, seedUp = 0x1055B0L;
        Path upload = tmp.resolve("upload.bin");
        Blob.writeFile(upload, seedUp, SIZE);
        String expectDown = Blob.sha256(seedDown, SIZE);
        String expectUp = Blob.sha256(seedUp, SIZE);

        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured());
             HttpBlobServer http = new HttpBlobServer()) {
            Cmd.Result nft = ns.bash(Duration.ofSeconds(10), String.join("\n",
                    "nft add table inet loss",
                    "nft add chain inet loss in '{ type filter hook input priority 0; }'",
                    "nft add chain inet loss out '{ type filter hook output priority 0; }'",
                    "nft add rule inet loss in meta l4proto tcp numgen random mod 100 '<' 2 counter drop",
                    "nft add rule inet loss out meta l4proto tcp numgen random mod 100 '<' 2 counter drop"));
            assertThat(nft.exit()).as("%s", nft).isZero();

            String url = http.guestUrl("/blob?seed=" + seedDown + "&size=" + SIZE);
            Cmd.Result down = ns.bash(Duration.ofSeconds(180), "curl -sS --fail --max-time 170 '" + url + "' | sha256sum");
            assertThat(down.exit()).as("download\n%s\n%s", down, stack.describe()).isZero();
            assertThat(down.out().split("\\s+")[0]).as("sha256 of the download").isEqualTo(expectDown);

            Cmd.Result up = ns.exec(Duration.ofSeconds(180), "curl", "-sS", "--fail", "--max-time", "170",
                    "-H", "Expect:", "-T", upload.toString(), http.guestUrl("/upload"));
            assertThat(up.exit()).as("upload\n%s\n%s", up, stack.describe()).isZero();
            assertThat(up.out().strip()).as("what the server got").isEqualTo(expectUp + " " + SIZE);

            Cmd.Result dropped = ns.exec(Duration.ofSeconds(10), "nft", "list", "table", "inet", "loss");
            assertThat(dropped.out()).as("the loss rules did drop packets").containsPattern("counter packets [1-9]");
            TcpTransferIT.report("download with 2% loss", 1500, down.took());
            TcpTransferIT.report("upload with 2% loss", 1500, up.took());
            System.out.println("[loss] nft counters: " + dropped.out().replaceAll("\\s+", " "));
        }
    }
}
