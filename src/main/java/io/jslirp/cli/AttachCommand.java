package io.jslirp.cli;

import io.jslirp.api.ApiSocket;
import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.isolate.Handoff;
import io.jslirp.isolate.Sandbox;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Seccomp;
import io.jslirp.sys.UnixListener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code jslirp attach}: slirp4netns's command line, serving an existing network namespace. */
@Command(name = "attach", versionProvider = AttachCommand.Version.class, abbreviateSynopsis = true,
        description = {"Create tap device TAPNAME in the network namespace of PID (or at PATH) and serve it.",
                "Flags, arguments and defaults as slirp4netns 1.2."},
        footer = {"", "Examples:", "  unshare --user --map-root-user --net sleep infinity &",
                "  jslirp attach --configure --mtu 65520 $! tap0",
                "",
                "  # forward host port 8080, then: jslirp status --api-socket /tmp/api.sock",
                "  jslirp attach -c -t 8080:80 --api-socket /tmp/api.sock $! tap0",
                "",
                "  # rootlesskit (and Podman through it) with bin/slirp4netns, which runs",
                "  # jslirp attach with slirp4netns's arguments:",
                "  rootlesskit --net=slirp4netns --slirp4netns-binary=$PWD/bin/slirp4netns \\",
                "      --port-driver=slirp4netns -- sh"})
final class AttachCommand implements Callable<Integer> {
    /** The handoff's names for the tap's queues and the API socket's listener and lock. */
    private static final String TAP = "tap", API = "api";

    @Mixin
    NetworkOptions network;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** -v as slirp4netns has it; -V as every other jslirp command. */
    @Option(names = {"-v", "-V", "--version"}, versionHelp = true, description = "show slirp4netns-style version lines and exit")
    boolean version;

    @Option(names = {"-c", "--configure"}, description = "bring up the interface: address .100, MTU, default route via the gateway")
    boolean configure;

    @Option(names = {"-r", "--ready-fd"}, paramLabel = "FD", description = "write \"1\" to FD when the network is configured")
    Integer readyFd;

    @Option(names = {"-e", "--exit-fd"}, paramLabel = "FD", description = "exit when FD becomes readable or is closed")
    Integer exitFd;

    @Option(names = "--netns-type", paramLabel = "TYPE", description = "pid or path (default: ${DEFAULT-VALUE})", defaultValue = "pid")
    String netnsType;

    @Option(names = "--userns-path", paramLabel = "PATH", description = "user namespace to join first (the jslirp launcher enters it before the JVM starts)")
    String usernsPath;

    @Option(names = "--enable-seccomp",
            description = "refuse (EPERM) the system calls slirp4netns's seccomp filter blocks, once the tap is set up")
    boolean enableSeccomp;

    /**
     * Not offered in --help, so tools that look there (rootlesskit's --slirp4netns-sandbox=auto) do
     * not turn it on for every start: it costs a second JVM start (isolate's theory of operation).
     */
    @Option(names = "--enable-sandbox", hidden = true)
    boolean enableSandbox;

    @Parameters(index = "0", paramLabel = "PID|PATH", description = "process whose network namespace to serve, or the namespace's path")
    String target;

    @Parameters(index = "1", arity = "0..1", paramLabel = "TAPNAME", defaultValue = "tap0", description = "name of the tap device (default: ${DEFAULT-VALUE})")
    String tapName;

    @Override
    public Integer call() throws Exception {
        Handoff handoff = enableSandbox ? Handoff.inherited() : null;
        if (handoff != null) return serveConfined(handoff);
        String netnsPath;
        EngineConfig config;
        try {
            netnsPath = netnsPath();
            refuseOwnNamespace(netnsPath);
            config = network.engineConfig();
        } catch (RuntimeException e) {
            removeLaunchersTap();
            throw e;
        }
        long mac = network.guestMac();
        TapLink link = Namespaces.callInNetns(netnsPath, () -> GuestInterface.open(tapName, false));
        if (enableSandbox) return confine(netnsPath, link, config, mac);
        Engine engine = new Engine(link, config);
        network.serve(engine);
        // Configured only now, with the forwarded ports and the API socket open: whoever waits
        // for the address (or the ready fd) finds them served.
        if (configure) configureInterface(netnsPath, config, mac);
        return serveUntilStopped(engine, false);
    }

    /** --configure: the interface's address, MTU and default route, in the target's namespace. */
    private void configureInterface(String netnsPath, EngineConfig config, long mac) throws Exception {
        Namespaces.callInNetns(netnsPath, () -> {
            GuestInterface.configure(tapName, config.network(), mac);
            return null;
        });
    }

    /** With everything set up: the exit fd watched, the filter installed, the ready fd told, then served. */
    private Integer serveUntilStopped(Engine engine, boolean sandboxed) {
        if (exitFd != null) engine.stopWhenReadable(exitFd);
        if (enableSeccomp) Seccomp.install(); // after the last setns, before anyone is told the network is up
        if (sandboxed && System.getenv(Sandbox.PROBE_VARIABLE) != null) System.err.println("jslirp: sandbox probe: " + Sandbox.probe());
        if (readyFd != null) Serving.signalReady(readyFd);
        return Serving.untilStopped(engine);
    }

    /**
     * --enable-sandbox, before the exec: what needs the target's namespaces or the host's files (the
     * interface's addresses, the API socket's file) done here, then the process confined and started
     * again ({@link Sandbox}), the tap's queues and the API socket handed over. Does not return.
     */
    private Integer confine(String netnsPath, TapLink link, EngineConfig config, long mac) throws Exception {
        if (configure) configureInterface(netnsPath, config, mac);
        Map<String, int[]> fds = new LinkedHashMap<>();
        int[] tap = new int[link.queues()];
        for (int i = 0; i < tap.length; i++) tap[i] = link.fd(i);
        fds.put(TAP, tap);
        if (network.apiSocket != null) {
            UnixListener api = ApiSocket.listen(network.apiSocket);
            fds.put(API, new int[] {api.fd(), api.file().lockDescriptor()});
        }
        List<Path> exposed = new ArrayList<>();
        if (network.tftp != null) exposed.add(network.tftp);
        if (!network.disableDns && Files.exists(network.resolvConf)) exposed.add(network.resolvConf);
        List<Path> writable = new ArrayList<>();
        if (network.pcap != null) writable.add(createPcapFile(network.pcap));
        Sandbox.enter(exposed, writable, new Handoff(fds), readyFd == null ? -1 : readyFd, exitFd == null ? -1 : exitFd);
        throw new AssertionError("Sandbox.enter returned");
    }

    /** The --pcap file, made (empty) before the sandbox, where it is the one file the program may write. */
    private static Path createPcapFile(Path pcap) {
        try {
            java.nio.channels.FileChannel.open(pcap, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE,
                    java.nio.file.StandardOpenOption.TRUNCATE_EXISTING).close();
            return pcap;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot write --pcap " + pcap + ": " + io.jslirp.util.FileErrors.reason(e));
        }
    }

    /** --enable-sandbox, after the exec: the handed-over tap and API socket served, nothing set up. */
    private Integer serveConfined(Handoff handoff) {
        EngineConfig config = network.engineConfig();
        Engine engine = new Engine(new TapLink(true, handoff.get(TAP)), config);
        int[] api = handoff.get(API);
        network.serve(engine, api.length == 2 ? UnixListener.inherited(network.apiSocket.toString(), api[0], api[1]) : null);
        return serveUntilStopped(engine, true);
    }

    /** A device the launcher made for a target whose arguments are refused goes again. */
    private void removeLaunchersTap() {
        if (!GuestInterface.madeByLauncher(tapName)) return;
        try {
            Namespaces.callInNetns(netnsPath(), () -> {
                GuestInterface.removeLaunchersTap(tapName);
                return null;
            });
        } catch (Exception e) {
            io.jslirp.util.Log.debug(e::toString);
        }
    }

    /**
     * slirp4netns's version lines, naming jslirp, for tools that run {@code slirp4netns --version}
     * (bin/slirp4netns is this command).
     */
    static final class Version implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            BuildInfo b = BuildInfo.CURRENT;
            // SLIRP_CONFIG_VERSION_MAX is what feature probes read (slirp4netns's own tests among
            // them): 2 brings --outbound-addr and --outbound-addr6, 3 --disable-dns, all of which
            // jslirp has. The commit line names jslirp's commit, as slirp4netns's names its own.
            return new String[] {"slirp4netns version 1.2.0 (compatible: jslirp " + b.version() + ", commit " + b.commit()
                    + (b.dirty() ? ", dirty" : "") + ")",
                    "commit: " + b.commit(), "libslirp: none (jslirp is user-mode networking in Java)", "SLIRP_CONFIG_VERSION_MAX: 3"};
        }
    }

    private String netnsPath() {
        switch (netnsType) {
            case "pid" -> {
                if (!target.chars().allMatch(Character::isDigit) || target.isEmpty()) {
                    throw new IllegalArgumentException("PID must be a number: " + target + " (use --netns-type=path for a path)");
                }
                return Targets.netnsOfPid(target);
            }
            case "path" -> {
                return Targets.netnsAt(target);
            }
            default -> throw new IllegalArgumentException("--netns-type must be pid or path, not " + netnsType);
        }
    }

    /**
     * A target still in jslirp's own network namespace (e.g. a process that has not finished
     * unsharing yet) would get the tap and, with --configure, a default route in the host's
     * network: refuse.
     */
    private static void refuseOwnNamespace(String netnsPath) {
        if (sameFile(netnsPath, "/proc/self/ns/net")) {
            throw new IllegalArgumentException(netnsPath + " is jslirp's own network namespace, not a separate one");
        }
    }

    private static boolean sameFile(String a, String b) {
        try {
            return Files.isSameFile(Path.of(a), Path.of(b));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot open " + a + ": " + Main.oneLine(e));
        }
    }
}
