package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.sys.Mounts;
import io.jslirp.sys.Namespaces;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.jslirp.policy.ResolvConf;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jslirp run}: a command in a fresh network namespace with jslirp's network. The launcher
 * has already put this JVM in a new user namespace; a platform thread makes the network namespace,
 * sets up the tap in it and starts the command from there ({@link GuestCommand}), so the command
 * inherits the namespace while every other thread (and every host socket) stays in the host's network.
 */
@Command(name = "run", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = "Run COMMAND (default: $SHELL) in a new network namespace served by jslirp; exit with its status.",
        footer = {"", "Examples:", "  jslirp run -- curl http://10.0.2.2:8080/   # 10.0.2.2 is the host's 127.0.0.1",
                "  jslirp run --mtu 65520 -- sh",
                "  # the command's port 80 on the host's 127.0.0.1:8080:",
                "  jslirp run -t 8080:80 -- busybox httpd -f -p 80",
                "  # flows and counters with 'jslirp status --api-socket /tmp/api.sock':",
                "  jslirp run --api-socket /tmp/api.sock --pcap /tmp/run.pcap -- sh"})
final class RunCommand implements Callable<Integer> {
    @Mixin
    NetworkOptions network;

    @Option(names = "--ifname", paramLabel = "NAME", defaultValue = "tap0", description = "name of the interface inside (default: ${DEFAULT-VALUE})")
    String ifname;

    @Option(names = "--bypass", description = "the command's TCP connections to host addresses become host sockets in its place"
            + " (seccomp user notification), at the host's own speed; the rest goes through the stack as ever")
    boolean bypass;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the command and its arguments: everything from the first operand on (or after --)")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        List<String> argv = command.isEmpty() ? List.of(System.getenv().getOrDefault("SHELL", "/bin/sh")) : command;
        Executable.check(argv.getFirst(), System.getenv("PATH")); // 127 or 126 before anything is made
        EngineConfig config = network.engineConfig();
        long mac = network.guestMac();
        if (config.nameservers() != null) giveTheCommandOurResolver(config);

        // The command starts once everything is set up (forwards, API socket), so a failed set-up
        // leaves nothing running. The namespace is the command's alone and goes with it: the device
        // can go with the namespace, in the background, and jslirp's exit need not wait for it.
        GuestCommand command = GuestCommand.start(argv, () -> {
            TapLink link = GuestInterface.open(ifname, true);
            GuestInterface.configure(ifname, config.network(), mac);
            return new Namespace(link, bypass ? Bypass.defaults() : null);
        }, e -> new ExitStatus("cannot run " + argv.getFirst() + ": " + Main.oneLine(e), Executable.NOT_EXECUTABLE));
        Namespace ns = readyOrExplained(command);
        Engine engine;
        boolean bypassing;
        try {
            engine = new Engine(ns.link(), config);
            network.serve(engine);
            bypassing = bypass && Bypass.start(engine, ns.defaults()); // before the command starts: it inherits the filter
        } catch (Exception | Error e) {
            command.abandon();
            throw e;
        }
        Process process = command.go();
        process.onExit().thenRun(engine::stop);
        // Isolated once the command runs, as pasta's command mode is (the command stays where it is:
        // its thread has a mount namespace of its own, and follows into the new root).
        Isolation.inPlace(network.readAtRunTime(), List.of(command), bypassing);
        engine.run();
        if (network.debug) io.jslirp.util.Log.warn("counters: " + engine.figuresLine());
        return process.waitFor();
    }

    /** What the command's thread made in its namespace: the tap, and (with --bypass) a new socket's buffer sizes there. */
    private record Namespace(TapLink link, io.jslirp.bypass.ConnectBypass.Defaults defaults) {}

    /** The command's tap, once its namespace is set up; an EPERM for the namespace says what restricts user namespaces, where it can tell. */
    private static Namespace readyOrExplained(GuestCommand command) throws Exception {
        try {
            return command.ready();
        } catch (io.jslirp.sys.SysException e) {
            Path restrict = Path.of("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
            String v = "";
            try {
                if (Files.isReadable(restrict)) v = Files.readString(restrict).strip();
            } catch (IOException ignored) {
                // no hint then
            }
            if (e.errno() != io.jslirp.sys.Errno.EPERM || !v.equals("1") || !e.getMessage().startsWith("unshare")) throw e;
            throw new IllegalStateException("cannot make a network namespace: " + e.getMessage() + ": AppArmor restricts user"
                    + " namespaces here (sysctl kernel.apparmor_restrict_unprivileged_userns=1) to programs with a profile that allows"
                    + " them; give " + ProcessHandle.current().info().command().orElse("java") + " one, or set the sysctl to 0", e);
        }
    }

    /**
     * The command shares the host's files, and so its /etc/resolv.conf: a nameserver on the host's
     * loopback there (systemd-resolved's 127.0.0.53, the default on Ubuntu and Fedora) would be
     * the namespace's own loopback for the command, where nothing answers. So, as rootlesskit's
     * --copy-up=/etc does, the command gets a resolv.conf of its own that names the DNS address
     * (which forwards to the host's nameservers) and keeps the host's search domains and options,
     * bind-mounted over /etc/resolv.conf in the private mount namespace the launcher made for this
     * run (never where a mount would change the host's view). Best effort: without it lookups
     * work wherever the host's resolver is reachable from the namespace.
     */
    private static void giveTheCommandOurResolver(EngineConfig config) {
        if (!Namespaces.ownsItsMountNamespace()) {
            Log.debug(() -> "no mount namespace of our own: the command sees the host's /etc/resolv.conf");
            return;
        }
        List<String> dns = new ArrayList<>(List.of(Ipv4.format(config.network().dns())));
        if (config.ipv6() != null) dns.add(Ipv6.format(config.ipv6().dnsHi(), config.ipv6().dnsLo()));
        Path file = null;
        try {
            List<String> host = Files.isReadable(ResolvConf.DEFAULT) ? Files.readAllLines(ResolvConf.DEFAULT) : List.of();
            // Named after this process, not by Files.createTempFile, whose SecureRandom costs a start-up
            // tens of milliseconds; created new (never an existing file of that name), then read by all.
            file = Path.of(System.getProperty("java.io.tmpdir"), "jslirp-resolv-" + ProcessHandle.current().pid() + ".conf");
            Files.writeString(file, ResolvConf.forGuest(host, dns), java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            Mounts.bind(file.toString(), ResolvConf.DEFAULT.toString());
        } catch (IOException | RuntimeException e) {
            Log.warn("the command keeps the host's " + ResolvConf.DEFAULT + " (cannot give it one naming " + dns.getFirst() + ": "
                    + Main.oneLine(e) + ")");
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file); // the mount keeps what it shows
                } catch (IOException ignored) {
                    // a file in /tmp
                }
            }
        }
    }
}
