package io.jslirp.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The test's resolver: a dnsmasq on a random address in 127.53.0.0/16 answering only jslirp.test
 * (with 192.0.2.7), started and answering before the test goes on ({@link DnsIT#startDnsmasq},
 * {@link DnsIT#awaitResolver}); closing stops it.
 */
final class TestResolver implements AutoCloseable {
    final String address;
    /** Where dnsmasq logs the queries it got. */
    final Path log;
    private final Process process;

    private TestResolver(String address, Path log, Process process) {
        this.address = address;
        this.log = log;
        this.process = process;
    }

    /** Starts one logging to dir's dnsmasq.log and waits until it answers. */
    static TestResolver start(Path dir) throws Exception {
        String address = DnsIT.loopbackAddresses(1).getFirst();
        Path log = dir.resolve("dnsmasq.log");
        TestResolver r = new TestResolver(address, log, DnsIT.startDnsmasq(List.of(), address, log));
        try {
            DnsIT.awaitResolver(address, r.process, log);
        } catch (Exception | Error e) {
            r.close();
            throw e;
        }
        return r;
    }

    /** What it has logged so far. */
    String logged() throws IOException {
        return Files.readString(log);
    }

    /** A resolv.conf beside its log naming it alone, for --resolv-conf. */
    Path resolvConf() throws IOException {
        Path f = Files.createTempFile(log.getParent(), "resolv", ".conf");
        Files.writeString(f, "# written by a test\nnameserver " + address + "\n");
        return f;
    }

    @Override
    public void close() throws InterruptedException {
        DnsIT.stop(process);
    }
}
