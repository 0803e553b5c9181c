package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code --pcap}: what crossed the link, both ways, in a file tshark reads. */
class PcapIT {
    static final Duration T = Duration.ofSeconds(30);
    static final long SIZE = 2 * Blob.MIB;

    @TempDir
    Path tmp;

    @BeforeEach
    void assumptions() {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("--pcap is jslirp's");
        ItEnv.assumeTools("curl", "tshark", "ping");
    }

    private static Cmd.Result download(Namespace ns, HttpBlobServer http) {
        return ns.bash(T, "curl -sS --fail --max-time 25 '" + http.guestUrl("/blob?seed=5&size=" + SIZE) + "' | wc -c");
    }

    /** The body of the HTTP response in the file's only TCP connection, from tshark's reassembly of the stream. */
    private static byte[] responseBody(Path file) {
        Cmd.Result r = Cmd.run(T, List.of("tshark", "-n", "-r", file.toString(), "-q", "-z", "follow,tcp,raw,0"));
        assertThat(r.exit()).as("%s", r).isZero();
        // The server's bytes are the lines indented by a tab, in hex.
        var server = new ByteArrayOutputStream();
        r.out().lines().filter(l -> l.startsWith("\t")).forEach(l -> server.writeBytes(HexFormat.of().parseHex(l.strip())));
        byte[] all = server.toByteArray();
        String text = new String(all, StandardCharsets.ISO_8859_1);
        int body = text.indexOf("\r\n\r\n") + 4;
        assertThat(body).as("an HTTP response in the stream").isGreaterThan(3);
        return Arrays.copyOfRange(all, body, all.length);
    }

    /** tshark's reading of the file, one line per frame with the given fields; fails when tshark does. */
    private static List<String> tshark(Path file, String displayFilter, String... fields) {
        return tshark(List.of(), file, displayFilter, fields);
    }

    /** As above, with more options for tshark first (e.g. -d, decode as). */
    private static List<String> tshark(List<String> options, Path file, String displayFilter, String... fields) {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n"));
        cmd.addAll(options);
        cmd.addAll(List.of("-r", file.toString(), "-T", "fields"));
        for (String f : fields) cmd.addAll(List.of("-e", f));
        if (displayFilter != null) cmd.addAll(List.of("-Y", displayFilter));
        Cmd.Result r = Cmd.run(T, cmd);
        assertThat(r.exit()).as("%s", r).isZero();
        return r.out().lines().toList();
    }

    @Test
    @Timeout(120)
    void recordsTheHandshakeArpAndTsoFramesBothWays() throws Exception {
        Path file = tmp.resolve("all.pcap");
        int httpPort;
        try (Namespace ns = Namespace.create();
             HttpBlobServer http = new HttpBlobServer();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--pcap", file.toString()))) {
            httpPort = http.port();
            Cmd.Result r = download(ns, http);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out().strip()).isEqualTo(Long.toString(SIZE));
            assertThat(stack.stop().counters()).as("stopped cleanly, file written out").isNotEmpty();
        }
        // The flags in display filters, not as fields: tshark prints a boolean field as 0/1 (Debian 12's
        // 4.0) or False/True (Debian 13's 4.4), while a filter's "== 0"/"== 1" means the same in both.
        List<String> syn = tshark(file, "tcp.flags.syn == 1 && tcp.flags.ack == 0", "ip.src", "ip.dst");
        assertThat(syn).as("SYN from the guest").contains("10.0.2.100\t10.0.2.2");
        List<String> synAck = tshark(file, "tcp.flags.syn == 1 && tcp.flags.ack == 1", "ip.src", "ip.dst");
        assertThat(synAck).as("SYN-ACK from jslirp").contains("10.0.2.2\t10.0.2.100");
        List<String> arp = tshark(file, "arp", "arp.src.proto_ipv4", "arp.dst.proto_ipv4", "arp.opcode");
        assertThat(arp).as("the guest's ARP request for the gateway and jslirp's reply").contains("10.0.2.100\t10.0.2.2\t1", "10.0.2.2\t10.0.2.100\t2");
        List<String> big = tshark(file, "frame.len > 1514 && ip.src == 10.0.2.2", "frame.len");
        assertThat(big).as("TSO frames toward the guest, recorded whole").isNotEmpty();
        // The server's port is the kernel's choice: decoded as HTTP by name, not left to tshark's port
        // table (a port another protocol registered is decoded as that one: Debian 13's tshark found
        // no HTTP request once).
        List<String> http = tshark(List.of("-d", "tcp.port==" + httpPort + ",http"), file, "http.request", "http.request.uri");
        assertThat(http).singleElement().asString().startsWith("/blob?seed=5");
        assertThat(Blob.sha256(responseBody(file))).as("the response body as recorded, TSO frames included")
                .isEqualTo(Blob.sha256(5, SIZE));
        System.out.println("[pcap] " + Files.size(file) + " bytes, " + tshark(file, null, "frame.number").size() + " frames, "
                + big.size() + " larger than 1514");
    }

    @Test
    @Timeout(120)
    void aFilterKeepsOnlyTheChosenTraffic() throws Exception {
        Path file = tmp.resolve("filtered.pcap");
        try (Namespace ns = Namespace.create();
             HttpBlobServer http = new HttpBlobServer();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured()
                     .extra("--pcap", file.toString(), "--pcap-filter", "tcp and port " + http.port()))) {
            assertThat(ns.exec(T, "ping", "-c", "2", "-i", "0.2", Namespace.GATEWAY).exit()).isZero();
            assertThat(download(ns, http).exit()).isZero();
            assertThat(stack.stop().counters()).isNotEmpty();
            List<String> frames = tshark(file, null, "ip.proto", "tcp.port");
            assertThat(frames).isNotEmpty();
            assertThat(frames).allSatisfy(f -> assertThat(f).matches("6\t(" + http.port() + ",\\d+|\\d+," + http.port() + ")"));
            System.out.println("[pcap] filter kept " + frames.size() + " frames");
        }
    }

    @Test
    @Timeout(120)
    void stopsAtTheSizeLimitWithOneLogLine() throws Exception {
        Path file = tmp.resolve("small.pcap");
        Stack.Exit exit;
        try (Namespace ns = Namespace.create();
             HttpBlobServer http = new HttpBlobServer();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured().extra("--pcap", file.toString(), "--pcap-size", "64k"))) {
            assertThat(download(ns, http).exit()).isZero();
            exit = stack.stop();
        }
        assertThat(Files.size(file)).isBetween(1L, 64L * 1024);
        assertThat(exit.stderr().lines().filter(l -> l.contains("capture stopped"))).hasSize(1);
        assertThat(tshark(file, null, "frame.number")).isNotEmpty();
    }

    @Test
    void badOptionsExitWithOneLine() {
        for (List<String> bad : List.of(List.of("--pcap", tmp.resolve("x").toString(), "--pcap-filter", "tcp or udp"),
                List.of("--pcap", tmp.resolve("x").toString(), "--pcap-size", "12 parsecs"),
                List.of("--pcap", tmp.resolve("no/such/dir/x.pcap").toString()),
                List.of("--pcap-filter", "tcp"))) {
            List<String> cmd = new ArrayList<>(List.of(Stack.Kind.JSLIRP.executable(), "run"));
            cmd.addAll(bad);
            cmd.addAll(List.of("--", "true"));
            Cmd.Result r = Cmd.run(T, cmd);
            assertThat(r.exit()).as("%s", r).isEqualTo(1);
            assertThat(r.err().strip()).as("%s", r).startsWith("jslirp: ").doesNotContain("\n");
        }
    }
}
