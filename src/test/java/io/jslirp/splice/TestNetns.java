package io.jslirp.splice;

import io.jslirp.sys.Namespaces;
import io.jslirp.sys.NetnsSockets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * A network namespace made for one test (root only): {@code unshare --net sleep} holds it, its
 * loopback brought up; closing kills the holder, which frees the namespace. Nothing in it reaches
 * beyond its own loopback.
 */
public final class TestNetns implements AutoCloseable {
    private final Process holder;
    public final String path;
    private NetnsSockets sockets;

    private TestNetns(Process holder) {
        this.holder = holder;
        this.path = "/proc/" + holder.pid() + "/ns/net";
    }

    public static boolean root() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
    }

    public static TestNetns create() throws Exception {
        Process p = new ProcessBuilder("unshare", "--net", "sleep", "600")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        TestNetns ns = new TestNetns(p);
        try {
            String own = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                try {
                    if (!Files.readSymbolicLink(Path.of(ns.path)).toString().equals(own)) break;
                } catch (IOException notYet) {
                    // the holder is still starting
                }
                if (System.nanoTime() > deadline) throw new IllegalStateException("unshare did not make a namespace");
                Thread.sleep(5);
            }
            ns.run("ip", "link", "set", "lo", "up");
            return ns;
        } catch (Exception | Error e) {
            ns.close();
            throw e;
        }
    }

    /** A command inside the namespace; its output, or an exception naming it. */
    public String run(String... command) throws Exception {
        String[] full = new String[command.length + 2];
        full[0] = "nsenter";
        full[1] = "--net=" + path;
        System.arraycopy(command, 0, full, 2, command.length);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", full) + ": " + out);
        return out;
    }

    /** Runs task on a thread in the namespace (a java.net socket made there stays there). */
    public <T> T call(Callable<T> task) throws Exception {
        return Namespaces.callInNetns(path, task);
    }

    /** The namespace's sockets (made once). */
    public NetnsSockets sockets() {
        if (sockets == null) sockets = NetnsSockets.open(path);
        return sockets;
    }

    @Override
    public void close() throws Exception {
        if (sockets != null) sockets.close();
        holder.destroyForcibly().waitFor();
    }
}
