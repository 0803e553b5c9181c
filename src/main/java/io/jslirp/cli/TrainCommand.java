package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.sys.InterfaceConfig;
import io.jslirp.sys.Namespaces;
import io.jslirp.util.Log;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * {@code jslirp train}, hidden: the training run of the launcher's start-up cache (JDK 25's AOT
 * cache), which keeps the classes this run loads and links, so that an instance finds them loaded
 * and linked at start. Before, the training was {@code jslirp run -- true}, and the TCP data path's
 * classes (the connection, its sender and receiver, the NAT's socket stream, ...) were still read
 * from the jar and verified at a fresh instance's first connection; now traffic moves through the
 * stack in the training, so those come from the cache too.
 *
 * <p>The launcher starts it in user, mount and network namespaces of its own (unshare --net), so
 * its "host" is a loopback that no other process sees and nothing it sends leaves that namespace.
 * It runs {@code run -- true} first (the start-up path, as the training before it); then, for each
 * MTU of {@link #MTUS}, makes a guest namespace with a tap device served by an engine configured as
 * {@code jslirp run}'s from its own options (IPv6, DNS from a resolv.conf, a forwarded port). The
 * traffic comes from processes of their own, so that only jslirp's classes go into the cache (every
 * class in it is loaded at each start): the host's servers ({@link io.jslirp.train.HostPeers}), the guest
 * ({@link io.jslirp.train.GuestTraffic}: round trips, bulk both ways, many connections at once, UDP, DNS, the
 * forwarded port, IPv6), started from the thread in the guest's namespace so that it is there too,
 * and the forwarded port's host client ({@link io.jslirp.train.ForwardClient}). What failed, if anything, is logged;
 * it exits 0 all the same (a partial training still helps).
 *
 * <p>Not trained: {@code jslirp qemu}'s own links (a VM's stream, datagram and vhost-user sockets),
 * which its warm-up runs at each start; their classes would be loaded at every other command's start too.
 */
@Command(name = "train", hidden = true, description = "Train the start-up cache on the data path (run by the launcher, in namespaces of its own).")
final class TrainCommand implements Callable<Integer> {
    static final int[] MTUS = {1500, 65520};
    /** What each MTU's guest does (round trips, bytes, connections, datagrams, lookups): every path runs, some of them often. */
    static final long[][] PLANS = {{2_000, 16L << 20, 200, 500, 50}, {200, 64L << 20, 20, 50, 5}};
    static final int GUEST_PORT = 8080;
    /** The forwarded port's round trips and bytes. */
    static final int FORWARD_ROUND_TRIPS = 500;
    static final long FORWARD_BYTES = 4L << 20;

    /** The options of one pass, parsed as a user's would be. */
    static final class Pass {
        @Mixin
        NetworkOptions network;
    }

    @Override
    public Integer call() throws Exception {
        InterfaceConfig.setUp("lo");
        int status = Main.commandLine("run").execute("run", "--", "true");
        if (status != 0) Log.warn("training: run -- true exited with " + status);
        // Named after this process, not by Files.createTempFile, whose SecureRandom would go into the cache.
        Path resolv = Path.of(System.getProperty("java.io.tmpdir"), "jslirp-train-" + ProcessHandle.current().pid() + ".conf");
        Process peers = java("io.jslirp.train.HostPeers").redirectOutput(ProcessBuilder.Redirect.PIPE).start();
        try {
            String ports = new java.io.BufferedReader(new java.io.InputStreamReader(peers.getInputStream())).readLine();
            if (ports == null) throw new IllegalStateException("the training's host servers did not start");
            Files.writeString(resolv, "nameserver 127.0.0.1\n");
            for (int i = 0; i < MTUS.length; i++) pass(MTUS[i], PLANS[i], ports.split(" "), resolv);
        } finally {
            Files.deleteIfExists(resolv);
            peers.getOutputStream().close();
            peers.waitFor();
        }
        return 0;
    }

    /** A JVM for one of the training's own processes: this one's java, this jar, its output on ours. */
    private static ProcessBuilder java(String mainClass, String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String jar = Path.of(TrainCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        List<String> line = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", jar, mainClass));
        line.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.INHERIT).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        b.environment().remove("JAVA_TOOL_OPTIONS");
        b.environment().remove("JDK_JAVA_OPTIONS");
        return b;
    }

    /** One guest namespace at mtu, its engine on this thread until its guest is done. */
    private static void pass(int mtu, long[] plan, String[] ports, Path resolv) throws Exception {
        int hostPort = freePort();
        Pass options = CommandLine.populateCommand(new Pass(), "--mtu", String.valueOf(mtu), "--enable-ipv6",
                "--resolv-conf", resolv.toString(), "-t", hostPort + ":" + GUEST_PORT);
        EngineConfig config = options.network.engineConfig();
        List<String> guestArgs = new ArrayList<>();
        for (long v : plan) guestArgs.add(String.valueOf(v));
        guestArgs.addAll(List.of(ports));
        guestArgs.add(String.valueOf(GUEST_PORT));
        CompletableFuture<TapLink> tap = new CompletableFuture<>();
        CompletableFuture<Engine> serving = new CompletableFuture<>();
        Thread guest = Thread.ofPlatform().name("train-guest").start(() -> {
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET);
                TapLink link = GuestInterface.open("tap0", true);
                GuestInterface.configure("tap0", config.network(), -1);
                tap.complete(link);
            } catch (Throwable t) {
                tap.completeExceptionally(t);
                return;
            }
            Engine engine = serving.join();
            try {
                // Forked from this thread, so in the guest's network namespace.
                int status = java("io.jslirp.train.GuestTraffic", guestArgs.toArray(String[]::new)).start().waitFor();
                if (status != 0) Log.warn("training at MTU " + mtu + ": the guest's traffic exited with " + status);
            } catch (Exception e) {
                Log.warn("training at MTU " + mtu + ": " + Main.oneLine(e));
            } finally {
                engine.stop();
            }
        });
        Engine engine = new Engine(Serving.joined(tap), config);
        options.network.serve(engine);
        Process forward = java("io.jslirp.train.ForwardClient", String.valueOf(hostPort), String.valueOf(FORWARD_ROUND_TRIPS),
                String.valueOf(FORWARD_BYTES)).start();
        serving.complete(engine);
        engine.run();
        guest.join();
        if (!forward.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) forward.destroyForcibly();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
