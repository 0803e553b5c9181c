package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The pasta ITs' namespaces: each one of ip netns behind the egress guard ({@link PastaIT#guard}),
 * removed after the test with what was started for it (processes, and each namespace's pasta server).
 */
final class PastaNamespaces {
    private static final Duration T = Duration.ofSeconds(60);
    private final String prefix;
    private final List<Process> started = new ArrayList<>();
    private final List<String> namespaces = new ArrayList<>();

    /** Namespaces named prefix and 8 random hex digits. */
    PastaNamespaces(String prefix) {
        this.prefix = prefix;
    }

    /** Skips the test class unless it runs as root with /dev/net/tun, bin/pasta is jslirp's and the tools are installed. */
    static void assumeUsable(String... tools) {
        ItEnv.assumeRootAndTun();
        ItEnv.assumeJslirp("bin/pasta is jslirp's");
        ItEnv.assumeTools(tools);
    }

    /** A new namespace, guarded; the guard also lets it send DNS to the also addresses (jslirp's own ones). */
    String create(String... also) {
        String ns = prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1).substring(0, 8);
        Cmd.Result r = Cmd.run(T, "ip", "netns", "add", ns);
        assertThat(r.exit()).as("%s", r).isZero();
        namespaces.add(ns);
        PastaIT.guard("/run/netns/" + ns, also);
        return ns;
    }

    /** The test removed ns itself. */
    void removed(String ns) {
        namespaces.remove(ns);
    }

    /** p's process tree ends with the namespaces. */
    Process started(Process p) {
        started.add(p);
        return p;
    }

    /** Kills what was started and each namespace's pasta server, and removes the namespaces. */
    void close() {
        for (Process p : started) Cmd.killTree(p.toHandle());
        for (String ns : namespaces) {
            for (long pid : pastaPids(ns)) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            Cmd.run(T, "ip", "netns", "del", ns);
        }
    }

    private static List<Long> pastaPids(String ns) {
        List<Long> out = new ArrayList<>();
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            try {
                String cmdline = Files.readString(Path.of("/proc/" + h.pid() + "/cmdline")).replace('\0', ' ');
                if (cmdline.contains("jslirp.jar pasta ") && cmdline.contains("/run/netns/" + ns + " ")) out.add(h.pid());
            } catch (IOException gone) {
                // not ours
            }
        }
        return out;
    }
}
