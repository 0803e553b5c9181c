package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * jslirp's TFTP server on the gateway ({@code --tftp DIR}, QEMU's {@code tftp=DIR}) with busybox
 * tftp as the client, and the boot file DHCP names ({@code --bootfile}) as udhcpc sees it.
 */
class TftpIT {
    static final long SEED = 0x7F7F;
    static final int SIZE = (int) Blob.MIB;

    @TempDir
    Path tmp;
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("--tftp is jslirp's (slirp4netns has no TFTP server)");
        ItEnv.assumeTools("busybox", "sha256sum");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        dir = Files.createDirectories(tmp.resolve("tftp"));
        Blob.writeFile(dir.resolve("blob.bin"), SEED, SIZE);
        Files.writeString(tmp.resolve("secret"), "not for the guest\n");
    }

    private Cmd.Result get(Namespace ns, String remote, String local, String... options) {
        String extra = String.join(" ", options);
        return ns.bash(Duration.ofSeconds(60), "busybox tftp -g " + extra + " -r '" + remote + "' -l '" + local + "' " + Namespace.GATEWAY);
    }

    private String sha256(Namespace ns, Path file) {
        Cmd.Result r = ns.exec(Duration.ofSeconds(10), "sha256sum", file.toString());
        assertThat(r.exit()).as("%s", r).isZero();
        return r.out().split("\\s+")[0];
    }

    @Test
    @Timeout(120)
    void fetchesAMebibyteIntactWithDefaultAndNegotiatedBlockSizes() throws Exception {
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--tftp", dir.toString()))) {
            String[][] variants = {{}, {"-b", "1468"}, {"-b", "8192"}};
            for (String[] options : variants) {
                Path out = tmp.resolve("out" + options.length + ".bin");
                Cmd.Result r = get(ns, "blob.bin", out.toString(), options);
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
                assertThat(Files.size(out)).isEqualTo(SIZE);
                assertThat(sha256(ns, out)).as("sha256 with options %s", String.join(" ", options)).isEqualTo(Blob.sha256(SEED, SIZE));
                System.out.println("[tftp] 1 MiB with options '" + String.join(" ", options) + "' in " + r.took().toMillis() + " ms");
            }
            assertThat(stack.alive()).as(stack.describe()).isTrue();
        }
    }

    @Test
    @Timeout(120)
    void refusesPathsOutsideTheDirectoryMissingFilesAndWrites() throws Exception {
        Files.createSymbolicLink(dir.resolve("link"), tmp.resolve("secret"));
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--tftp", dir.toString()))) {
            for (String name : new String[] {"../secret", "link", "/../secret"}) {
                Path out = tmp.resolve("stolen");
                Cmd.Result r = get(ns, name, out.toString());
                assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isNotZero();
                // sandboxed, a link out of the directory leads nowhere: file not found
                if (!Stack.SANDBOXED || !name.equals("link")) assertThat(r.err()).as("error for %s", name).containsIgnoringCase("access violation");
                assertThat(Files.exists(out) ? Files.readString(out) : "").doesNotContain("not for the guest");
            }
            Cmd.Result missing = get(ns, "nothing.bin", tmp.resolve("missing").toString());
            assertThat(missing.exit()).isNotZero();
            assertThat(missing.err()).containsIgnoringCase("file not found");

            Path upload = tmp.resolve("upload.txt");
            Files.writeString(upload, "hello");
            Cmd.Result put = ns.bash(Duration.ofSeconds(30), "busybox tftp -p -l '" + upload + "' -r upload.txt " + Namespace.GATEWAY);
            assertThat(put.exit()).as("%s", put).isNotZero();
            assertThat(put.err()).containsIgnoringCase("read-only");
            assertThat(dir.resolve("upload.txt")).doesNotExist();

            // still serving after all that
            Path out = tmp.resolve("after.bin");
            assertThat(get(ns, "blob.bin", out.toString()).exit()).isZero();
            assertThat(Files.size(out)).isEqualTo(SIZE);
        }
    }

    /**
     * 10% of UDP dropped each way: lost blocks and lost ACKs are retransmitted, the file arrives
     * whole. Outgoing datagrams are dropped at the tap's egress hook: a drop in the output hook
     * would fail the client's sendto with EPERM instead of losing the datagram.
     */
    @Test
    @Timeout(180)
    void retransmitsThroughLoss() throws Exception {
        ItEnv.assumeTools("nft");
        int size = 64 << 10;
        Files.write(dir.resolve("small.bin"), Blob.bytes(SEED, size));
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--tftp", dir.toString()))) {
            Cmd.Result nft = ns.bash(Duration.ofSeconds(10), String.join("\n",
                    "nft add table inet loss",
                    "nft add chain inet loss in '{ type filter hook input priority 0; }'",
                    "nft add rule inet loss in meta l4proto udp numgen random mod 100 '<' 10 counter drop",
                    "nft add table netdev loss",
                    "nft add chain netdev loss out '{ type filter hook egress device tap0 priority 0; }'",
                    "nft add rule netdev loss out ip protocol udp numgen random mod 100 '<' 10 counter drop"));
            assertThat(nft.exit()).as("%s", nft).isZero();
            Path out = tmp.resolve("small.out");
            Cmd.Result r = get(ns, "small.bin", out.toString(), "-b", "1024");
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(sha256(ns, out)).isEqualTo(Blob.sha256(Blob.bytes(SEED, size)));
            for (String family : new String[] {"inet", "netdev"}) {
                Cmd.Result dropped = ns.exec(Duration.ofSeconds(10), "nft", "list", "table", family, "loss");
                assertThat(dropped.out()).as("the %s loss rule did drop packets", family).containsPattern("counter packets [1-9]");
            }
            System.out.println("[tftp] 64 KiB through 10% loss in " + r.took().toMillis() + " ms");
        }
    }

    @Test
    @Timeout(120)
    void dhcpNamesTheBootFileAndTheGatewayAsNextServer() throws Exception {
        String udhcpc = ItEnv.which("udhcpc") != null ? "udhcpc" : "busybox udhcpc";
        Path script = tmp.resolve("udhcpc.script");
        Files.writeString(script, """
                #!/bin/sh
                case "$1" in
                  bound) echo "BOOT boot_file=$boot_file siaddr=$siaddr bootfile=$bootfile tftp=$tftp" ;;
                esac
                exit 0
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.unconfigured()
                     .extra("--tftp", dir.toString(), "--bootfile", "pxelinux.0"))) {
            assertThat(ns.exec(Duration.ofSeconds(10), "ip", "link", "set", "tap0", "up").exit()).isZero();
            Cmd.Result r = ns.bash(Duration.ofSeconds(60), udhcpc + " -i tap0 -f -q -n -t 5 -T 2 -O tftp -O bootfile -s " + script);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            String line = r.out().lines().filter(l -> l.startsWith("BOOT ")).findFirst().orElse(null);
            System.out.println("[tftp] " + line);
            assertThat(line).as("%s", r).isNotNull();
            assertThat(line).contains("boot_file=pxelinux.0 ", "siaddr=10.0.2.2 ", "bootfile=pxelinux.0 ", "tftp=10.0.2.2");
        }
    }
}
