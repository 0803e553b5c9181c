package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Seccomp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code jslirp attach}: slirp4netns's command line, serving an existing network namespace. */
@Command(name = "attach", versionProvider = AttachCommand.Version.class,
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

    /** Not offered in --help, so tools that look there (rootlesskit's auto mode) do not ask for it. */
    @Option(names = "--enable-sandbox", hidden = true)
    boolean enableSandbox;

    @Parameters(index = "0", paramLabel = "PID|PATH", description = "process whose network namespace to serve, or the namespace's path")
    String target;

    @Parameters(index = "1", paramLabel = "TAPNAME", defaultValue = "tap0", description = "name of the tap device (default: ${DEFAULT-VALUE})")
    String tapName;

    @Override
    public Integer call() throws Exception {
        if (enableSandbox) {
            throw new IllegalArgumentException("--enable-sandbox is not supported: a JVM loads classes from the JDK and its jar"
                    + " as it goes, so it cannot be confined to an empty root as slirp4netns confines itself");
        }
        EngineConfig config = network.engineConfig();
        String netnsPath = netnsPath();
        refuseOwnNamespace(netnsPath);
        long mac = network.guestMac();
        TapLink link = Namespaces.callInNetns(netnsPath, () -> GuestInterface.open(tapName, false));
        Engine engine = new Engine(link, config);
        network.serve(engine);
        // Configured only now, with the forwarded ports and the API socket open: whoever waits
        // for the address (or the ready fd) finds them served.
        if (configure) {
            Namespaces.callInNetns(netnsPath, () -> {
                GuestInterface.configure(tapName, config.network(), mac);
                return null;
            });
        }
        if (exitFd != null) engine.stopWhenReadable(exitFd);
        if (enableSeccomp) Seccomp.install(); // after the last setns, before anyone is told the network is up
        if (readyFd != null) Serving.signalReady(readyFd);
        return Serving.untilStopped(engine);
    }

    /**
     * slirp4netns's version lines, naming jslirp, for tools that run {@code slirp4netns --version}
     * (bin/slirp4netns is this command).
     */
    static final class Version implements picocli.CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"slirp4netns version 1.2.0 (compatible: jslirp " + (v == null ? "dev" : v) + ")",
                    "commit: none", "libslirp: none (jslirp is user-mode networking in Java)"};
        }
    }

    private String netnsPath() {
        switch (netnsType) {
            case "pid" -> {
                if (!target.chars().allMatch(Character::isDigit) || target.isEmpty()) {
                    throw new IllegalArgumentException("PID must be a number: " + target + " (use --netns-type=path for a path)");
                }
                String path = "/proc/" + target + "/ns/net";
                if (!Files.exists(Path.of(path))) throw new IllegalArgumentException("no process with PID " + target);
                return path;
            }
            case "path" -> {
                if (!Files.exists(Path.of(target))) throw new IllegalArgumentException("no network namespace at " + target);
                return target;
            }
            default -> throw new IllegalArgumentException("--netns-type must be pid or path, not " + netnsType);
        }
    }

    /**
     * A target still in jslirp's own network namespace (e.g. a process that has not finished
     * unsharing yet) would get the tap and, with --configure, a default route in the host's
     * network: refuse.
     */
    private static void refuseOwnNamespace(String netnsPath) throws java.io.IOException {
        if (Files.isSameFile(Path.of(netnsPath), Path.of("/proc/self/ns/net"))) {
            throw new IllegalArgumentException(netnsPath + " is jslirp's own network namespace, not a separate one");
        }
    }
}
