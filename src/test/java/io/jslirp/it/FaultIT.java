package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.sys.InterfaceConfig;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Tap;
import io.jslirp.wire.Ipv4;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100 MiB each way intact while a fault-injecting link between the guest's tap and jslirp's stack
 * reorders 25% of the frames and duplicates 1%, in both directions. The engine runs in this JVM
 * so the link can be wrapped (jslirp only).
 */
class FaultIT {
    static final long SIZE = Long.getLong("jslirp.it.fault.mib", 100) * Blob.MIB;

    @TempDir
    Path tmp;

    @Test
    @Timeout(400)
    void hundredMiBEachWayThroughReorderingAndDuplication() throws Exception {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeJslirp("the engine is embedded to wrap its link");
        ItEnv.assumeTools("curl", "sha256sum", "bash");
        long seedDown = 0xFA0170L, seedUp = 0xFA0171L;
        Path upload = tmp.resolve("upload.bin");
        Blob.writeFile(upload, seedUp, SIZE);

        NetworkConfig network = NetworkConfig.defaults();
        try (Namespace ns = Namespace.create(); HttpBlobServer http = new HttpBlobServer()) {
            int tap = Namespaces.callInNetns(ns.netnsPath(), () -> {
                int fd = Tap.open("tap0");
                InterfaceConfig.setIpv4("tap0", network.guest(), network.prefixLength());
                InterfaceConfig.setUp("tap0");
                InterfaceConfig.addDefaultRoute(network.gateway());
                return fd;
            });
            FaultyLink link = new FaultyLink(new TapLink(tap), 42, 0.25, 0.01);
            io.jslirp.util.Log.enableDebug(Boolean.getBoolean("jslirp.it.debug"));
            Engine engine = new Engine(link, EngineConfig.of(network, java.util.List.of()));
            Thread loop = Thread.ofPlatform().name("jslirp-fault-it").start(engine::run);
            try {
                String url = http.guestUrl("/blob?seed=" + seedDown + "&size=" + SIZE);
                Cmd.Result down = ns.bash(Duration.ofSeconds(180), "curl -sS --fail --max-time 170 '" + url + "' | sha256sum");
                assertThat(down.exit()).as("download %s", down).isZero();
                assertThat(down.out().split("\\s+")[0]).isEqualTo(Blob.sha256(seedDown, SIZE));

                Cmd.Result up = ns.exec(Duration.ofSeconds(180), "curl", "-sS", "--fail", "--max-time", "170",
                        "-H", "Expect:", "-T", upload.toString(), http.guestUrl("/upload"));
                assertThat(up.exit()).as("upload %s", up).isZero();
                assertThat(up.out().strip()).isEqualTo(Blob.sha256(seedUp, SIZE) + " " + SIZE);

                assertThat(link.reorderedIn).isPositive();
                assertThat(link.reorderedOut).isPositive();
                assertThat(link.duplicatedIn).isPositive();
                assertThat(link.duplicatedOut).isPositive();
                System.out.printf("[fault] download %.2f s, upload %.2f s; frames reordered %d in / %d out, duplicated %d in / %d out%n",
                        down.took().toNanos() / 1e9, up.took().toNanos() / 1e9,
                        link.reorderedIn, link.reorderedOut, link.duplicatedIn, link.duplicatedOut);
            } finally {
                engine.stop();
                loop.join(10_000);
            }
            assertThat(loop.isAlive()).isFalse();
            System.out.println("[fault] counters: " + engine.counters() + " (guest " + Ipv4.format(network.guest()) + ")");
        }
    }
}
